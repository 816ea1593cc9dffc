-- Webhook signing secrets are sealed at rest (AES-256-GCM under the service's credential key, as
-- export credentials are). The key lives in the application, so the rows written in plain text
-- before this migration are sealed by the application at start (WebhooksService.sealPlaintextSecrets,
-- idempotent: it moves each remaining "secret" into "sealedSecret" and clears it).
ALTER TABLE "Webhook" ADD COLUMN "sealedSecret" TEXT;
