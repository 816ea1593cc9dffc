-- Hand-written (Prisma's schema language has no functions).
-- admit_request admits one request made with a key the service has already verified (its digest
-- matched before): it reads the key's and its account's current state and, when the key may still
-- be used (not revoked, not expired at p_now, account active), counts the request with
-- consume_quota in the same statement. So a request made with a remembered key costs one round
-- trip, and a revocation, an expiry or a suspension still refuses the very next request in every
-- process: nothing about the key's state is remembered between requests.
-- The key's expiry comes back as a point in time (stored as UTC). Returns no row when the key is gone; counts is NULL when nothing was counted (the key may not be used).
CREATE OR REPLACE FUNCTION admit_request(p_key_id INTEGER, p_now TIMESTAMP(3), p_keys TEXT[], p_windows TIMESTAMP(3)[], p_limits INTEGER[])
RETURNS TABLE (revoked BOOLEAN, expires_at TIMESTAMPTZ(3), status TEXT, handle TEXT, tier TEXT, scopes TEXT[], credit_limit INTEGER, counts INTEGER[], refused_at INTEGER)
LANGUAGE plpgsql AS $$
DECLARE
  k RECORD;
BEGIN
  SELECT key."revokedAt" IS NOT NULL AS revoked, key."expiresAt" AS expires_at, account.status::TEXT AS status,
         account.handle, account.tier, key.scopes, key."creditLimit" AS credit_limit
    INTO k
    FROM "ApiKey" key JOIN "Account" account ON account.id = key."accountId"
   WHERE key.id = p_key_id;
  IF NOT FOUND THEN
    RETURN;
  END IF;
  IF k.revoked OR (k.expires_at IS NOT NULL AND k.expires_at <= p_now) OR k.status <> 'active' THEN
    RETURN QUERY SELECT k.revoked, k.expires_at AT TIME ZONE 'UTC', k.status, k.handle, k.tier, k.scopes, k.credit_limit, NULL::INTEGER[], 0;
    RETURN;
  END IF;
  RETURN QUERY SELECT k.revoked, k.expires_at AT TIME ZONE 'UTC', k.status, k.handle, k.tier, k.scopes, k.credit_limit, q.counts, q.refused_at
    FROM consume_quota(p_keys, p_windows, p_limits) q;
END;
$$;
