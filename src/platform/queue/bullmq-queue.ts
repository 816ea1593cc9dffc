// BullMQ on Redis: each enqueue is a BullMQ job carrying the job row's id; a BullMQ worker (in
// this process or in `npm run worker` elsewhere) claims the row and runs it. Crash recovery stays
// with the row's lease (JobsService.recoverExpired), so BullMQ's own stall retries are off.
// bullmq is imported on first use: processes without REDIS_URL never load it.
import type { Queue, Worker } from 'bullmq';
import type { Logger } from '../logger.js';
import type { ClaimAndRun, JobQueue } from './job-queue.js';

const QUEUE_NAME = 'image-service-jobs';

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
    this.queue = import('bullmq').then(({ Queue }) => new Queue(QUEUE_NAME, { connection: connection(redisUrl), prefix: options.prefix }));
  }

  async enqueue(jobId: number): Promise<void> {
    await (await this.queue).add('run', { jobId }, { removeOnComplete: true, removeOnFail: 1000 });
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
  };
}
