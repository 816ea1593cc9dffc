-- Hand-written (Prisma's schema language has no triggers).
-- A version per account and domain of data, raised in the same transaction as every change of that
-- data, whatever code (or operator's SQL) makes it: the REST shim keeps answers of its list routes
-- and serves one again only while its domain's version is the one the request read. The request
-- reads the versions in its admission statement (admit_requests), so checking costs no round trip.
--   keys:  the account's API keys, and the usage counters of its sub-keys (listed with them);
--   media: the account's media library items.
-- No foreign key: rows of a deleted account are harmless, and the triggers fire while an account's
-- rows are deleted by cascade, when a reference to it could no longer be checked.
CREATE TABLE "DataVersion" (
    "accountId" INTEGER NOT NULL,
    "domain" TEXT NOT NULL,
    "version" BIGINT NOT NULL,

    CONSTRAINT "DataVersion_pkey" PRIMARY KEY ("accountId", "domain")
);

CREATE OR REPLACE FUNCTION raise_data_version(p_account_id INTEGER, p_domain TEXT) RETURNS VOID
LANGUAGE sql AS $$
  INSERT INTO "DataVersion" ("accountId", "domain", "version") VALUES (p_account_id, p_domain, 1)
  ON CONFLICT ("accountId", "domain") DO UPDATE SET "version" = "DataVersion"."version" + 1;
$$;

-- For tables with an "accountId": raises that account's version of the domain named by the
-- trigger's argument (both accounts' when a row moves).
CREATE OR REPLACE FUNCTION account_data_changed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM raise_data_version(OLD."accountId", TG_ARGV[0]);
  END IF;
  IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW."accountId" <> OLD."accountId") THEN
    PERFORM raise_data_version(NEW."accountId", TG_ARGV[0]);
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "ApiKey_data_version" AFTER INSERT OR UPDATE OR DELETE ON "ApiKey"
FOR EACH ROW EXECUTE FUNCTION account_data_changed('keys');

CREATE TRIGGER "MediaItem_data_version" AFTER INSERT OR UPDATE OR DELETE ON "MediaItem"
FOR EACH ROW EXECUTE FUNCTION account_data_changed('media');

-- Sub-key counters are named key:<id> (src/modules/quota/quota.service.ts).
CREATE OR REPLACE FUNCTION sub_key_usage_changed() RETURNS TRIGGER
LANGUAGE plpgsql AS $$
DECLARE
  counter TEXT := CASE WHEN TG_OP = 'DELETE' THEN OLD."key" ELSE NEW."key" END;
BEGIN
  PERFORM raise_data_version(key."accountId", 'keys') FROM "ApiKey" key WHERE key.id = substr(counter, 5)::INTEGER;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "UsageCounter_sub_key_data_version" AFTER INSERT OR UPDATE ON "UsageCounter"
FOR EACH ROW WHEN (NEW."key" LIKE 'key:%') EXECUTE FUNCTION sub_key_usage_changed();
CREATE TRIGGER "UsageCounter_sub_key_data_version_gone" AFTER DELETE ON "UsageCounter"
FOR EACH ROW WHEN (OLD."key" LIKE 'key:%') EXECUTE FUNCTION sub_key_usage_changed();
