// POST /api/scrape: validates the options, records a queued job and hands it to the queue.
import type { Actor } from '../accounts/actor.js';
import type { JobsService, Job } from '../jobs/jobs.service.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { parseInput } from '../../platform/validation.js';
import { scrapeCacheKey, scrapeInputSchema } from './scrape.input.js';

export const SCRAPE_JOB_KIND = 'scrape';

export class ScrapeService {
  constructor(
    private readonly jobs: JobsService,
    private readonly queue: JobQueue,
  ) {}

  async start(actor: Actor, input: Record<string, unknown>): Promise<Job> {
    const options = parseInput(scrapeInputSchema, input);
    const job = await this.jobs.create(actor, SCRAPE_JOB_KIND, options, scrapeCacheKey(options));
    await this.queue.enqueue(job.id);
    return job;
  }
}
