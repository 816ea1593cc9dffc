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
  SEARCH_STOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4_000).describe("deadline of the unified search's stock libraries together (100 to 60000): a library that has not answered by then is left out and listed in `sources_failed` ([Unified image search](rest-api.md#unified-image-search))"),
  SEARCH_OPENVERSE_ENABLED: boolish.default(false).describe('turns Openverse on (it needs no key, and the service never calls the internet unasked)'),
  SEARCH_OPENVERSE_BASE_URL: z.string().url().default('https://api.openverse.org/v1').describe('base URL of the Openverse API (`GET /images/`)'),
  SEARCH_UNSPLASH_ACCESS_KEY: optionalSecret.describe("turns Unsplash on: the application's access key, sent as `Authorization: Client-ID ...`"),
  SEARCH_UNSPLASH_BASE_URL: z.string().url().default('https://api.unsplash.com').describe('base URL of the Unsplash API (`GET /search/photos`)'),
  SEARCH_PEXELS_API_KEY: optionalSecret.describe('turns Pexels on: the API key, sent as `Authorization`'),
  SEARCH_PEXELS_BASE_URL: z.string().url().default('https://api.pexels.com/v1').describe('base URL of the Pexels API (`GET /search`)'),
  SEARCH_PIXABAY_API_KEY: optionalSecret.describe("turns Pixabay on: the API key, sent as the `key` query parameter (Pixabay's way; never logged)"),
  SEARCH_PIXABAY_BASE_URL: z.string().url().default('https://pixabay.com/api').describe('base URL of the Pixabay API (`GET /`)'),
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
