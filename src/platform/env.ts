// Building blocks of the environment schemas: src/config.ts and the modules' *.settings.ts files
// spell booleans and optional secrets the same way.
import { z } from 'zod';

/** true, false, 1, 0, yes or no. */
export const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A key that may be set empty (VAR=) to mean unset. */
export const optionalSecret = z
  .string()
  .optional()
  .transform((v) => v?.trim() || undefined);
