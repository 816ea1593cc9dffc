// Job rows: creation, reads for their owner, and the worker side (claim with a lease, renew it,
// report progress, finish). Every state change is published for subscribers and webhooks. A job
// that fails keeps no files: its blobs and asset rows go as it becomes failed.
import type { Database } from '../../platform/database/database.js';
import type { EventBus } from '../../platform/events.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { Logger } from '../../platform/logger.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import type { Job, Prisma } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import { jobPolicy } from './jobs.access.js';

export type { Job };

/** Every state of a job, in its order; a job polled before it ends is in one of the first two. */
export const JOB_STATES = ['queued', 'processing', 'completed', 'failed'] as const;
export const RUNNING_JOB_STATES = ['queued', 'processing'] as const;

/** A job caught in processing by a crash runs once more; a second crash fails it. */
export const MAX_ATTEMPTS = 2;

export interface JobProgress {
  pagesFetched?: number;
  assetsFound?: number;
  assetsStored?: number;
}

/** Where a job's stored files live in the blob store (scrape writes `jobs/<id>/<filename>`). */
export function jobFilesPrefix(jobId: number): string {
  return `jobs/${jobId}/`;
}

export type JobFinishedListener = (job: Job, tx: Prisma.TransactionClient) => Promise<void>;

export class JobsService {
  private readonly finishedListeners: JobFinishedListener[] = [];

  constructor(
    private readonly db: Database,
    private readonly events: EventBus,
    private readonly blobs: BlobStore,
    private readonly logger: Logger,
  ) {}

  /** Called inside the transaction that finishes a job (webhooks queue their deliveries here). */
  onFinished(listener: JobFinishedListener): void {
    this.finishedListeners.push(listener);
  }

  async create(actor: Actor, kind: string, input: Prisma.InputJsonValue, cacheKey?: string): Promise<Job> {
    const job = await this.createIn(this.db.prisma, actor, kind, input, cacheKey);
    this.announce(job);
    return job;
  }

  /** A queued job row written inside the caller's transaction; `announce` it once that has committed. */
  async createIn(tx: Prisma.TransactionClient, actor: Actor, kind: string, input: Prisma.InputJsonValue, cacheKey?: string): Promise<Job> {
    return tx.job.create({ data: { accountId: actor.accountId, kind, input, cacheKey } });
  }

  /**
   * Takes back a job that could not be handed to the queue (Redis down): the row goes while it is
   * still queued, so the caller's refusal (503) is the whole story and a retry makes the only job.
   */
  async withdraw(jobId: number): Promise<void> {
    await this.db.prisma.job.deleteMany({ where: { id: jobId, state: 'queued' } });
  }

  /** Hands a job just written (and committed) to the queue, or withdraws it when the queue refuses. */
  async enqueueOrWithdraw(queue: Pick<JobQueue, 'enqueue'>, job: Job): Promise<void> {
    try {
      await queue.enqueue(job.id);
    } catch (error) {
      await this.withdraw(job.id);
      throw error;
    }
  }

  /** Tells subscribers a job now exists (after the transaction that wrote it has committed). */
  announce(job: Pick<Job, 'id' | 'state'>): void {
    this.publish(job);
  }

  /**
   * The caller's job; another account's is a 404, exactly like a missing one. `query` is the
   * selection GraphQL asks for (relations included).
   */
  async getOwned(actor: Actor | null, jobId: number, query: Pick<Prisma.JobFindFirstArgs, 'select' | 'include'> = {}): Promise<Job> {
    return jobPolicy.findOne(actor, jobId, (where) => this.db.prisma.job.findFirst({ ...query, where }) as Promise<Job | null>);
  }

  async get(jobId: number): Promise<Job | null> {
    return this.db.prisma.job.findUnique({ where: { id: jobId } });
  }

  /** Claims one queued job (this one, or the oldest when no id is given) for `owner` until the lease ends. */
  async claim(owner: string, leaseMs: number, jobId?: number): Promise<Job | null> {
    const rows = await this.db.query<{ id: number }>(
      `UPDATE "Job" SET state = 'processing', attempts = attempts + 1, "leaseOwner" = $1,
              "leaseExpiresAt" = now() + ($2::int * interval '1 millisecond'), "startedAt" = coalesce("startedAt", now()), "updatedAt" = now()
       WHERE id = (SELECT id FROM "Job" WHERE state = 'queued' ${jobId === undefined ? '' : 'AND id = $3'}
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      jobId === undefined ? [owner, leaseMs] : [owner, leaseMs, jobId],
    );
    if (rows.length === 0) return null;
    const job = await this.db.prisma.job.findUniqueOrThrow({ where: { id: rows[0]!.id } });
    this.publish(job);
    return job;
  }

  /** False when the lease was lost (the job was taken back): the worker must stop. */
  async renewLease(jobId: number, owner: string, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE "Job" SET "leaseExpiresAt" = now() + ($3::int * interval '1 millisecond')
       WHERE id = $1 AND "leaseOwner" = $2 AND state = 'processing' RETURNING id`,
      [jobId, owner, leaseMs],
    );
    return rows.length > 0;
  }

  async progress(jobId: number, owner: string, progress: JobProgress): Promise<void> {
    const { count } = await this.db.prisma.job.updateMany({ where: { id: jobId, leaseOwner: owner, state: 'processing' }, data: progress });
    // Subscribers re-read the job themselves: the update only says which job and in what state.
    if (count > 0) this.publish({ id: jobId, state: 'processing' });
  }

  async complete(jobId: number, owner: string, progress: JobProgress = {}): Promise<Job | null> {
    return this.finish(jobId, owner, { ...progress, state: 'completed', error: null });
  }

  /**
   * The one way a job becomes failed (its handler threw, no handler, interrupted too often). Its
   * files are deleted first, then its state and its asset rows change in one transaction: a crash
   * in between leaves the job in processing under a lease that runs out, so recovery runs it again
   * (from a clean start) or fails it again, deleting again (a repeat finds nothing: harmless). The
   * other order could leave a failed job's files behind with nothing left to find them by. A
   * deletion that fails leaves the job in processing the same way, to be failed at a later try.
   */
  async fail(jobId: number, owner: string, message: string): Promise<Job | null> {
    // Only the job's worker deletes: another may hold it now, writing under the same prefix.
    const held = await this.db.prisma.job.count({ where: { id: jobId, leaseOwner: owner, state: 'processing' } });
    if (held === 0) return null;
    await this.blobs.deletePrefix(jobFilesPrefix(jobId));
    return this.finish(jobId, owner, { state: 'failed', error: message }, (tx) => tx.asset.deleteMany({ where: { jobId } }));
  }

  /**
   * Jobs whose lease ran out (their process died): queued again while attempts remain, failed
   * otherwise. Returns the ids queued again so a queue adapter can hand them to its workers.
   */
  async recoverExpired(): Promise<number[]> {
    const requeued = await this.db.query<{ id: number }>(
      `UPDATE "Job" SET state = 'queued', "leaseOwner" = NULL, "leaseExpiresAt" = NULL, "updatedAt" = now()
       WHERE state = 'processing' AND "leaseExpiresAt" < now() AND attempts < $1 RETURNING id`,
      [MAX_ATTEMPTS],
    );
    const failed = await this.db.query<{ id: number }>(
      `SELECT id FROM "Job" WHERE state = 'processing' AND "leaseExpiresAt" < now() AND attempts >= $1`,
      [MAX_ATTEMPTS],
    );
    for (const { id } of failed) {
      const job = await this.get(id);
      try {
        if (job?.leaseOwner) await this.fail(id, job.leaseOwner, `the job was interrupted ${MAX_ATTEMPTS} times (its worker stopped) and was not retried again`);
      } catch (error) {
        // Still in processing with its lease run out: the next recovery tries again.
        this.logger.warn({ err: error, jobId: id }, 'failing an interrupted job failed');
      }
    }
    for (const { id } of requeued) this.publish({ id, state: 'queued' });
    return requeued.map((r) => r.id);
  }

  private async finish(
    jobId: number,
    owner: string,
    data: Prisma.JobUpdateManyMutationInput,
    alsoDo?: (tx: Prisma.TransactionClient) => Promise<unknown>,
  ): Promise<Job | null> {
    const job = await this.db.prisma.$transaction(async (tx) => {
      const { count } = await tx.job.updateMany({
        where: { id: jobId, leaseOwner: owner, state: 'processing' },
        data: { ...data, finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null },
      });
      if (count === 0) return null;
      await alsoDo?.(tx);
      const finished = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
      for (const listener of this.finishedListeners) await listener(finished, tx);
      return finished;
    });
    if (job) this.publish(job);
    return job;
  }

  private publish(job: Pick<Job, 'id' | 'state'>): void {
    this.events.publish('jobUpdates', job.id, { jobId: job.id, state: job.state });
  }
}
