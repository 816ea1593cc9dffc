// What configuration says about sub-keys (src/config.ts reads it). A leaf file (zod only).
import { z } from 'zod';

/** SUB_KEYS_PER_ACCOUNT, spread into the configuration's schema. */
export const apiKeysEnvShape = {
  SUB_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
};
