// The job queue port. Job rows in the database are the source of truth; a queue only decides
// which process runs which job and when. Adapters: in-process workers (default) and BullMQ on
// Redis (REDIS_URL), where `npm run worker` adds workers on other machines.
export interface JobQueue {
  readonly kind: 'in-process' | 'bullmq';
  /** Tells the workers a job is waiting. */
  enqueue(jobId: number): Promise<void>;
  /** Sends again the given queued jobs the queue holds no message for; returns their ids. */
  resendMissing(jobIds: number[]): Promise<number[]>;
  /** Starts this process's workers (API processes may run none). */
  startWorkers(): void;
  /** Resolves when the queue can take work (GET /readyz): Redis answers PING; in-process always can. */
  ping(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Claims and runs the given job, or the oldest queued one when no id is given; false when there was
 * nothing to claim (already taken, or finished).
 */
export type ClaimAndRun = (jobId?: number) => Promise<boolean>;
