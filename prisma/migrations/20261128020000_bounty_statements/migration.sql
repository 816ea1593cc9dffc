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
