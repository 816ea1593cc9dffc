-- AlterTable
ALTER TABLE "MediaItem" ADD COLUMN     "lowInformation" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable
ALTER TABLE "ImageObject" ADD COLUMN     "lowInformation" BOOLEAN NOT NULL DEFAULT false;


-- Hand-written below: the same-image rule's side in the database (src/modules/image-objects). An
-- image with too little information for a perceptual hash (flat, a smooth gradient, almost blank,
-- tiny: src/modules/media/information.ts) is the same as another only by its exact bytes, never by
-- distance, whichever side of the comparison it is on.

-- Rows made before the measure existed: the backstop is what their stored hashes and sizes still
-- tell. A blockhash with at most 16 bits set or at most 16 clear (every flat image hashes to all
-- zeros, an almost blank page nearly so), or fewer than 32 x 32 pixels, is low-information.
-- Gradients keep a structured-looking blockhash: those made before this migration are not caught.
UPDATE "ImageObject" SET "lowInformation" = TRUE
 WHERE bit_count("bits") <= 16 OR bit_count("bits") >= 240 OR "width"::BIGINT * "height" < 1024;
UPDATE "MediaItem" SET "lowInformation" = TRUE
 WHERE "hashBits" IS NOT NULL
   AND (bit_count("hashBits") <= 16 OR bit_count("hashBits") >= 240 OR ("width" IS NOT NULL AND "width"::BIGINT * "height" < 1024));

-- The objects within p_max_distance of p_bits, as before, but never a low-information one (the
-- return type gains "lowInformation", so the functions are made again).
DROP FUNCTION make_image_object(TEXT, TEXT, TEXT, INTEGER, TEXT, INTEGER, INTEGER, INTEGER[], INTEGER);
DROP FUNCTION nearest_image_objects(BIT(256), INTEGER[], INTEGER, INTEGER);

CREATE FUNCTION nearest_image_objects(p_bits BIT(256), p_tags INTEGER[], p_max_distance INTEGER, p_limit INTEGER)
RETURNS TABLE (id INTEGER, sha256 TEXT, phash TEXT, blockhash TEXT, "lowInformation" BOOLEAN, bytes INTEGER, format TEXT, width INTEGER, height INTEGER, created_at TIMESTAMPTZ(3), distance INTEGER)
LANGUAGE sql STABLE
SET enable_seqscan = off
SET jit = off
AS $$
  SELECT * FROM (
    SELECT o.id, o.sha256, o.phash, o.blockhash, o."lowInformation", o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC',
           bit_count(o.bits # p_bits)::INTEGER AS distance
      FROM "ImageObject" o
     WHERE o."bandTags" && p_tags AND NOT o."lowInformation"
  ) candidates
   WHERE distance <= p_max_distance
   ORDER BY distance, id
   LIMIT p_limit
$$;

-- As before (one creation at a time, looking again under the lock), with the image's
-- low-information flag: such an image joins only the object of its exact bytes.
CREATE FUNCTION make_image_object(p_sha256 TEXT, p_phash TEXT, p_blockhash TEXT, p_low_information BOOLEAN, p_bytes INTEGER, p_format TEXT, p_width INTEGER, p_height INTEGER, p_tags INTEGER[], p_max_distance INTEGER)
RETURNS TABLE (id INTEGER, sha256 TEXT, phash TEXT, blockhash TEXT, "lowInformation" BOOLEAN, bytes INTEGER, format TEXT, width INTEGER, height INTEGER, created_at TIMESTAMPTZ(3), distance INTEGER, created BOOLEAN)
LANGUAGE plpgsql
SET enable_seqscan = off
SET jit = off
AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(18559943);
  RETURN QUERY SELECT o.id, o.sha256, o.phash, o.blockhash, o."lowInformation", o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC', 0, FALSE
    FROM "ImageObject" o WHERE o.sha256 = p_sha256;
  IF FOUND THEN
    RETURN;
  END IF;
  IF NOT p_low_information THEN
    RETURN QUERY SELECT n.*, FALSE FROM nearest_image_objects(('x' || p_blockhash)::BIT(256), p_tags, p_max_distance, 1) n;
    IF FOUND THEN
      RETURN;
    END IF;
  END IF;
  RETURN QUERY INSERT INTO "ImageObject" AS o (sha256, phash, blockhash, "lowInformation", bytes, format, width, height)
    VALUES (p_sha256, p_phash, p_blockhash, p_low_information, p_bytes, p_format, p_width, p_height)
    RETURNING o.id, o.sha256, o.phash, o.blockhash, o."lowInformation", o.bytes, o.format, o.width, o.height, o."createdAt" AT TIME ZONE 'UTC', 0, TRUE;
END;
$$;

-- An account's library near copies, as before, under the same rule: the item with the image's
-- exact bytes always; by distance only when neither the image (p_low) nor the item is low-information.
DROP FUNCTION nearest_media_items(INTEGER, BIT(256), BIT(64), INTEGER[], INTEGER, INTEGER, INTEGER);
CREATE FUNCTION nearest_media_items(p_account INTEGER, p_sha256 TEXT, p_low BOOLEAN, p_bits BIT(256), p_phash BIT(64), p_tags INTEGER[], p_max_block INTEGER, p_max_phash INTEGER, p_limit INTEGER)
RETURNS TABLE (id INTEGER, block_distance INTEGER, phash_distance INTEGER)
LANGUAGE sql STABLE
SET enable_seqscan = off
SET jit = off
AS $$
  SELECT c.id, c.block_distance, c.phash_distance FROM (
    SELECT m.id, 0 AS block_distance, 0 AS phash_distance
      FROM "MediaItem" m
     WHERE m."accountId" = p_account AND m.sha256 = p_sha256 AND m."trashedAt" IS NULL AND m."kind" = 'image'
    UNION
    SELECT m.id, bit_count(m."hashBits" # p_bits)::INTEGER, bit_count(m."phashBits" # p_phash)::INTEGER
      FROM "MediaItem" m
     WHERE NOT p_low AND m."hashBands" && p_tags AND NOT m."lowInformation" AND m."trashedAt" IS NULL AND m."accountId" + 0 = p_account
  ) c
   WHERE c.block_distance <= p_max_block OR c.phash_distance <= p_max_phash
   ORDER BY coalesce(c.block_distance <= p_max_block, FALSE) DESC, c.block_distance, c.phash_distance, c.id DESC
   LIMIT p_limit
$$;
