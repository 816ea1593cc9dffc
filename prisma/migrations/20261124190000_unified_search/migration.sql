-- Hand-written (the unified search, src/modules/search): reverse image search over a library, and
-- full text over an account's own community items. Prisma neither reads nor writes these columns.

-- The band tags of an image's hashes for multi-index hashing (as ImageObject's "bandTags"): the
-- 256-bit blockhash's 16 bands of 16 bits tagged band << 16 | value (bands 0 to 15), then the
-- 64-bit pHash's 4 bands tagged (16 + band) << 16 | value. Two blockhashes within d bits share a band
-- to within d / 16 bits, two pHashes within d bits to within d / 4. A hash that is missing or not hex
-- gives no tags. IMMUTABLE: it only uses immutable built-ins, so a generated column may call it.
CREATE OR REPLACE FUNCTION image_hash_bands(p_blockhash TEXT, p_phash TEXT) RETURNS INTEGER[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce((SELECT array_agg((b << 16) | ('x' || substr(p_blockhash, b * 4 + 1, 4))::BIT(16)::INTEGER ORDER BY b)
                     FROM generate_series(0, 15) b WHERE p_blockhash ~* '^[0-9a-f]{64}$'), '{}')
      || coalesce((SELECT array_agg(((16 + b) << 16) | ('x' || substr(p_phash, b * 4 + 1, 4))::BIT(16)::INTEGER ORDER BY b)
                     FROM generate_series(0, 3) b WHERE p_phash ~* '^[0-9a-f]{16}$'), '{}')
$$;

ALTER TABLE "MediaItem" ADD COLUMN "hashBits" BIT(256) GENERATED ALWAYS AS (CASE WHEN "blockhash" ~* '^[0-9a-f]{64}$' THEN ('x' || "blockhash")::BIT(256) END) STORED;
ALTER TABLE "MediaItem" ADD COLUMN "phashBits" BIT(64) GENERATED ALWAYS AS (CASE WHEN "phash" ~* '^[0-9a-f]{16}$' THEN ('x' || "phash")::BIT(64) END) STORED;
ALTER TABLE "MediaItem" ADD COLUMN "hashBands" INTEGER[] GENERATED ALWAYS AS (image_hash_bands("blockhash", "phash")) STORED;
-- Live items only (the search never shows the trash); fastupdate off as for ImageObject: new items
-- go into the index itself, not a pending list every search would read through.
CREATE INDEX "MediaItem_hashBands_idx" ON "MediaItem" USING GIN ("hashBands") WITH (fastupdate = off) WHERE "trashedAt" IS NULL;

-- An account's live items sharing a band tag with p_tags, within p_max_block blockhash bits or
-- p_max_phash pHash bits: blockhash matches first, nearest first, then pHash-only matches (lightly
-- cropped copies). As nearest_image_objects: the planner would guess that hundreds of tags match
-- most rows and read them all, or walk the account's rows by the account index; the GIN index
-- finds the few that share a tag ("accountId" + 0 keeps the account index out of it).
CREATE OR REPLACE FUNCTION nearest_media_items(p_account INTEGER, p_bits BIT(256), p_phash BIT(64), p_tags INTEGER[], p_max_block INTEGER, p_max_phash INTEGER, p_limit INTEGER)
RETURNS TABLE (id INTEGER, block_distance INTEGER, phash_distance INTEGER)
LANGUAGE sql STABLE
SET enable_seqscan = off
SET jit = off
AS $$
  SELECT c.id, c.block_distance, c.phash_distance FROM (
    SELECT m.id, bit_count(m."hashBits" # p_bits)::INTEGER AS block_distance, bit_count(m."phashBits" # p_phash)::INTEGER AS phash_distance
      FROM "MediaItem" m
     WHERE m."hashBands" && p_tags AND m."trashedAt" IS NULL AND m."accountId" + 0 = p_account
  ) c
   WHERE c.block_distance <= p_max_block OR c.phash_distance <= p_max_phash
   ORDER BY coalesce(c.block_distance <= p_max_block, FALSE) DESC, c.block_distance, c.phash_distance, c.id DESC
   LIMIT p_limit
$$;

-- Full text over community items (an account's own contributions, the search's second tier), by
-- the library's word rules: name (A), tags (B), caption, labels and OCR words (C).
-- array_to_string is STABLE for arrays in general; for text[] it is immutable, which this says.
CREATE OR REPLACE FUNCTION search_text_of(p_words TEXT[]) RETURNS TEXT
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT coalesce(array_to_string(p_words, ' '), '') $$;

ALTER TABLE "CommunityItem" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english'::regconfig, "media_search_words"(coalesce("name", ''))), 'A') ||
    setweight(to_tsvector('english'::regconfig, "media_search_words"(search_text_of("tags"))), 'B') ||
    setweight(to_tsvector('english'::regconfig, "media_search_words"(coalesce("caption", '') || ' ' || search_text_of("labels") || ' ' || search_text_of("words"))), 'C')
) STORED;

CREATE INDEX "CommunityItem_searchVector_idx" ON "CommunityItem" USING GIN ("searchVector");

-- The atlas (src/modules/wiki/atlas.service.ts) matches community items by tags or labels: with
-- both GIN-indexed a rare word is found through the indexes instead of walking every listed item.
CREATE INDEX "CommunityItem_labels_idx" ON "CommunityItem" USING GIN ("labels");
