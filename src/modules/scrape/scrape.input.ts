// POST /api/scrape input (spec "Scraping"), validated once at the edge and stored on the job.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { absoluteHttpUrl } from '../../platform/validation.js';

const bool = z.boolean({ error: 'expected true or false (or 1 or 0)' });

export const MAX_FILES_LIMIT = 10_000;

export const scrapeInputSchema = z.object({
  url: absoluteHttpUrl('url is required: the page to scrape', { nonEmpty: true }),
  sniper_mode: bool.default(true).describe('true (default): this page only; false: follow same-site links'),
  max_files: z.number({ error: 'expected an integer' }).int('expected an integer').min(1, 'expected at least 1').max(MAX_FILES_LIMIT, `expected at most ${MAX_FILES_LIMIT}`).default(100).describe('default 100'),
  min_size_kb: z.number({ error: 'expected a number of kilobytes' }).min(0, 'expected 0 or more').max(1_000_000, 'expected at most 1000000').default(0),
  keyword_filter: z.string({ error: 'expected a string' }).trim().max(200, 'expected at most 200 characters').optional(),
  download_videos: bool.default(false),
  download_docs: bool.default(false),
  ai_labeling: bool.default(false),
  crawl_depth: z.number({ error: 'expected an integer from 0 to 2' }).int('expected an integer from 0 to 2').min(0, 'expected an integer from 0 to 2').max(2, 'expected an integer from 0 to 2').default(1).describe('0 to 2; crawl mode only (default 1)'),
  force: bool.default(false).describe('bypass the cache of recent identical scrapes'),
  // No default: left out, the operator's RENDER_AUTO may still render a page; false never does.
  render: bool.optional().describe('load each page in headless Chromium and take the images its scripts add (lazy loading, infinite scroll, galleries built from JSON); slower. 503 when Chromium is not installed. Left out: false, unless the operator turned RENDER_AUTO on'),
}).describe('Options of POST /api/scrape (same names, same defaults)');

export type ScrapeInput = z.output<typeof scrapeInputSchema>;

/** What decides the result: two requests with the same key may share one scrape (force aside). */
export function scrapeCacheKey(input: ScrapeInput): string {
  const { force: _force, ...rest } = input;
  const normalised = { ...rest, url: new URL(input.url).href, keyword_filter: rest.keyword_filter?.toLowerCase() || null, crawl_depth: input.sniper_mode ? 0 : input.crawl_depth };
  return createHash('sha256').update(JSON.stringify(normalised)).digest('hex');
}
