// Settings of the bulk mirror (docs/rest-api.md "Bulk mirror"): how many URLs one request may carry and how
// many are fetched at once, overall and per host. A leaf module (zod only): the configuration reads it.
import { z } from 'zod';

export const mirrorsEnvShape = {
  MIRROR_MAX_URLS: z.coerce.number().int().min(1).max(10_000).default(1_000).describe('most URLs one bulk mirror request may carry, counted as sent (1 to 10000; 400 beyond) ([Bulk mirror](rest-api.md#bulk-mirror))'),
  MIRROR_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8).describe('URLs of one bulk mirror job fetched at once (1 to 64)'),
  MIRROR_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2).describe('URLs of one bulk mirror job fetched at once from the same host (1 to 16)'),
};

export interface MirrorsConfig {
  /** URLs one bulk mirror request may carry, counted as sent (before de-duplication). */
  maxUrls: number;
  /** URLs of one job fetched at once. */
  concurrency: number;
  /** URLs of one job fetched at once from the same host. */
  hostConcurrency: number;
}

type MirrorsEnv = z.output<z.ZodObject<typeof mirrorsEnvShape>>;

export function mirrorsConfigFrom(e: MirrorsEnv): MirrorsConfig {
  return { maxUrls: e.MIRROR_MAX_URLS, concurrency: e.MIRROR_CONCURRENCY, hostConcurrency: e.MIRROR_HOST_CONCURRENCY };
}
