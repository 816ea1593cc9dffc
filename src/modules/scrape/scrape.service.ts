// POST /api/scrape: validates the options, records a queued job and hands it to the queue.
import type { Actor } from '../accounts/index.js';
import type { JobsService, Job } from '../jobs/index.js';
import type { Prisma } from '../../generated/prisma/client.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { parseInput } from '../../platform/validation.js';
import { InvalidInput } from '../../platform/errors.js';
import { scrapeCacheKey, scrapeInputSchema } from './scrape.input.js';

export const SCRAPE_JOB_KIND = 'scrape';

/** Why a URL cannot be fetched, judged without the network (SafeFetcher.refusal); null when it may be tried. */
export type UrlRefusal = (url: string) => string | null;

export class ScrapeService {
  constructor(
    private readonly jobs: JobsService,
    private readonly queue: JobQueue,
    private readonly urlRefusal: UrlRefusal,
    /** Throws (503, BrowserUnavailable) when pages cannot be rendered here: Chromium is missing. */
    private readonly renderCheck: () => void = () => {},
  ) {}

  /** render: true is the caller's 503 now when this server cannot render pages (Chromium is missing). */
  checkRender(): void {
    this.renderCheck();
  }

  /** A URL the crawler would refuse (a private address, a localhost name) is the caller's 400 now, not a failed job later. */
  checkUrl(url: string, field = 'url'): void {
    const refusal = this.urlRefusal(url);
    if (refusal) throw new InvalidInput(`${field}: refused: ${refusal}`, field);
  }

  async start(actor: Actor, input: Record<string, unknown>): Promise<Job> {
    const options = parseInput(scrapeInputSchema, input);
    this.checkUrl(options.url);
    if (options.render) this.checkRender();
    const job = await this.jobs.create(actor, SCRAPE_JOB_KIND, options, scrapeCacheKey(options));
    await this.jobs.enqueueOrWithdraw(this.queue, job);
    return job;
  }

  /**
   * Validates the options and writes the queued job inside the caller's transaction, so the job
   * exists exactly when the caller's other writes do; `dispatch` it after the commit.
   */
  async record(tx: Prisma.TransactionClient, actor: Actor, input: Record<string, unknown>): Promise<Job> {
    const options = parseInput(scrapeInputSchema, input);
    this.checkUrl(options.url);
    if (options.render) this.checkRender();
    return this.jobs.createIn(tx, actor, SCRAPE_JOB_KIND, options, scrapeCacheKey(options));
  }

  /**
   * Hands a recorded job to the workers. Should this fail, the row stays queued and still runs: the
   * in-process queue polls for queued rows, and BullMQ workers enqueue them when they start.
   */
  async dispatch(job: Job): Promise<void> {
    this.jobs.announce(job);
    await this.queue.enqueue(job.id);
  }
}
