-- Hand-written (Prisma's schema language has no functions).
-- consume_quota_many counts up to p_wanted requests against every given counter at once, with the
-- answer sequential calls of consume_quota would have given: the first `granted` requests pass, and
-- when not all fit, the rest are refused by the first counter (in the order given) that has reached
-- its limit, and counted nowhere. Counters are taken in the order given (callers keep one global
-- order), and their row locks are held until the statement commits, so concurrent callers at a
-- boundary let exactly the limit through.
-- The common case, all fit, costs one upsert per counter, as consume_quota does; otherwise the
-- counters' rows are locked and read and each is raised by what fits in all of them.
-- Returns the counts after the call, how many requests passed, and the 1-based position of the
-- counter that refused the rest (0: none was refused).
CREATE OR REPLACE FUNCTION consume_quota_many(p_keys TEXT[], p_windows TIMESTAMP(3)[], p_limits INTEGER[], p_wanted INTEGER)
RETURNS TABLE (counts INTEGER[], granted INTEGER, refused_at INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  n INTEGER := coalesce(array_length(p_keys, 1), 0);
  i INTEGER;
  current_count INTEGER;
  result INTEGER[] := '{}';
  room INTEGER[] := '{}';
  fits INTEGER;
  refused INTEGER := 0;
BEGIN
  FOR i IN 1 .. n LOOP
    current_count := NULL;
    IF p_limits[i] >= p_wanted THEN
      INSERT INTO "UsageCounter" ("key", "windowStart", "count", "updatedAt")
      VALUES (p_keys[i], p_windows[i], p_wanted, now())
      ON CONFLICT ("key", "windowStart") DO UPDATE
        SET "count" = "UsageCounter"."count" + p_wanted, "updatedAt" = now()
        WHERE "UsageCounter"."count" + p_wanted <= p_limits[i]
      RETURNING "count" INTO current_count;
    END IF;
    IF current_count IS NULL THEN
      -- Not all fit here: take back what this call added to the counters before, then count what fits.
      FOR j IN 1 .. i - 1 LOOP
        UPDATE "UsageCounter" SET "count" = "count" - p_wanted WHERE "key" = p_keys[j] AND "windowStart" = p_windows[j];
      END LOOP;
      fits := p_wanted;
      result := '{}';
      FOR j IN 1 .. n LOOP
        INSERT INTO "UsageCounter" ("key", "windowStart", "count", "updatedAt") VALUES (p_keys[j], p_windows[j], 0, now())
        ON CONFLICT ("key", "windowStart") DO NOTHING;
        SELECT "count" INTO current_count FROM "UsageCounter" WHERE "key" = p_keys[j] AND "windowStart" = p_windows[j] FOR UPDATE;
        result := result || current_count;
        room := room || GREATEST(0, p_limits[j] - current_count);
        fits := LEAST(fits, room[j]);
      END LOOP;
      FOR j IN 1 .. n LOOP
        IF refused = 0 AND room[j] = fits THEN
          refused := j;
        END IF;
        IF fits > 0 THEN
          UPDATE "UsageCounter" SET "count" = "count" + fits, "updatedAt" = now() WHERE "key" = p_keys[j] AND "windowStart" = p_windows[j];
          result[j] := result[j] + fits;
        END IF;
      END LOOP;
      RETURN QUERY SELECT result, fits, refused;
      RETURN;
    END IF;
    result := result || current_count;
  END LOOP;
  RETURN QUERY SELECT result, p_wanted, 0;
END;
$$;

-- admit_requests admits p_wanted requests made at once with one key the service has already
-- verified (as admit_request does for one): the key's and its account's current state are read and,
-- when the key may still be used, the requests are counted with consume_quota_many in the same
-- statement. A process sends the requests that arrive for a key while its previous statement is out
-- in one call, so under load a round trip admits many requests, and a revocation, an expiry or a
-- suspension still refuses the very next statement in every process.
-- With them it returns the account's data versions (see the DataVersion migration) as an object of
-- domain to version.
-- Returns no row when the key is gone; counts is NULL (and granted 0) when the key may not be used.
-- admit_request (one request at a time) stays for processes of the previous release during a
-- rolling update, as a wrapper of this one (the end of this file).
CREATE OR REPLACE FUNCTION admit_requests(p_key_id INTEGER, p_now TIMESTAMP(3), p_keys TEXT[], p_windows TIMESTAMP(3)[], p_limits INTEGER[], p_wanted INTEGER)
RETURNS TABLE (revoked BOOLEAN, expires_at TIMESTAMPTZ(3), status TEXT, handle TEXT, tier TEXT, scopes TEXT[], credit_limit INTEGER, counts INTEGER[], granted INTEGER, refused_at INTEGER, data_versions JSONB)
LANGUAGE plpgsql AS $$
DECLARE
  k RECORD;
BEGIN
  SELECT key."revokedAt" IS NOT NULL AS revoked, key."expiresAt" AS expires_at, account.status::TEXT AS status,
         account.handle, account.tier, key.scopes, key."creditLimit" AS credit_limit, account.id AS account_id
    INTO k
    FROM "ApiKey" key JOIN "Account" account ON account.id = key."accountId"
   WHERE key.id = p_key_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF k.revoked OR (k.expires_at IS NOT NULL AND k.expires_at <= p_now) OR k.status <> 'active' THEN
    RETURN QUERY SELECT k.revoked, k.expires_at AT TIME ZONE 'UTC', k.status, k.handle, k.tier, k.scopes, k.credit_limit, NULL::INTEGER[], 0, 0, NULL::JSONB;
    RETURN;
  END IF;
  -- Read in this statement's snapshot: a change they do not show committed after the request arrived.
  RETURN QUERY SELECT k.revoked, k.expires_at AT TIME ZONE 'UTC', k.status, k.handle, k.tier, k.scopes, k.credit_limit, q.counts, q.granted, q.refused_at,
      (SELECT coalesce(jsonb_object_agg(v."domain", v."version"), '{}'::JSONB) FROM "DataVersion" v WHERE v."accountId" = k.account_id)
    FROM consume_quota_many(p_keys, p_windows, p_limits, p_wanted) q;
END;
$$;

-- admit_request, kept for processes of the previous release during a rolling update, now asks
-- admit_requests for one request: the key's rules are written once.
CREATE OR REPLACE FUNCTION admit_request(p_key_id INTEGER, p_now TIMESTAMP(3), p_keys TEXT[], p_windows TIMESTAMP(3)[], p_limits INTEGER[])
RETURNS TABLE (revoked BOOLEAN, expires_at TIMESTAMPTZ(3), status TEXT, handle TEXT, tier TEXT, scopes TEXT[], credit_limit INTEGER, counts INTEGER[], refused_at INTEGER)
LANGUAGE sql AS $$
  SELECT a.revoked, a.expires_at, a.status, a.handle, a.tier, a.scopes, a.credit_limit, a.counts, a.refused_at
    FROM admit_requests(p_key_id, p_now, p_keys, p_windows, p_limits, 1) a
$$;
