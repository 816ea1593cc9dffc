// What configuration says about the image wiki (src/config.ts reads it): votes that verify or reject
// a photo, and the price of a paid query in API credits. A leaf file (zod only).
import { z } from 'zod';

export interface WikiSettings {
  confirmations: number;
  rejections: number;
  /** API credits one paid query costs. */
  queryCredits: number;
}

/** The WIKI_* variables, spread into the configuration's schema. */
export const wikiEnvShape = {
  WIKI_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).default(3).describe('confirmations from distinct accounts that verify a wiki photo (1 to 100) ([Wiki](rest-api.md#wiki))'),
  WIKI_REJECTIONS: z.coerce.number().int().min(1).max(100).default(3).describe('rejections that reject a wiki photo (1 to 100)'),
  WIKI_QUERY_CREDITS: z.coerce.number().min(0).max(1000).default(1).describe('API credits one paid wiki query costs (0 to 1000; 0 makes it free)'),
};

type WikiEnv = z.output<z.ZodObject<typeof wikiEnvShape>>;

export function wikiConfigFrom(e: WikiEnv): WikiSettings {
  return { confirmations: e.WIKI_CONFIRMATIONS, rejections: e.WIKI_REJECTIONS, queryCredits: e.WIKI_QUERY_CREDITS };
}
