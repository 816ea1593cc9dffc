-- Hand-written: library search finds the words inside file-like names (sunset-beach.jpg,
-- IMG_1234.jpg, SunsetBeach2024.png). The English parser keeps such names whole (as a host or a
-- file), so the generated column now indexes their words instead.
--
-- media_search_words(text): the text with punctuation and spaces made word breaks; a word with
-- inner boundaries (camelCase, an upper-case run before a capitalised word, letters and digits) is
-- kept whole and followed by its parts:
--   'IMG_1234.jpg'          -> 'IMG 1234 jpg'
--   'SunsetBeach2024.png'   -> 'SunsetBeach2024 Sunset Beach 2024 png'
-- Queries are built to the same rules (src/modules/media/search-query.ts). Declared IMMUTABLE so a
-- generated column may call it: it only uses immutable built-ins. Changing it means a new
-- migration that redefines the column (stored values are not recomputed by CREATE OR REPLACE).
CREATE OR REPLACE FUNCTION "media_search_words"("input" text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(CASE WHEN parts = word THEN word ELSE word || ' ' || parts END, ' ' ORDER BY n), '')
  FROM (
    SELECT word, n,
      regexp_replace(regexp_replace(regexp_replace(regexp_replace(word,
        '([[:lower:]])([[:upper:]])', '\1 \2', 'g'),               -- sunsetBeach -> sunset Beach
        '([[:upper:]])([[:upper:]][[:lower:]])', '\1 \2', 'g'),    -- HTTPServer -> HTTP Server
        '([[:alpha:]])([[:digit:]])', '\1 \2', 'g'),               -- IMG1234 -> IMG 1234
        '([[:digit:]])([[:alpha:]])', '\1 \2', 'g') AS parts       -- 2024beach -> 2024 beach
    FROM regexp_split_to_table("input", '[[:punct:][:space:]]+') WITH ORDINALITY AS w(word, n)
    WHERE word <> ''
  ) AS words
$$;

-- A generated column's expression cannot be changed in place before PostgreSQL 17: drop it (its
-- GIN index goes with it) and add it again, which computes it for every existing row.
ALTER TABLE "MediaItem" DROP COLUMN "searchVector";

ALTER TABLE "MediaItem" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, "media_search_words"(coalesce("name", ''))), 'A') ||
    setweight(to_tsvector('english'::regconfig, "media_search_words"(coalesce("tagText", ''))), 'B') ||
    setweight(to_tsvector('english'::regconfig, "media_search_words"(coalesce("caption", '') || ' ' || coalesce("extractedText", ''))), 'C')
) STORED;

CREATE INDEX "MediaItem_searchVector_idx" ON "MediaItem" USING GIN ("searchVector");
