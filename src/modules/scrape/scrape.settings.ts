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
  SCRAPE_MAX_PAGE_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024).describe('largest page read'),
  SCRAPE_MAX_ASSET_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024).describe('largest asset downloaded (larger ones are skipped)'),
  SCRAPE_MAX_PAGES: z.coerce.number().int().positive().default(200).describe('most page requests one crawl makes, each redirect hop counting as one'),
  SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4).describe('requests in flight to one host'),
  SCRAPE_HOST_DELAY_MS: z.coerce.number().int().min(0).default(100).describe('least time between two request starts on one host (robots.txt `Crawl-delay` raises it, up to 10 s)'),
  SCRAPE_CACHE_SECONDS: z.coerce.number().int().min(0).default(3600).describe('a repeat of a completed scrape (same account, URL and options) within this time answers from it; `force: true` bypasses'),
  SCRAPE_RESPECT_ROBOTS: boolish.default(true).describe('honour robots.txt'),
  SCRAPE_ISOLATION: z.enum(['process', 'inline'], { error: 'SCRAPE_ISOLATION must be process or inline' }).default('process').describe("`process`: each crawl runs in a crawl process of its own, forked by the process that runs the job; `inline`: in the job's process"),
  SCRAPE_PROCESS_MAX_HEAP_MB: z.coerce.number().int().min(64).default(1024).describe('V8 heap limit of a crawl process; a crawl that needs more fails its job, nothing else'),
  SCRAPE_PROCESS_IDLE_MS: z.coerce.number().int().min(0).default(30_000).describe('how long a crawl process waits for the next crawl before it exits'),
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
