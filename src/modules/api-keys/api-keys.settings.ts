// What configuration says about sub-keys (src/config.ts reads it). A leaf file (zod only).
import { z } from 'zod';

/** SUB_KEYS_PER_ACCOUNT, spread into the configuration's schema. */
export const apiKeysEnvShape = {
  SUB_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(100).describe('most live (unrevoked, unexpired) sub-keys per account (409 beyond). This and the other caps (webhooks, schedules, unused Telegram link codes, items per stock list) hold under concurrent requests on every process: each capped create counts and inserts under a per-account transaction lock'),
};
