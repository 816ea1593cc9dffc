-- Hand-written (Prisma's schema language has no functions).
-- consume_quota counts one request against every given counter, or against none of them:
-- counters are taken in the order given (callers keep one global order, so two requests never wait on
-- each other crosswise), each is raised only while it is below its limit, and when one is already at
-- its limit the ones raised before it in this call are lowered again. The row locks taken by the
-- upserts are held until the statement commits, so no other request sees the transient values and N
-- concurrent requests at the boundary let exactly the limit through.
-- Returns the counts after the call and the 1-based position of the counter that refused (0: none).
CREATE OR REPLACE FUNCTION consume_quota(p_keys TEXT[], p_windows TIMESTAMP(3)[], p_limits INTEGER[])
RETURNS TABLE (counts INTEGER[], refused_at INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  i INTEGER;
  j INTEGER;
  current_count INTEGER;
  result INTEGER[] := '{}';
BEGIN
  FOR i IN 1 .. coalesce(array_length(p_keys, 1), 0) LOOP
    current_count := NULL;
    IF p_limits[i] > 0 THEN
      INSERT INTO "UsageCounter" ("key", "windowStart", "count", "updatedAt")
      VALUES (p_keys[i], p_windows[i], 1, now())
      ON CONFLICT ("key", "windowStart") DO UPDATE
        SET "count" = "UsageCounter"."count" + 1, "updatedAt" = now()
        WHERE "UsageCounter"."count" < p_limits[i]
      RETURNING "count" INTO current_count;
    END IF;
    IF current_count IS NULL THEN
      FOR j IN 1 .. i - 1 LOOP
        UPDATE "UsageCounter" SET "count" = "count" - 1
        WHERE "key" = p_keys[j] AND "windowStart" = p_windows[j];
        result[j] := result[j] - 1;
      END LOOP;
      SELECT "count" INTO current_count FROM "UsageCounter" WHERE "key" = p_keys[i] AND "windowStart" = p_windows[i];
      result := result || coalesce(current_count, 0);
      FOR j IN i + 1 .. array_length(p_keys, 1) LOOP
        result := result || coalesce((SELECT "count" FROM "UsageCounter" WHERE "key" = p_keys[j] AND "windowStart" = p_windows[j]), 0);
      END LOOP;
      RETURN QUERY SELECT result, i;
      RETURN;
    END IF;
    result := result || current_count;
  END LOOP;
  RETURN QUERY SELECT result, 0;
END;
$$;

-- Old windows are useless once passed; this index lets a sweep delete them cheaply.
CREATE INDEX "UsageCounter_windowStart_idx" ON "UsageCounter" ("windowStart");
