-- CreateTable
CREATE TABLE "ImageObject" (
    "id" SERIAL NOT NULL,
    "sha256" TEXT NOT NULL,
    "phash" TEXT NOT NULL,
    "blockhash" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "format" TEXT NOT NULL,
    "width" INTEGER NOT NULL,
    "height" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ImageObject_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ImageObject_sha256_key" ON "ImageObject"("sha256");


-- Hand-written below (Prisma's schema language has no generated columns, GIN indexes of arrays or
-- functions). Prisma neither reads nor writes these two columns: the database makes them.
ALTER TABLE "ImageObject" ADD CONSTRAINT "ImageObject_blockhash_hex" CHECK ("blockhash" ~ '^[0-9a-f]{64}$');

-- The blockhash as bits, for Hamming distances (bit_count of an XOR).
ALTER TABLE "ImageObject" ADD COLUMN "bits" BIT(256) GENERATED ALWAYS AS (('x' || "blockhash")::BIT(256)) STORED;

-- Multi-index hashing: the blockhash's 16 bands of 16 bits, each tagged with its band number
-- (band << 16 | value), in one GIN index. A search asks for the tags within a few bits of the query's
-- bands (src/modules/image-objects); two hashes within d bits share a band to within d / 16 bits.
ALTER TABLE "ImageObject" ADD COLUMN "bandTags" INTEGER[] GENERATED ALWAYS AS (ARRAY[
    (0 << 16) | ('x' || substr("blockhash", 1, 4))::BIT(16)::INTEGER,
    (1 << 16) | ('x' || substr("blockhash", 5, 4))::BIT(16)::INTEGER,
    (2 << 16) | ('x' || substr("blockhash", 9, 4))::BIT(16)::INTEGER,
    (3 << 16) | ('x' || substr("blockhash", 13, 4))::BIT(16)::INTEGER,
    (4 << 16) | ('x' || substr("blockhash", 17, 4))::BIT(16)::INTEGER,
    (5 << 16) | ('x' || substr("blockhash", 21, 4))::BIT(16)::INTEGER,
    (6 << 16) | ('x' || substr("blockhash", 25, 4))::BIT(16)::INTEGER,
    (7 << 16) | ('x' || substr("blockhash", 29, 4))::BIT(16)::INTEGER,
    (8 << 16) | ('x' || substr("blockhash", 33, 4))::BIT(16)::INTEGER,
    (9 << 16) | ('x' || substr("blockhash", 37, 4))::BIT(16)::INTEGER,
    (10 << 16) | ('x' || substr("blockhash", 41, 4))::BIT(16)::INTEGER,
    (11 << 16) | ('x' || substr("blockhash", 45, 4))::BIT(16)::INTEGER,
    (12 << 16) | ('x' || substr("blockhash", 49, 4))::BIT(16)::INTEGER,
    (13 << 16) | ('x' || substr("blockhash", 53, 4))::BIT(16)::INTEGER,
    (14 << 16) | ('x' || substr("blockhash", 57, 4))::BIT(16)::INTEGER,
    (15 << 16) | ('x' || substr("blockhash", 61, 4))::BIT(16)::INTEGER
]) STORED;
-- fastupdate off: new objects go into the index itself, not into a pending list that every search
-- would read through until a vacuum merges it (40 ms a search with 20,000 objects pending).
CREATE INDEX "ImageObject_bandTags_idx" ON "ImageObject" USING GIN ("bandTags") WITH (fastupdate = off);

-- The objects sharing a tag with p_tags, nearest to p_bits first (ties: oldest first), within
-- p_max_distance bits. PostgreSQL estimates that hundreds of tags match most of the table and would
-- read all of it; the index finds the few objects that share one, so this function does without
-- sequential scans (and without JIT compilation, which that estimate would also start).
CREATE OR REPLACE FUNCTION nearest_image_objects(p_bits BIT(256), p_tags INTEGER[], p_max_distance INTEGER, p_limit INTEGER)
RETURNS TABLE (id INTEGER, sha256 TEXT, phash TEXT, blockhash TEXT, bytes INTEGER, format TEXT, width INTEGER, height INTEGER, created_at TIMESTAMPTZ(3), distance INTEGER)
LANGUAGE sql STABLE
SET enable_seqscan = off
SET jit = off
AS $$
  SELECT * FROM (
    SELECT o.id, o.sha256, o.phash, o.blockhash, o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC',
           bit_count(o.bits # p_bits)::INTEGER AS distance
      FROM "ImageObject" o
     WHERE o."bandTags" && p_tags
  ) candidates
   WHERE distance <= p_max_distance
   ORDER BY distance, id
   LIMIT p_limit
$$;

-- Makes the object of an image that no object is near yet, in one statement: creations take turns
-- (a transaction-level advisory lock), and each looks again, under the lock, for an object with the
-- same bytes or within p_max_distance (p_tags: the query's band tags out to that distance), so
-- copies of a new image arriving at the same moment make one object. Returns that object, and
-- whether it was made here.
CREATE OR REPLACE FUNCTION make_image_object(p_sha256 TEXT, p_phash TEXT, p_blockhash TEXT, p_bytes INTEGER, p_format TEXT, p_width INTEGER, p_height INTEGER, p_tags INTEGER[], p_max_distance INTEGER)
RETURNS TABLE (id INTEGER, sha256 TEXT, phash TEXT, blockhash TEXT, bytes INTEGER, format TEXT, width INTEGER, height INTEGER, created_at TIMESTAMPTZ(3), distance INTEGER, created BOOLEAN)
LANGUAGE plpgsql
SET enable_seqscan = off
SET jit = off
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(18559943);
  RETURN QUERY SELECT o.id, o.sha256, o.phash, o.blockhash, o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC', 0, FALSE
    FROM "ImageObject" o WHERE o.sha256 = p_sha256;
  IF FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY SELECT n.*, FALSE FROM nearest_image_objects(('x' || p_blockhash)::BIT(256), p_tags, p_max_distance, 1) n;
  IF FOUND THEN
    RETURN;
  END IF;
  RETURN QUERY INSERT INTO "ImageObject" AS o (sha256, phash, blockhash, bytes, format, width, height)
    VALUES (p_sha256, p_phash, p_blockhash, p_bytes, p_format, p_width, p_height)
    RETURNING o.id, o.sha256, o.phash, o.blockhash, o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC', 0, TRUE;
END;
$$;
