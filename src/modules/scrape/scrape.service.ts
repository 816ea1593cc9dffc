// POST /api/scrape: validates the options, records a queued job and hands it to the queue.
import type { Actor } from '../accounts/actor.js';
import type { JobsService, Job } from '../jobs/jobs.service.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { parseInput } from '../../platform/validation.js';
import { InvalidInput } from '../../platform/errors.js';
import { scrapeCacheKey, scrapeInputSchema } from './scrape.input.js';

export const SCRAPE_JOB_KIND = 'scrape';
export const AI_LABELING_UNAVAILABLE = 'ai_labeling: image labelling is not available on this server yet; send false or leave it out';

export class ScrapeService {
  constructor(
    private readonly jobs: JobsService,
    private readonly queue: JobQueue,
  ) {}

  async start(actor: Actor, input: Record<string, unknown>): Promise<Job> {
    const options = parseInput(scrapeInputSchema, input);
    // Labels come from the vision module, which this server does not have yet: refusing is honest,
    // silently storing unlabelled files would not be.
    if (options.ai_labeling) throw new InvalidInput(AI_LABELING_UNAVAILABLE, 'ai_labeling');
    const job = await this.jobs.create(actor, SCRAPE_JOB_KIND, options, scrapeCacheKey(options));
    await this.queue.enqueue(job.id);
    return job;
  }
}
