-- Money moves in one statement each (issue 22): a coin conversion's row, its hold and, with the
-- embedded `local` credit partner, its credits and the hold's post, commit in one call; settling a
-- conversion (post or void, and the row's outcome) is another. Each answers the conversion row and
-- the account's coin wallet, so the route reads nothing back. Before, a conversion took 12
-- statements, two of them interactive transactions that held a pooled connection (and the wallet's
-- row lock) across round trips through a busy event loop: 10 pooled connections were the ceiling.

-- The conversion row (to_jsonb: column names) and the owner's coin wallet (minor units).
CREATE OR REPLACE FUNCTION bridge_conversion_json(p_id TEXT)
RETURNS JSONB
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'row', to_jsonb(c),
    'wallet', (SELECT jsonb_build_object('balance', a."creditsPosted" - a."debitsPosted", 'reserved', a."debitsPending")
               FROM "LedgerAccount" a WHERE a."ownerId" = c."accountId" AND a."currency" = 'coins'))
  FROM "BridgeConversion" c WHERE c."id" = p_id
$$;

-- A conversion: writes its row (p_row: id, accountId, partner, partnerAccount, coinsRequested, coins,
-- credits, rate, nextAttemptAt) unless the id exists, and then applies p_legs (ledger_apply: the hold,
-- or the hold, the credits and the hold's post). p_completed (a partner reference, or NULL) marks the
-- row completed by its first attempt. A row that existed is answered as it is, nothing applied
-- ({"created": false}): a concurrent conversion with the same id waits on the insert, then finds it.
CREATE OR REPLACE FUNCTION bridge_convert(p_row JSONB, p_legs JSONB, p_completed TEXT)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  v_id TEXT := p_row ->> 'id';
  v_now TIMESTAMP(3) := timezone('UTC', now());
  v_created BOOLEAN;
BEGIN
  INSERT INTO "BridgeConversion" ("id", "accountId", "partner", "partnerAccount", "coinsRequested", "coins", "credits", "rate", "status", "attempts", "nextAttemptAt", "createdAt", "updatedAt")
  VALUES (v_id, (p_row ->> 'accountId')::INTEGER, p_row ->> 'partner', p_row ->> 'partnerAccount', (p_row ->> 'coinsRequested')::BIGINT,
          (p_row ->> 'coins')::BIGINT, (p_row ->> 'credits')::BIGINT, (p_row ->> 'rate')::DOUBLE PRECISION, 'pending', 0,
          (p_row ->> 'nextAttemptAt')::TIMESTAMP(3), v_now, v_now)
  ON CONFLICT ("id") DO NOTHING;
  v_created := FOUND;
  IF v_created THEN
    PERFORM ledger_apply(p_legs);
    IF p_completed IS NOT NULL THEN
      UPDATE "BridgeConversion" SET "status" = 'completed', "attempts" = 1, "partnerReference" = p_completed, "completedAt" = v_now,
        "lastError" = NULL, "nextAttemptAt" = NULL, "updatedAt" = v_now
      WHERE "id" = v_id;
    END IF;
  END IF;
  RETURN jsonb_build_object('created', v_created) || bridge_conversion_json(v_id);
END;
$$;

-- Settles a conversion: applies p_legs (the hold's post or void; NULL: none) and writes p_change
-- (status, attempts, lastError, nextAttemptAt, partnerReference, completedAt: the keys present)
-- while the row is still pending (a concurrent settle that came first wins). Answers the row as it is
-- after, and the coin wallet.
CREATE OR REPLACE FUNCTION bridge_settle(p_id TEXT, p_legs JSONB, p_change JSONB)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  v_now TIMESTAMP(3) := timezone('UTC', now());
BEGIN
  IF p_legs IS NOT NULL THEN
    PERFORM ledger_apply(p_legs);
  END IF;
  UPDATE "BridgeConversion" SET
    "status" = CASE WHEN p_change ? 'status' THEN (p_change ->> 'status')::"BridgeConversionStatus" ELSE "status" END,
    "attempts" = CASE WHEN p_change ? 'attempts' THEN (p_change ->> 'attempts')::INTEGER ELSE "attempts" END,
    "lastError" = CASE WHEN p_change ? 'lastError' THEN p_change ->> 'lastError' ELSE "lastError" END,
    "nextAttemptAt" = CASE WHEN p_change ? 'nextAttemptAt' THEN (p_change ->> 'nextAttemptAt')::TIMESTAMP(3) ELSE "nextAttemptAt" END,
    "partnerReference" = CASE WHEN p_change ? 'partnerReference' THEN p_change ->> 'partnerReference' ELSE "partnerReference" END,
    "completedAt" = CASE WHEN p_change ? 'completedAt' THEN (p_change ->> 'completedAt')::TIMESTAMP(3) ELSE "completedAt" END,
    "updatedAt" = v_now
  WHERE "id" = p_id AND "status" = 'pending';
  RETURN bridge_conversion_json(p_id);
END;
$$;
