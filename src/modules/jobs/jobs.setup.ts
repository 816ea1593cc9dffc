// Builds the jobs module's services, with the queue that runs them (Redis when configured), and
// adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { BullMqQueue } from '../../platform/queue/bullmq-queue.js';
import { InProcessQueue } from '../../platform/queue/in-process-queue.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { JobFilesService } from './job-files.service.js';
import { JobRunner } from './job-runner.js';
import type { JobsConfig } from './jobs.settings.js';
import { JobsService } from './jobs.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    jobs: JobsService;
    jobRunner: JobRunner;
    jobFiles: JobFilesService;
    queue: JobQueue;
  }
}

export interface JobsSetup extends Pick<Services, 'db' | 'events' | 'blobs' | 'logger'> {
  settings: JobsConfig;
  /** The Redis queue's server and namespace; the in-process queue without. */
  redis?: { url: string; prefix: string };
}

export function setupJobs({ db, events, blobs, logger, settings, redis }: JobsSetup): Pick<Services, 'jobs' | 'jobRunner' | 'jobFiles' | 'queue'> {
  const jobs = new JobsService(db, events, blobs, logger);
  const jobRunner = new JobRunner(jobs, logger, settings.leaseMs);
  const claimAndRun = (jobId?: number) => jobRunner.claimAndRun(jobId);
  const queue: JobQueue = redis
    ? new BullMqQueue(redis.url, claimAndRun, logger, { concurrency: settings.concurrency, prefix: redis.prefix })
    : new InProcessQueue(claimAndRun, logger, { concurrency: settings.concurrency, pollMs: settings.pollMs });
  return { jobs, jobRunner, jobFiles: new JobFilesService(db, blobs), queue };
}
