// Crawl processes for the scrape jobs this process runs (the default, SCRAPE_ISOLATION=process).
// Each crawl runs in a child process of its own (crawl-process.ts): the parsing and hashing of a
// large crawl no longer compete with API requests on this event loop, its garbage is not this
// process's heap, and a crawl that runs out of memory (SCRAPE_PROCESS_MAX_HEAP_MB) fails its job
// instead of taking the service down. A process runs one crawl at a time and, once done, waits
// SCRAPE_PROCESS_IDLE_MS for the next before it exits, taking its memory with it.
import { fork, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { AppError, ErrorCode } from '../../platform/errors.js';
import { childEntry } from '../../platform/child-entry.js';
import type { Logger } from '../../platform/logger.js';
import type { JobProgress } from '../jobs/index.js';
import type { CrawlHooks } from './scrape.crawler.js';
import type { CrawlError, CrawlProcessSettings, FromCrawlProcess, ToCrawlProcess } from './crawl-protocol.js';
import type { Crawler } from './scrape.job.js';
import type { ScrapeInput } from './scrape.input.js';

const { entry: ENTRY, execArgv: LOADER_ARGS } = childEntry(import.meta.url, 'crawl-process');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 5_000;

export interface CrawlProcessPoolOptions {
  settings: CrawlProcessSettings;
  /**
   * A crawl process gets the settings it needs over IPC, so none of our configuration variables
   * (secrets among them: DATABASE_URL, ADMIN_TOKEN, provider keys ...) is passed on, NODE_ENV aside.
   */
  withheldEnv: readonly string[];
  /** V8 old-space limit of each crawl process (--max-old-space-size). */
  maxHeapMb: number;
  /** How long a crawl process waits for its next crawl before it exits. */
  idleMs: number;
  logger: Logger;
}

export class CrawlProcessPool implements Crawler {
  private readonly idle: CrawlProcess[] = [];
  private readonly live = new Set<CrawlProcess>();
  private closed = false;

  constructor(private readonly options: CrawlProcessPoolOptions) {}

  /** Process ids of the crawl processes alive now, busy or idle. */
  get pids(): number[] {
    return [...this.live].map((p) => p.pid);
  }

  async crawl(jobId: number, input: ScrapeInput, hooks: CrawlHooks): Promise<Required<JobProgress>> {
    if (this.closed) throw new AppError('the service is stopping; the job runs again after its restart', 503, ErrorCode.Unavailable);
    const worker = this.idle.pop() ?? (await this.start());
    worker.busy();
    try {
      return await worker.run(jobId, input, hooks);
    } finally {
      if (worker.alive && !this.closed) {
        this.idle.push(worker);
        worker.idleFor(this.options.idleMs);
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.live].map((p) => p.stop()));
  }

  private async start(): Promise<CrawlProcess> {
    const env = { ...process.env };
    for (const name of this.options.withheldEnv) if (name !== 'NODE_ENV') delete env[name];
    const child = fork(ENTRY, [], {
      // A smaller heap-growing step makes V8 collect a crawl's garbage sooner (bench/RESULTS.md). A
      // crawl's garbage dies young (parsed pages, bodies once stored): a 2 MB semi-space (default 16)
      // scavenges it, and frees the bodies' ArrayBuffers, sooner. The crawl process peaked 30-40 MB
      // lower (168-173 → 134-138 MB on bench/crawl/site.ts) for the same CPU seconds (bench/RESULTS.md, memory).
      execArgv: [...LOADER_ARGS, `--max-old-space-size=${this.options.maxHeapMb}`, '--heap-growing-percent=20', '--max-semi-space-size=2'],
      serialization: 'advanced',
      // Its structured log lines go where ours go; what it writes to stderr (a fatal error, an
      // out-of-memory report) comes into our log, marked with its pid.
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      env,
    });
    const worker = new CrawlProcess(child, this.options);
    this.live.add(worker);
    child.once('exit', () => {
      this.live.delete(worker);
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    });
    await worker.ready(this.options.settings);
    return worker;
  }
}

/** One crawl process, seen from the job's process. */
class CrawlProcess {
  alive = true;
  private readonly exited: Promise<void>;
  /** Set while a crawl runs: fails it when the process ends under it. */
  private onExit?: (how: string) => void;
  private idleTimer?: NodeJS.Timeout;
  private stopping = false;

  constructor(
    private readonly child: ChildProcess,
    private readonly options: CrawlProcessPoolOptions,
  ) {
    const { logger } = options;
    createInterface({ input: child.stderr! }).on('line', (line) => logger.warn({ crawlProcess: child.pid, stderr: line }, 'crawl process wrote to stderr'));
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.alive = false;
        clearTimeout(this.idleTimer);
        const how = signal ? `signal ${signal}` : `exit code ${code}`;
        if (!this.stopping) logger.error({ crawlProcess: child.pid, exit: how, crawling: Boolean(this.onExit) }, 'crawl process exited unexpectedly');
        this.onExit?.(how);
        resolve();
      });
    });
    // Only a running crawl keeps this process's event loop alive, never an idle crawl process.
    child.unref();
  }

  get pid(): number {
    return this.child.pid!;
  }

  async ready(settings: CrawlProcessSettings): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`a crawl process did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      const onMessage = (message: FromCrawlProcess) => {
        if (message.type === 'ready') done();
      };
      const onExit = (code: number | null, signal: string | null) => done(new Error(`a crawl process exited while starting (${signal ?? `exit code ${code}`})`));
      const done = (error?: Error) => {
        clearTimeout(timer);
        this.child.off('message', onMessage);
        this.child.off('exit', onExit);
        if (error) {
          void this.stop();
          reject(error);
        } else resolve();
      };
      this.child.on('message', onMessage);
      this.child.once('exit', onExit);
      this.send({ type: 'init', settings });
    });
  }

  busy(): void {
    clearTimeout(this.idleTimer);
    this.child.channel?.ref();
  }

  idleFor(ms: number): void {
    this.child.channel?.unref();
    this.idleTimer = setTimeout(() => void this.stop(), ms);
    this.idleTimer.unref();
  }

  run(jobId: number, input: ScrapeInput, hooks: CrawlHooks): Promise<Required<JobProgress>> {
    return new Promise((resolve, reject) => {
      /** Rows being written for the crawl: a crawl that ends under them ends once they are in. */
      const saving = new Set<Promise<unknown>>();
      const onMessage = (message: FromCrawlProcess) => {
        if (message.type === 'ready' || message.jobId !== jobId) return;
        switch (message.type) {
          case 'progress':
            hooks.progress(message.counts);
            break;
          case 'save': {
            const saved = hooks.saveAssets(message.assets).then(() => ({}));
            saving.add(saved);
            const done = () => saving.delete(saved);
            saved.then(done, done);
            this.reply(message.id, jobId, saved);
            break;
          }
          case 'label': {
            const image = Buffer.from(message.image.buffer, message.image.byteOffset, message.image.byteLength);
            this.reply(message.id, jobId, hooks.label(image).then((labels) => ({ labels })));
            break;
          }
          case 'done':
            finish();
            resolve(message.counts);
            break;
          case 'failed':
            finish();
            reject(toAppError(message.error));
            break;
        }
      };
      const onAbort = () => this.send({ type: 'abort', jobId });
      const finish = () => {
        this.child.off('message', onMessage);
        hooks.signal.removeEventListener('abort', onAbort);
        this.onExit = undefined;
      };
      this.onExit = (how) => {
        finish();
        const error = new AppError(
          `the crawl process stopped unexpectedly (${how}); if it ran out of memory, SCRAPE_PROCESS_MAX_HEAP_MB (${this.options.maxHeapMb}) may be too low for this site`,
          500,
          ErrorCode.CrawlProcessExited,
        );
        // The job fails once this rejects, deleting its rows: none may be written after that.
        void Promise.allSettled([...saving]).then(() => reject(error));
      };
      this.child.on('message', onMessage);
      this.send({ type: 'run', jobId, input });
      if (hooks.signal.aborted) onAbort();
      else hooks.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** SIGTERM, then SIGKILL if it has not exited after STOP_TIMEOUT_MS. */
  async stop(): Promise<void> {
    if (!this.alive) return;
    this.stopping = true;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private reply(id: number, jobId: number, answer: Promise<{ labels?: string[] }>): void {
    answer.then(
      (value) => this.send({ type: 'reply', id, ...value }),
      (error: unknown) => {
        if (!(error instanceof AppError)) this.options.logger.error({ err: error, jobId }, 'answering a crawl process failed');
        this.send({ type: 'reply', id, error: error instanceof AppError ? error.message : 'recording the crawl failed; see the service log' });
      },
    );
  }

  private send(message: ToCrawlProcess): void {
    // A process that has just exited cannot be told anything; its exit fails the crawl.
    if (this.alive && this.child.connected) this.child.send(message, (error) => error && this.options.logger.debug({ err: error }, 'a crawl process missed a message'));
  }
}

function toAppError(error: CrawlError): AppError {
  return new AppError(error.message, error.status, error.code);
}
