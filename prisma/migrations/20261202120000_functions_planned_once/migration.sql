-- Hand-written. SQL-language functions that cannot be inlined (a FROM in their body, or called from
-- PL/pgSQL) are planned again on every call before PostgreSQL 18, which keeps no plan across calls of
-- a SQL function; PL/pgSQL keeps its statements' plans for the session. bridge_conversion_json's
-- planning was half of a coin conversion's database CPU (0.77 ms of 1.55 ms a call, measured one call
-- after another on one connection), and raise_data_version runs in triggers on every change of a key,
-- a media item or a sub-key's usage counter. The same bodies, in PL/pgSQL.

CREATE OR REPLACE FUNCTION bridge_conversion_json(p_id TEXT)
RETURNS JSONB
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_answer JSONB;
BEGIN
  SELECT jsonb_build_object(
    'row', to_jsonb(c),
    'wallet', (SELECT jsonb_build_object('balance', a."creditsPosted" - a."debitsPosted", 'reserved', a."debitsPending")
               FROM "LedgerAccount" a WHERE a."ownerId" = c."accountId" AND a."currency" = 'coins'))
    INTO v_answer
    FROM "BridgeConversion" c WHERE c."id" = p_id;
  RETURN v_answer;
END;
$$;

CREATE OR REPLACE FUNCTION reward_wallet(p_account INTEGER, p_currency TEXT)
RETURNS JSONB
LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN jsonb_build_array(jsonb_build_object('owner', p_account, 'currency', p_currency,
    'balance', coalesce((SELECT "creditsPosted" - "debitsPosted" FROM "LedgerAccount" WHERE "ownerId" = p_account AND "currency" = p_currency::"Currency"), 0),
    'reserved', coalesce((SELECT "debitsPending" FROM "LedgerAccount" WHERE "ownerId" = p_account AND "currency" = p_currency::"Currency"), 0)));
END;
$$;

CREATE OR REPLACE FUNCTION raise_data_version(p_account_id INTEGER, p_domain TEXT) RETURNS VOID
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "DataVersion" ("accountId", "domain", "version") VALUES (p_account_id, p_domain, 1)
  ON CONFLICT ("accountId", "domain") DO UPDATE SET "version" = "DataVersion"."version" + 1;
END;
$$;
