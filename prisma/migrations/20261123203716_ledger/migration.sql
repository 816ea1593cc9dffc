-- CreateEnum
CREATE TYPE "Currency" AS ENUM ('coins', 'credits');

-- CreateEnum
CREATE TYPE "LedgerSystemAccount" AS ENUM ('rewards', 'grants', 'fees', 'escrow', 'bridge');

-- CreateEnum
CREATE TYPE "TransferKind" AS ENUM ('single', 'pending', 'post', 'void');

-- DropForeignKey
ALTER TABLE "CreditEntry" DROP CONSTRAINT "CreditEntry_accountId_fkey";

-- AlterTable
ALTER TABLE "Account" ADD COLUMN     "referredById" INTEGER;

-- DropTable
DROP TABLE "CreditEntry";

-- CreateTable
CREATE TABLE "LedgerAccount" (
    "id" BIGSERIAL NOT NULL,
    "currency" "Currency" NOT NULL,
    "ownerId" INTEGER,
    "system" "LedgerSystemAccount",
    "debitsPending" BIGINT NOT NULL DEFAULT 0,
    "debitsPosted" BIGINT NOT NULL DEFAULT 0,
    "creditsPending" BIGINT NOT NULL DEFAULT 0,
    "creditsPosted" BIGINT NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LedgerAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LedgerTransfer" (
    "id" TEXT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "currency" "Currency" NOT NULL,
    "kind" "TransferKind" NOT NULL,
    "debitAccountId" BIGINT NOT NULL,
    "creditAccountId" BIGINT NOT NULL,
    "amount" BIGINT NOT NULL,
    "pendingId" TEXT,
    "open" BOOLEAN NOT NULL DEFAULT false,
    "expiresAt" TIMESTAMP(3),
    "action" TEXT NOT NULL,
    "reference" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LedgerTransfer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RewardDailyCount" (
    "accountId" INTEGER NOT NULL,
    "action" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RewardDailyCount_pkey" PRIMARY KEY ("accountId","action","day")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE UNIQUE INDEX "LedgerAccount_ownerId_currency_key" ON "LedgerAccount"("ownerId", "currency");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerAccount_system_currency_key" ON "LedgerAccount"("system", "currency");

-- CreateIndex
CREATE INDEX "LedgerTransfer_debitAccountId_seq_idx" ON "LedgerTransfer"("debitAccountId", "seq");

-- CreateIndex
CREATE INDEX "LedgerTransfer_creditAccountId_seq_idx" ON "LedgerTransfer"("creditAccountId", "seq");

-- AddForeignKey
ALTER TABLE "Account" ADD CONSTRAINT "Account_referredById_fkey" FOREIGN KEY ("referredById") REFERENCES "Account"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LedgerAccount" ADD CONSTRAINT "LedgerAccount_ownerId_fkey" FOREIGN KEY ("ownerId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Hand-written from here (Prisma's schema language has no CHECK constraints or functions).

-- A user wallet never goes below zero, whoever writes to it: its debits, posted and pending
-- (reserved), never exceed its posted credits. System accounts keep no totals in their row.
ALTER TABLE "LedgerAccount"
  ADD CONSTRAINT "LedgerAccount_owner_or_system" CHECK (("ownerId" IS NULL) <> ("system" IS NULL)),
  ADD CONSTRAINT "LedgerAccount_totals_not_negative" CHECK ("debitsPending" >= 0 AND "debitsPosted" >= 0 AND "creditsPending" >= 0 AND "creditsPosted" >= 0),
  ADD CONSTRAINT "LedgerAccount_wallet_not_negative" CHECK ("system" IS NOT NULL OR "debitsPosted" + "debitsPending" <= "creditsPosted");

ALTER TABLE "LedgerTransfer"
  ADD CONSTRAINT "LedgerTransfer_amount_positive" CHECK ("amount" > 0),
  ADD CONSTRAINT "LedgerTransfer_two_accounts" CHECK ("debitAccountId" <> "creditAccountId"),
  ADD CONSTRAINT "LedgerTransfer_resolves_pending" CHECK (("kind" IN ('post', 'void')) = ("pendingId" IS NOT NULL)),
  ADD CONSTRAINT "LedgerTransfer_open_if_pending" CHECK (NOT "open" OR "kind" = 'pending');

-- A pending transfer is resolved (posted or voided) at most once. Partial: most transfers have no
-- pendingId, and every index a transfer writes costs throughput.
CREATE UNIQUE INDEX "LedgerTransfer_pendingId_key" ON "LedgerTransfer" ("pendingId") WHERE "pendingId" IS NOT NULL;

-- The sweep of expired reservations reads only open pending transfers.
CREATE INDEX "LedgerTransfer_open_expiresAt_idx" ON "LedgerTransfer" ("expiresAt") WHERE "open";

-- Room on each page for wallets' new row versions: their totals change on every transfer, and with
-- free space (and no indexed column changed) PostgreSQL updates them in place (HOT), without
-- touching the indexes.
ALTER TABLE "LedgerAccount" SET (fillfactor = 70);

INSERT INTO "LedgerAccount" ("currency", "system")
SELECT c, s FROM unnest(enum_range(NULL::"Currency")) AS c, unnest(enum_range(NULL::"LedgerSystemAccount")) AS s;

-- The ledger account of a user (p_owner) or system account (p_system) in a currency; a user's
-- wallet is made on first use.
CREATE OR REPLACE FUNCTION ledger_account_id(p_owner INTEGER, p_system "LedgerSystemAccount", p_currency "Currency")
RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
  v_id BIGINT;
BEGIN
  IF p_system IS NOT NULL THEN
    SELECT "id" INTO v_id FROM "LedgerAccount" WHERE "system" = p_system AND "currency" = p_currency;
  ELSE
    SELECT "id" INTO v_id FROM "LedgerAccount" WHERE "ownerId" = p_owner AND "currency" = p_currency;
    IF v_id IS NULL THEN
      INSERT INTO "LedgerAccount" ("currency", "ownerId", "createdAt") VALUES (p_currency, p_owner, timezone('UTC', now()))
      ON CONFLICT ("ownerId", "currency") DO NOTHING
      RETURNING "id" INTO v_id;
      IF v_id IS NULL THEN
        -- Another transaction made it first.
        SELECT "id" INTO v_id FROM "LedgerAccount" WHERE "ownerId" = p_owner AND "currency" = p_currency;
      END IF;
    END IF;
  END IF;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'no ledger account for %', coalesce(p_system::TEXT, p_owner::TEXT) USING ERRCODE = 'LG003';
  END IF;
  RETURN v_id;
END;
$$;

-- A transfer as the ledger functions answer it (to_jsonb: the column names).
CREATE OR REPLACE FUNCTION ledger_transfer_json(t "LedgerTransfer", p_replayed BOOLEAN)
RETURNS JSONB
LANGUAGE sql IMMUTABLE AS $$
  SELECT to_jsonb(t) || jsonb_build_object('replayed', p_replayed)
$$;

-- Applies a batch of transfers (JSON array) all or nothing, in one statement. Each element:
--   {"op": "transfer", "id", "currency", "debit_owner" | "debit_system", "credit_owner" | "credit_system",
--    "amount" (minor units), "pending" (bool), "expires_at", "action", "reference"}
--   {"op": "post" | "void", "id": <the pending transfer's id>}
-- A transfer id that exists already with the same fields is a replay: nothing moves and the first
-- result is returned. Wallet totals change once per wallet, after every leg is written, in wallet id
-- order (two batches never wait on each other crosswise). Each change is guarded so that a refusal
-- names the wallet; the CHECK on "LedgerAccount" is what makes it impossible whatever writes.
-- Errors (SQLSTATE): LG001 insufficient funds (DETAIL is JSON), LG002 id reused with other fields,
-- LG003 unknown pending transfer or system account, LG004 pending transfer resolved the other way.
-- System accounts' rows are never updated: with every reward debiting the rewards account, a
-- balance kept in its row would serialise all rewards on that one row lock. Their balance is the
-- sum of their transfers (see LedgerService.systemBalance).
CREATE OR REPLACE FUNCTION ledger_apply(p_legs JSONB)
RETURNS JSONB
LANGUAGE plpgsql AS $$
DECLARE
  leg RECORD;
  t "LedgerTransfer"%ROWTYPE;
  p "LedgerTransfer"%ROWTYPE;
  a "LedgerAccount"%ROWTYPE;
  v_debit BIGINT;
  v_credit BIGINT;
  v_debit_user BOOLEAN;
  v_credit_user BOOLEAN;
  v_kind "TransferKind";
  v_replayed BOOLEAN;
  v_amount BIGINT;
  v_now TIMESTAMP(3) := timezone('UTC', now());
  v_transfers JSONB := '[]'::JSONB;
  v_wallets JSONB := '[]'::JSONB;
  n INTEGER;
  k INTEGER;
  -- Changes to user wallets' four totals, one element per leg side: (wallet, debitsPending,
  -- debitsPosted, creditsPending, creditsPosted). System accounts are left out.
  c_id BIGINT[] := '{}';
  c_dp BIGINT[] := '{}';
  c_do BIGINT[] := '{}';
  c_cp BIGINT[] := '{}';
  c_co BIGINT[] := '{}';
BEGIN
  FOR leg IN
    SELECT * FROM jsonb_to_recordset(p_legs) AS x(
      op TEXT, id TEXT, currency "Currency", debit_owner INTEGER, debit_system "LedgerSystemAccount",
      credit_owner INTEGER, credit_system "LedgerSystemAccount", amount BIGINT, pending BOOLEAN,
      expires_at TIMESTAMP(3), action TEXT, reference TEXT)
  LOOP
    v_replayed := false;
    IF leg.op = 'transfer' THEN
      v_debit := ledger_account_id(leg.debit_owner, leg.debit_system, leg.currency);
      v_credit := ledger_account_id(leg.credit_owner, leg.credit_system, leg.currency);
      v_debit_user := leg.debit_system IS NULL;
      v_credit_user := leg.credit_system IS NULL;
      v_kind := CASE WHEN coalesce(leg.pending, false) THEN 'pending' ELSE 'single' END;
      INSERT INTO "LedgerTransfer" ("id", "currency", "kind", "debitAccountId", "creditAccountId", "amount", "open", "expiresAt", "action", "reference", "createdAt")
      VALUES (leg.id, leg.currency, v_kind, v_debit, v_credit, leg.amount, v_kind = 'pending', leg.expires_at, leg.action, leg.reference, v_now)
      ON CONFLICT ("id") DO NOTHING
      RETURNING * INTO t;
      IF NOT FOUND THEN
        SELECT * INTO t FROM "LedgerTransfer" WHERE "id" = leg.id;
        IF (t."currency", t."kind", t."debitAccountId", t."creditAccountId", t."amount", t."action", t."reference")
           IS DISTINCT FROM (leg.currency, v_kind, v_debit, v_credit, leg.amount, leg.action, leg.reference) THEN
          RAISE EXCEPTION 'transfer % exists already with other fields', leg.id USING ERRCODE = 'LG002';
        END IF;
        v_replayed := true;
      END IF;
    ELSIF leg.op IN ('post', 'void') THEN
      -- The row lock makes concurrent posts and voids of one pending transfer take turns.
      SELECT * INTO p FROM "LedgerTransfer" WHERE "id" = leg.id FOR UPDATE;
      IF NOT FOUND OR p."kind" <> 'pending' THEN
        RAISE EXCEPTION 'no pending transfer %', leg.id USING ERRCODE = 'LG003';
      END IF;
      v_debit := p."debitAccountId";
      v_credit := p."creditAccountId";
      IF p."open" THEN
        UPDATE "LedgerTransfer" SET "open" = false WHERE "id" = p."id";
        INSERT INTO "LedgerTransfer" ("id", "currency", "kind", "debitAccountId", "creditAccountId", "amount", "pendingId", "action", "reference", "createdAt")
        VALUES (p."id" || ':' || leg.op, p."currency", leg.op::"TransferKind", v_debit, v_credit, p."amount", p."id", p."action", p."reference", v_now)
        RETURNING * INTO t;
        SELECT "system" IS NULL INTO v_debit_user FROM "LedgerAccount" WHERE "id" = v_debit;
        SELECT "system" IS NULL INTO v_credit_user FROM "LedgerAccount" WHERE "id" = v_credit;
      ELSE
        SELECT * INTO t FROM "LedgerTransfer" WHERE "pendingId" = p."id";
        IF t."kind"::TEXT <> leg.op THEN
          RAISE EXCEPTION 'pending transfer % was %ed already', leg.id, CASE WHEN t."kind" = 'post' THEN 'post' ELSE 'void' END USING ERRCODE = 'LG004';
        END IF;
        v_replayed := true;
      END IF;
    ELSE
      RAISE EXCEPTION 'unknown ledger operation %', leg.op USING ERRCODE = '22023';
    END IF;
    IF NOT v_replayed THEN
      v_amount := t."amount";
      -- debit side: (debitsPending, debitsPosted); credit side: (creditsPending, creditsPosted)
      IF v_debit_user THEN
        c_id := c_id || v_debit;
        c_dp := c_dp || CASE t."kind" WHEN 'pending' THEN v_amount WHEN 'single' THEN 0 ELSE -v_amount END;
        c_do := c_do || CASE t."kind" WHEN 'single' THEN v_amount WHEN 'post' THEN v_amount ELSE 0 END;
        c_cp := c_cp || 0::BIGINT;
        c_co := c_co || 0::BIGINT;
      END IF;
      IF v_credit_user THEN
        c_id := c_id || v_credit;
        c_dp := c_dp || 0::BIGINT;
        c_do := c_do || 0::BIGINT;
        c_cp := c_cp || CASE t."kind" WHEN 'pending' THEN v_amount WHEN 'single' THEN 0 ELSE -v_amount END;
        c_co := c_co || CASE t."kind" WHEN 'single' THEN v_amount WHEN 'post' THEN v_amount ELSE 0 END;
      END IF;
    END IF;
    v_transfers := v_transfers || (to_jsonb(t) || jsonb_build_object('replayed', v_replayed));
  END LOOP;

  -- One wallet change per wallet, in id order. A single transfer touches at most two wallets:
  -- ordered by hand (no query); a batch is summed per wallet and ordered in SQL.
  n := coalesce(array_length(c_id, 1), 0);
  IF n = 2 AND c_id[1] > c_id[2] THEN
    c_id := ARRAY[c_id[2], c_id[1]];
    c_dp := ARRAY[c_dp[2], c_dp[1]];
    c_do := ARRAY[c_do[2], c_do[1]];
    c_cp := ARRAY[c_cp[2], c_cp[1]];
    c_co := ARRAY[c_co[2], c_co[1]];
  ELSIF n > 2 OR (n = 2 AND c_id[1] = c_id[2]) THEN
    SELECT array_agg(g.id ORDER BY g.id), array_agg(g.dp ORDER BY g.id), array_agg(g.dpo ORDER BY g.id), array_agg(g.cp ORDER BY g.id), array_agg(g.cpo ORDER BY g.id)
    INTO c_id, c_dp, c_do, c_cp, c_co
    FROM (SELECT c.id, sum(c.dp)::BIGINT AS dp, sum(c.dpo)::BIGINT AS dpo, sum(c.cp)::BIGINT AS cp, sum(c.cpo)::BIGINT AS cpo
          FROM unnest(c_id, c_dp, c_do, c_cp, c_co) AS c(id, dp, dpo, cp, cpo) GROUP BY c.id) AS g;
    n := array_length(c_id, 1);
  END IF;
  FOR k IN 1 .. n LOOP
    UPDATE "LedgerAccount"
    SET "debitsPending" = "debitsPending" + c_dp[k], "debitsPosted" = "debitsPosted" + c_do[k],
        "creditsPending" = "creditsPending" + c_cp[k], "creditsPosted" = "creditsPosted" + c_co[k]
    WHERE "id" = c_id[k] AND ("creditsPosted" + c_co[k]) - ("debitsPosted" + c_do[k]) - ("debitsPending" + c_dp[k]) >= 0
    RETURNING * INTO a;
    IF NOT FOUND THEN
      SELECT * INTO a FROM "LedgerAccount" WHERE "id" = c_id[k];
      RAISE EXCEPTION 'insufficient funds' USING ERRCODE = 'LG001', DETAIL = jsonb_build_object(
        'owner', a."ownerId", 'currency', a."currency",
        'available', a."creditsPosted" - a."debitsPosted" - a."debitsPending",
        'needed', c_dp[k] + c_do[k] - c_co[k])::TEXT;
    END IF;
    v_wallets := v_wallets || jsonb_build_object('owner', a."ownerId", 'currency', a."currency",
      'balance', a."creditsPosted" - a."debitsPosted", 'reserved', a."debitsPending");
  END LOOP;
  RETURN jsonb_build_object('transfers', v_transfers, 'wallets', v_wallets);
END;
$$;

-- A reward: one transfer from the rewards account (p_leg, as ledger_apply takes it), plus the
-- referral commission when the account was referred: p_commission_ppm millionths of the reward
-- (rounded down), from rewards to the referrer, linked (both commit or neither). Paid only while the
-- account's count of paid awards of the action today (UTC) is under p_cap (NULL: no cap); over it,
-- nothing is paid ({"status": "capped"}). Awards of one account, action and day take turns on their
-- counter row until they commit, so concurrent awards never pass the cap, and an identical award
-- that committed while this one waited is found after the wait: a replay answers the transfers
-- written the first time (rates may have changed since; the first payment stands).
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
    RETURN jsonb_build_object('status', 'replayed', 'count', v_count, 'wallets', '[]'::JSONB,
      'referrer', (SELECT a."ownerId" FROM "LedgerTransfer" t JOIN "LedgerAccount" a ON a."id" = t."creditAccountId" WHERE t."id" = v_id || ':referral'),
      'transfers', (SELECT jsonb_agg(ledger_transfer_json(t, true) ORDER BY t."seq") FROM "LedgerTransfer" t WHERE t."id" IN (v_id, v_id || ':referral')));
  END IF;
  IF p_cap IS NOT NULL AND v_count >= p_cap THEN
    RETURN jsonb_build_object('status', 'capped', 'count', v_count, 'wallets', '[]'::JSONB, 'transfers', '[]'::JSONB);
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
