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
  WIKI_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).default(3),
  WIKI_REJECTIONS: z.coerce.number().int().min(1).max(100).default(3),
  WIKI_QUERY_CREDITS: z.coerce.number().min(0).max(1000).default(1),
};

type WikiEnv = z.output<z.ZodObject<typeof wikiEnvShape>>;

export function wikiConfigFrom(e: WikiEnv): WikiSettings {
  return { confirmations: e.WIKI_CONFIRMATIONS, rejections: e.WIKI_REJECTIONS, queryCredits: e.WIKI_QUERY_CREDITS };
}
