// The scrape job's handler, run by the process that claimed the job: it answers from a recent
// identical job when it may, starts a rerun clean, then has a Crawler do the crawl while it records
// the files the crawl stores. The crawl itself runs in a crawl process of its own by default
// (crawl-process-pool.ts) or, with SCRAPE_ISOLATION=inline, right here (inlineCrawler).
import type { Database } from '../../platform/database/database.js';
import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import { jobFilesPrefix } from '../jobs/index.js';
import type { JobHandler } from '../jobs/index.js';
import type { Job, JobProgress } from '../jobs/index.js';
import type { CrawlDependencies, CrawlHooks } from './scrape.crawler.js';
import { scrapeInputSchema, type ScrapeInput } from './scrape.input.js';

/** Where crawls run. */
export interface Crawler {
  crawl(jobId: number, input: ScrapeInput, hooks: CrawlHooks): Promise<Required<JobProgress>>;
  /** Ends what the crawler holds (crawl processes); called once the job workers have stopped. */
  close(): Promise<void>;
}

/**
 * Crawls inside this process. The crawler (cheerio, robots parsing) loads with the first crawl: by
 * default crawls run in crawl processes, and a start need not pay for it.
 */
export function inlineCrawler(deps: CrawlDependencies): Crawler {
  return { crawl: async (jobId, input, hooks) => (await import('./scrape.crawler.js')).crawl(deps, jobId, input, hooks), close: async () => {} };
}

export interface ScrapeJobDependencies {
  db: Database;
  blobs: BlobStore;
  crawler: Crawler;
  /** Where crawls with `render: true` run (inline, with the process's browser), and those RENDER_AUTO may render. */
  renderCrawler: Crawler;
  /** RENDER_AUTO is on: a scrape that did not ask for `render` may have pages rendered. */
  renderAuto: boolean;
  /** Whether Chromium is there (RENDER_AUTO falls back to plain crawls without it). */
  browserAvailable: () => boolean;
  logger: Logger;
  /** How long a completed scrape answers identical ones (0: never). */
  cacheSeconds: number;
  /** Labels for an image (ai_labeling), from the vision module; the job's account pays as for any analysis. */
  labeler: (image: Buffer, accountId: number) => Promise<string[]>;
}

export function createScrapeHandler({ db, blobs, crawler, renderCrawler, renderAuto, browserAvailable, logger, cacheSeconds, labeler }: ScrapeJobDependencies): JobHandler {
  let saidNoBrowser = false;
  /** render: true renders; left out, RENDER_AUTO may, when Chromium is there (said once when it is not); false never. */
  const crawlerFor = (input: ScrapeInput): Crawler => {
    if (input.render) return renderCrawler;
    if (input.render === false || !renderAuto) return crawler;
    if (browserAvailable()) return renderCrawler;
    if (!saidNoBrowser) logger.warn('RENDER_AUTO is on but Chromium is not available (RENDER_CHROMIUM_PATH): scrapes read pages as served');
    saidNoBrowser = true;
    return crawler;
  };
  return async (job, context) => {
    const input = scrapeInputSchema.parse(job.input);
    if (!input.force) {
      const cached = await answerFromCache(db, job, cacheSeconds);
      if (cached) return cached;
    }
    // A job run again after a crash starts clean: the files and rows of the try that was cut short
    // go first (with the temp files its unfinished writes left), as a site may have changed since.
    if (job.attempts > 1) await blobs.deletePrefix(jobFilesPrefix(job.id));
    await db.prisma.asset.deleteMany({ where: { jobId: job.id } });
    return crawlerFor(input).crawl(job.id, input, {
      signal: context.signal,
      progress: (counts) => context.progress(counts),
      saveAssets: async (assets) => {
        await db.prisma.asset.createMany({ data: assets.map((asset) => ({ ...asset, jobId: job.id })) });
      },
      label: (image) => labeler(image, job.accountId),
    });
  };
}

/** A recent completed job of the same account with the same options answers this one. */
async function answerFromCache(db: Database, job: Job, cacheSeconds: number): Promise<JobProgress | null> {
  if (!job.cacheKey || cacheSeconds === 0) return null;
  const earlier = await db.prisma.job.findFirst({
    where: {
      accountId: job.accountId,
      cacheKey: job.cacheKey,
      state: 'completed',
      id: { not: job.id },
      finishedAt: { gte: new Date(Date.now() - cacheSeconds * 1000) },
    },
    orderBy: { id: 'desc' },
    include: { assets: { orderBy: { id: 'asc' } } },
  });
  if (!earlier) return null;
  await db.prisma.$transaction([
    db.prisma.asset.createMany({
      data: earlier.assets.map(({ id: _id, jobId: _jobId, createdAt: _createdAt, ...asset }) => ({ ...asset, jobId: job.id })),
    }),
    db.prisma.job.update({ where: { id: job.id }, data: { cachedFromJobId: earlier.id } }),
  ]);
  return { pagesFetched: 0, assetsFound: earlier.assetsFound, assetsStored: earlier.assets.length };
}
