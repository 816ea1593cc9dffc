-- A bounty claim in one statement (issue 22): before, an interactive transaction of about nine
-- statements held the bounty's row lock across round trips through the event loop, and the
-- balance was read after it. bounty_claim() locks the bounty, then holds the upload (tagging takes
-- it FOR UPDATE, so its tags cannot change under the check), checks the subject with the
-- community's own rule (p_check: its SQL, with $1 the item and $2 the subject's keys; EXECUTE gives
-- it a snapshot taken after the lock), records the claim, advances the bounty and applies p_legs
-- (ledger_apply: the slot's post and the payment; '{slot}' in them is the slot claimed).
-- A refusal writes nothing and answers why ({"refused": missing | own | closed | not_shown |
-- claimed}, with the bounty and the check where the answer names them); a claim answers the bounty
-- after it and ledger_apply's answer (the claimant's wallet after this claim).
CREATE OR REPLACE FUNCTION bounty_claim(p_bounty INTEGER, p_item INTEGER, p_account INTEGER, p_check TEXT, p_keys TEXT[], p_legs TEXT)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  v_now TIMESTAMP(3) := timezone('UTC', now());
  b "Bounty"%ROWTYPE;
  v_check JSONB;
  v_slot INTEGER;
BEGIN
  SELECT * INTO b FROM "Bounty" WHERE "id" = p_bounty FOR UPDATE;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', 'missing');
  END IF;
  IF b."accountId" = p_account THEN
    RETURN jsonb_build_object('refused', 'own');
  END IF;
  IF b."status" <> 'open' OR b."expiresAt" <= v_now THEN
    RETURN jsonb_build_object('refused', 'closed', 'bounty', to_jsonb(b));
  END IF;
  PERFORM 1 FROM "CommunityItem" WHERE "id" = p_item FOR SHARE;
  EXECUTE 'SELECT to_jsonb(x) FROM (' || p_check || ') x' INTO v_check USING p_item, p_keys;
  IF v_check IS NULL OR NOT ((v_check ->> 'by_tag')::BOOLEAN OR (v_check ->> 'by_wiki')::BOOLEAN) THEN
    RETURN jsonb_build_object('refused', 'not_shown', 'bounty', to_jsonb(b), 'check', v_check);
  END IF;
  v_slot := b."photosClaimed";
  -- Each upload claims once: a concurrent claim with the same upload waits on this insert, then finds it.
  INSERT INTO "BountyClaim" ("bountyId", "slot", "itemId", "accountId", "createdAt")
  VALUES (p_bounty, v_slot, p_item, p_account, v_now)
  ON CONFLICT ("itemId") DO NOTHING;
  IF NOT FOUND THEN
    RETURN jsonb_build_object('refused', 'claimed');
  END IF;
  UPDATE "Bounty" SET
    "photosClaimed" = v_slot + 1,
    "status" = CASE WHEN v_slot + 1 >= "photosNeeded" THEN 'filled' ELSE "status" END,
    "closedAt" = CASE WHEN v_slot + 1 >= "photosNeeded" THEN v_now ELSE "closedAt" END
  WHERE "id" = p_bounty
  RETURNING * INTO b;
  RETURN jsonb_build_object('bounty', to_jsonb(b), 'applied', ledger_apply(replace(p_legs, '{slot}', v_slot::TEXT)::JSONB));
END;
$$;

-- A reward that pays nothing (replayed or capped) answers the account's wallet too (reward_wallet:
-- as ledger_apply() answers a changed one, zero before its first transfer), so the route shows the
-- balance without reading it after. Unchanged otherwise (prisma/migrations/*_ledger).
CREATE OR REPLACE FUNCTION reward_wallet(p_account INTEGER, p_currency TEXT)
RETURNS JSONB
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_array(jsonb_build_object('owner', p_account, 'currency', p_currency,
    'balance', coalesce((SELECT "creditsPosted" - "debitsPosted" FROM "LedgerAccount" WHERE "ownerId" = p_account AND "currency" = p_currency::"Currency"), 0),
    'reserved', coalesce((SELECT "debitsPending" FROM "LedgerAccount" WHERE "ownerId" = p_account AND "currency" = p_currency::"Currency"), 0)))
$$;

CREATE OR REPLACE FUNCTION reward_award(p_account INTEGER, p_action TEXT, p_cap INTEGER, p_leg JSONB, p_commission_ppm BIGINT)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  v_id TEXT := p_leg ->> 'id';
  v_day DATE := timezone('UTC', now())::DATE;
  v_count INTEGER;
  v_referrer INTEGER;
  v_commission BIGINT;
  v_legs JSONB := jsonb_build_array(p_leg);
BEGIN
  INSERT INTO "RewardDailyCount" ("accountId", "action", "day", "count") VALUES (p_account, p_action, v_day, 0)
  ON CONFLICT ("accountId", "action", "day") DO UPDATE SET "count" = "RewardDailyCount"."count"
  RETURNING "count" INTO v_count;
  IF EXISTS (SELECT 1 FROM "LedgerTransfer" WHERE "id" = v_id) THEN
    RETURN jsonb_build_object('status', 'replayed', 'count', v_count, 'wallets', reward_wallet(p_account, p_leg ->> 'currency'),
      'referrer', (SELECT a."ownerId" FROM "LedgerTransfer" t JOIN "LedgerAccount" a ON a."id" = t."creditAccountId" WHERE t."id" = v_id || ':referral'),
      'transfers', (SELECT jsonb_agg(ledger_transfer_json(t, true) ORDER BY t."seq") FROM "LedgerTransfer" t WHERE t."id" IN (v_id, v_id || ':referral')));
  END IF;
  IF p_cap IS NOT NULL AND v_count >= p_cap THEN
    RETURN jsonb_build_object('status', 'capped', 'count', v_count, 'wallets', reward_wallet(p_account, p_leg ->> 'currency'), 'transfers', '[]'::JSONB);
  END IF;
  UPDATE "RewardDailyCount" SET "count" = "count" + 1 WHERE "accountId" = p_account AND "action" = p_action AND "day" = v_day;
  SELECT "referredById" INTO v_referrer FROM "Account" WHERE "id" = p_account;
  v_commission := floor((p_leg ->> 'amount')::NUMERIC * p_commission_ppm / 1000000)::BIGINT;
  IF v_referrer IS NOT NULL AND v_commission > 0 THEN
    v_legs := v_legs || jsonb_build_object('op', 'transfer', 'id', v_id || ':referral', 'currency', p_leg ->> 'currency',
      'debit_system', 'rewards', 'credit_owner', v_referrer, 'amount', v_commission, 'action', 'referral_commission', 'reference', v_id);
  END IF;
  RETURN jsonb_build_object('status', 'paid', 'count', v_count + 1, 'referrer', CASE WHEN jsonb_array_length(v_legs) > 1 THEN v_referrer END) || ledger_apply(v_legs);
END;
$$;
