// What configuration says about the unified search (src/config.ts reads it): its fourth tier, the
// external stock libraries, each on when its key is set (Openverse needs none). A leaf file (zod only).
import { z } from 'zod';
import { boolish, optionalSecret } from '../../platform/env.js';

export interface SearchConfig {
  /** Deadline of the stock libraries together; a late one is left out. */
  stockTimeoutMs: number;
  openverse?: { baseUrl: string };
  unsplash?: { accessKey: string; baseUrl: string };
  pexels?: { apiKey: string; baseUrl: string };
  pixabay?: { apiKey: string; baseUrl: string };
}

/** The SEARCH_* variables, spread into the configuration's schema. */
export const searchEnvShape = {
  SEARCH_STOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4_000),
  SEARCH_OPENVERSE_ENABLED: boolish.default(false),
  SEARCH_OPENVERSE_BASE_URL: z.string().url().default('https://api.openverse.org/v1'),
  SEARCH_UNSPLASH_ACCESS_KEY: optionalSecret,
  SEARCH_UNSPLASH_BASE_URL: z.string().url().default('https://api.unsplash.com'),
  SEARCH_PEXELS_API_KEY: optionalSecret,
  SEARCH_PEXELS_BASE_URL: z.string().url().default('https://api.pexels.com/v1'),
  SEARCH_PIXABAY_API_KEY: optionalSecret,
  SEARCH_PIXABAY_BASE_URL: z.string().url().default('https://pixabay.com/api'),
};

type SearchEnv = z.output<z.ZodObject<typeof searchEnvShape>>;

export function searchConfigFrom(e: SearchEnv): SearchConfig {
  return {
    stockTimeoutMs: e.SEARCH_STOCK_TIMEOUT_MS,
    openverse: e.SEARCH_OPENVERSE_ENABLED ? { baseUrl: e.SEARCH_OPENVERSE_BASE_URL } : undefined,
    unsplash: e.SEARCH_UNSPLASH_ACCESS_KEY ? { accessKey: e.SEARCH_UNSPLASH_ACCESS_KEY, baseUrl: e.SEARCH_UNSPLASH_BASE_URL } : undefined,
    pexels: e.SEARCH_PEXELS_API_KEY ? { apiKey: e.SEARCH_PEXELS_API_KEY, baseUrl: e.SEARCH_PEXELS_BASE_URL } : undefined,
    pixabay: e.SEARCH_PIXABAY_API_KEY ? { apiKey: e.SEARCH_PIXABAY_API_KEY, baseUrl: e.SEARCH_PIXABAY_BASE_URL } : undefined,
  };
}
