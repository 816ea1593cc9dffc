// Builds the scrape module's services (crawls in crawl processes of their own, or inline), registers
// the scrape job kind, and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import type { RenderAuto } from '../render/index.js';
import { CrawlProcessPool } from './crawl-process-pool.js';
import type { CrawlProcessSettings } from './crawl-protocol.js';
import { createScrapeHandler, inlineCrawler, type Crawler } from './scrape.job.js';
import { SCRAPE_JOB_KIND, ScrapeService } from './scrape.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Where this process's scrape jobs crawl: crawl processes of their own, or inline. */
    crawler: Crawler;
    scrape: ScrapeService;
  }
}

export interface ScrapeSetup extends Pick<Services, 'db' | 'blobs' | 'logger' | 'fetcher' | 'jobs' | 'jobRunner' | 'queue' | 'renderer'> {
  settings: CrawlProcessSettings;
  /** RENDER_AUTO's rule. */
  renderAuto: RenderAuto;
  /** Configuration variables a crawl process does not inherit (it gets its settings over IPC). */
  withheldEnv: readonly string[];
  /** Labels of a stored image, when the scrape asks for them (paid by the account). */
  labeler: (image: Buffer, accountId: number) => Promise<string[]>;
}

export function setupScrape({ db, blobs, logger, fetcher, jobs, jobRunner, queue, renderer, settings, renderAuto, withheldEnv, labeler }: ScrapeSetup): Pick<Services, 'crawler' | 'scrape'> {
  const { scrape: limits } = settings;
  const scrape = new ScrapeService(jobs, queue, (url) => fetcher.refusal(url), () => renderer.assertAvailable());
  const inline = { fetcher, blobs, logger, scrape: limits, userAgent: settings.fetch.userAgent, maxRedirects: settings.fetch.maxRedirects };
  const crawler: Crawler =
    limits.isolation === 'process' ? new CrawlProcessPool({ settings, withheldEnv, maxHeapMb: limits.processMaxHeapMb, idleMs: limits.processIdleMs, logger }) : inlineCrawler(inline);
  // Rendered crawls run here, beside the process's one browser (itself a process of its own); so do
  // those RENDER_AUTO may render, as a page's need for the browser shows only once it is read.
  const renderCrawler = inlineCrawler({ ...inline, renderer, renderAuto });
  jobRunner.register(
    SCRAPE_JOB_KIND,
    createScrapeHandler({ db, blobs, crawler, renderCrawler, renderAuto: renderAuto.enabled, browserAvailable: () => renderer.available, logger, cacheSeconds: limits.cacheSeconds, labeler }),
  );
  return { crawler, scrape };
}
