// BullMQ on Redis: each enqueue is a BullMQ job carrying the job row's id; a BullMQ worker (in
// this process or in `npm run worker` elsewhere) claims the row and runs it. Crash recovery stays
// with the row's lease (JobsService.recoverExpired), so BullMQ's own stall retries are off.
// bullmq is imported on first use: processes without REDIS_URL never load it.
import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../logger.js';
import type { ClaimAndRun, JobQueue } from './job-queue.js';
import { Unavailable } from '../errors.js';
import { withDeadline } from '../deadline.js';

const QUEUE_NAME = 'image-service-jobs';
/** How long an enqueue may wait for Redis before the caller hears 503. */
const ENQUEUE_TIMEOUT_MS = 3_000;

const withTimeout = <T>(promise: Promise<T>, ms: number) => withDeadline(promise, ms, 'Redis');

export class BullMqQueue implements JobQueue {
  readonly kind = 'bullmq' as const;
  private readonly queue: Promise<Queue>;
  private worker: Promise<Worker> | null = null;

  constructor(
    private readonly redisUrl: string,
    private readonly claimAndRun: ClaimAndRun,
    private readonly logger: Logger,
    private readonly options: { concurrency: number; prefix?: string },
  ) {
    // The producer fails fast while Redis is away (no offline queue): a caller gets a 503 now, not
    // an answer after Redis returns, by which time it has given up and would retry into a second job.
    this.queue = import('bullmq').then(({ Queue }) => {
      const queue = new Queue(QUEUE_NAME, { connection: { ...connection(redisUrl), enableOfflineQueue: false }, prefix: options.prefix });
      queue.on('error', (error) => this.logger.warn({ err: error }, 'BullMQ queue connection error'));
      return queue;
    });
  }

  async enqueue(jobId: number): Promise<void> {
    const queue = await this.queue;
    try {
      // A fresh connection is still connecting: wait for it, briefly.
      await withTimeout(queue.waitUntilReady(), ENQUEUE_TIMEOUT_MS);
      await withTimeout(queue.add('run', { jobId }, { removeOnComplete: true, removeOnFail: 1000 }), ENQUEUE_TIMEOUT_MS);
    } catch (error) {
      this.logger.warn({ err: error, jobId }, 'could not hand a job to the queue');
      throw new Unavailable('the job queue (Redis) is unavailable: nothing was started; retry shortly');
    }
  }

  async ping(): Promise<void> {
    const queue = await this.queue;
    const client = await withTimeout(queue.backend.client, ENQUEUE_TIMEOUT_MS);
    // An ioredis client underneath (the Redis backend), whose interface type leaves PING out.
    await withTimeout((client as unknown as { ping(): Promise<string> }).ping(), ENQUEUE_TIMEOUT_MS);
  }

  async resendMissing(jobIds: number[]): Promise<number[]> {
    if (jobIds.length === 0) return [];
    const queue = await this.queue;
    const held = new Set((await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized'])).map((task) => (task?.data as { jobId?: number } | undefined)?.jobId));
    const missing = jobIds.filter((id) => !held.has(id));
    for (const id of missing) await this.enqueue(id);
    return missing;
  }

  startWorkers(): void {
    if (this.worker) return;
    this.worker = import('bullmq').then(({ Worker }) => {
      const worker = new Worker(
        QUEUE_NAME,
        async (task) => {
          await this.claimAndRun((task.data as { jobId: number }).jobId);
        },
        { connection: connection(this.redisUrl), prefix: this.options.prefix, concurrency: this.options.concurrency, maxStalledCount: 0 },
      );
      worker.on('error', (error) => this.logger.error({ err: error }, 'BullMQ worker error'));
      return worker;
    });
  }

  async stop(): Promise<void> {
    await (await this.worker)?.close();
    await (await this.queue).close();
  }
}

function connection(redisUrl: string) {
  const url = new URL(redisUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 6379),
    username: url.username || undefined,
    password: url.password || undefined,
    db: url.pathname.length > 1 ? Number(url.pathname.slice(1)) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
    maxRetriesPerRequest: null,
    // Back within a second of Redis returning (ioredis's default waits up to 20 s between attempts).
    retryStrategy: (attempt: number) => Math.min(attempt * 100, 1000),
  };
}
