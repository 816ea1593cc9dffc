// What configuration says about scraping (src/config.ts reads it): page and asset limits,
// politeness, the cache, and where crawls run. A leaf file (zod only).
import { z } from 'zod';
import { boolish } from '../../platform/env.js';

export interface ScrapeConfig {
  maxPageBytes: number;
  maxAssetBytes: number;
  maxPages: number;
  hostConcurrency: number;
  hostDelayMs: number;
  cacheSeconds: number;
  respectRobots: boolean;
  /** process: each crawl in a crawl process of its own (the default); inline: in the job's process. */
  isolation: 'process' | 'inline';
  /** V8 old-space limit of a crawl process, in MB. */
  processMaxHeapMb: number;
  /** How long an idle crawl process waits for the next crawl before it exits. */
  processIdleMs: number;
}

/** The SCRAPE_* variables (SCRAPE_USER_AGENT aside: every outgoing fetch sends it), spread into the configuration's schema. */
export const scrapeEnvShape = {
  SCRAPE_MAX_PAGE_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  SCRAPE_MAX_ASSET_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  SCRAPE_MAX_PAGES: z.coerce.number().int().positive().default(200),
  SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  SCRAPE_HOST_DELAY_MS: z.coerce.number().int().min(0).default(100),
  SCRAPE_CACHE_SECONDS: z.coerce.number().int().min(0).default(3600),
  SCRAPE_RESPECT_ROBOTS: boolish.default(true),
  SCRAPE_ISOLATION: z.enum(['process', 'inline'], { error: 'SCRAPE_ISOLATION must be process or inline' }).default('process'),
  SCRAPE_PROCESS_MAX_HEAP_MB: z.coerce.number().int().min(64).default(1024),
  SCRAPE_PROCESS_IDLE_MS: z.coerce.number().int().min(0).default(30_000),
};

type ScrapeEnv = z.output<z.ZodObject<typeof scrapeEnvShape>>;

export function scrapeConfigFrom(e: ScrapeEnv): ScrapeConfig {
  return {
    maxPageBytes: e.SCRAPE_MAX_PAGE_BYTES,
    maxAssetBytes: e.SCRAPE_MAX_ASSET_BYTES,
    maxPages: e.SCRAPE_MAX_PAGES,
    hostConcurrency: e.SCRAPE_HOST_CONCURRENCY,
    hostDelayMs: e.SCRAPE_HOST_DELAY_MS,
    cacheSeconds: e.SCRAPE_CACHE_SECONDS,
    respectRobots: e.SCRAPE_RESPECT_ROBOTS,
    isolation: e.SCRAPE_ISOLATION,
    processMaxHeapMb: e.SCRAPE_PROCESS_MAX_HEAP_MB,
    processIdleMs: e.SCRAPE_PROCESS_IDLE_MS,
  };
}
