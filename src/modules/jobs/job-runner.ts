// Runs one claimed job with its kind's handler: keeps the lease alive while it works, throttles
// progress writes, and records the outcome. A handler that loses its lease is aborted, so a job
// never runs in two places at once.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../platform/logger.js';
import { AppError } from '../../platform/errors.js';
import type { Job, JobProgress, JobsService } from './jobs.service.js';

export interface JobContext {
  signal: AbortSignal;
  /** Absolute counts; written at most every PROGRESS_INTERVAL_MS (the last one always). */
  progress(progress: JobProgress): void;
}

export type JobHandler = (job: Job, context: JobContext) => Promise<JobProgress | void>;

const PROGRESS_INTERVAL_MS = 250;

export class JobRunner {
  /** Identifies this process in job leases. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly handlers = new Map<string, JobHandler>();

  constructor(
    private readonly jobs: JobsService,
    private readonly logger: Logger,
    readonly leaseMs: number,
  ) {}

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Claims the job (or the oldest queued one) and runs it; false when there was nothing to claim. */
  async claimAndRun(jobId?: number): Promise<boolean> {
    const job = await this.jobs.claim(this.owner, this.leaseMs, jobId);
    if (!job) return false;
    await this.run(job);
    return true;
  }

  private async run(job: Job): Promise<void> {
    const handler = this.handlers.get(job.kind);
    if (!handler) {
      await this.jobs.fail(job.id, this.owner, `no handler for jobs of kind ${job.kind}`);
      return;
    }
    const abort = new AbortController();
    const heartbeat = setInterval(() => {
      this.jobs.renewLease(job.id, this.owner, this.leaseMs).then(
        (kept) => {
          if (!kept) abort.abort(new Error('lease lost'));
        },
        (error: unknown) => this.logger.warn({ err: error, jobId: job.id }, 'renewing a job lease failed'),
      );
    }, Math.max(50, Math.floor(this.leaseMs / 3)));

    let latest: JobProgress = {};
    let written = 0;
    let pending: Promise<void> = Promise.resolve();
    const flush = () => {
      const snapshot = latest;
      written = Date.now();
      pending = pending.then(() => this.jobs.progress(job.id, this.owner, snapshot)).catch((error: unknown) => this.logger.warn({ err: error, jobId: job.id }, 'writing job progress failed'));
    };
    const context: JobContext = {
      signal: abort.signal,
      progress: (progress) => {
        latest = { ...latest, ...progress };
        if (Date.now() - written >= PROGRESS_INTERVAL_MS) flush();
      },
    };

    try {
      const final = await handler(job, context);
      await pending;
      if (abort.signal.aborted) return; // someone else owns it now
      await this.jobs.complete(job.id, this.owner, { ...latest, ...(final ?? {}) });
    } catch (error) {
      await pending;
      if (abort.signal.aborted) return;
      const message = error instanceof AppError ? error.message : 'the job failed unexpectedly; see the service log';
      if (!(error instanceof AppError)) this.logger.error({ err: error, jobId: job.id }, 'job failed');
      await this.jobs.fail(job.id, this.owner, message);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
