// Workers inside this process that claim queued job rows (FOR UPDATE SKIP LOCKED), so several
// processes sharing one PostgreSQL also split the work without Redis. An enqueue wakes an idle
// worker at once; otherwise workers look for work every `pollMs` (jobs queued by other processes,
// or queued again after a crash).
import type { Logger } from '../logger.js';
import type { ClaimAndRun, JobQueue } from './job-queue.js';

export class InProcessQueue implements JobQueue {
  readonly kind = 'in-process' as const;
  private running = false;
  private readonly loops: Promise<void>[] = [];
  private wakers: Array<() => void> = [];

  constructor(
    private readonly claimAndRun: ClaimAndRun,
    private readonly logger: Logger,
    private readonly options: { concurrency: number; pollMs: number },
  ) {}

  async enqueue(): Promise<void> {
    this.wake();
  }

  /** Nothing is lost here: the workers poll the database for queued rows. */
  async resendMissing(): Promise<number[]> {
    return [];
  }

  /** The workers live in this process, and the rows they read are the database's (checked apart). */
  async ping(): Promise<void> {}

  startWorkers(): void {
    if (this.running) return;
    this.running = true;
    for (let i = 0; i < this.options.concurrency; i++) this.loops.push(this.loop());
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake(true);
    await Promise.all(this.loops);
    this.loops.length = 0;
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.claimAndRun();
      } catch (error) {
        this.logger.error({ err: error }, 'job worker failed to claim or run a job');
      }
      if (!worked && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise<void>((resolve) => {
      const waker = () => {
        clearTimeout(timer);
        this.wakers = this.wakers.filter((w) => w !== waker);
        resolve();
      };
      const timer = setTimeout(waker, this.options.pollMs);
      this.wakers.push(waker);
    });
  }

  private wake(all = false): void {
    for (const waker of all ? [...this.wakers] : this.wakers.slice(0, 1)) waker();
  }
}
