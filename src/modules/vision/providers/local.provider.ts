// The local provider: OCR (tesseract.js) and object labels (human's centernet) in a small pool of
// worker threads, so that the event loop of the server never runs a model. Threads start on the first
// analysis, load their models once, and end after an idle period (the models' memory goes with them).
import { Piscina } from 'piscina';
import type { VisionConfig } from '../vision.settings.js';
import type { Logger } from '../../../platform/logger.js';
import { InvalidInput, Unavailable } from '../../../platform/errors.js';
import { localResult } from '../local/local-result.js';
import type { LocalAnswer, LocalTask } from '../local/local.worker.js';
import type { InspectedImage, ProviderResult, VisionTask } from '../vision.types.js';
import { ProviderError, type VisionProvider } from './provider.js';

export type LocalProviderOptions = Omit<VisionConfig['local'], 'enabled'> & { maxPixels: number };

const WORKER_FILE = new URL('../local/worker-entry.mjs', import.meta.url).href;

export class LocalProvider implements VisionProvider {
  readonly name = 'local' as const;
  private pool: Piscina<LocalTask, LocalAnswer> | undefined;

  constructor(
    private readonly options: LocalProviderOptions,
    private readonly logger: Logger,
  ) {}

  supports(): boolean {
    return true;
  }

  /** Worker threads alive now (each with its models): 0 before the first analysis and once idle ones have ended. */
  get threads(): number {
    return this.pool?.threads.length ?? 0;
  }

  private workers(): Piscina<LocalTask, LocalAnswer> {
    this.pool ??= new Piscina<LocalTask, LocalAnswer>({
      filename: WORKER_FILE,
      name: 'default',
      minThreads: 0,
      maxThreads: this.options.threads,
      idleTimeout: this.options.idleTimeoutMs,
      maxQueue: this.options.maxQueue,
      // The worker threads are for models, not for the TypeScript loader's own flags.
      execArgv: [],
    });
    return this.pool;
  }

  async analyze(image: InspectedImage, task: VisionTask, field: string): Promise<ProviderResult> {
    const started = performance.now();
    let answer: LocalAnswer;
    try {
      // A copy of exactly the image's bytes, moved (not cloned) into the worker thread.
      const bytes = new Uint8Array(image.bytes);
      answer = await this.workers().run(
        { image: bytes, task, maxPixels: this.options.maxPixels },
        { signal: AbortSignal.timeout(this.options.taskTimeoutMs), transferList: [bytes.buffer] },
      );
    } catch (error) {
      const message = (error as Error).message ?? String(error);
      if (/queue is at limit/i.test(message)) throw new Unavailable('local image analysis is busy: too many images are waiting; retry shortly');
      if ((error as Error).name === 'AbortError' || /abort/i.test(message)) {
        throw new ProviderError('local', 'timeout', `local analysis took longer than ${this.options.taskTimeoutMs} ms`);
      }
      throw new ProviderError('local', 'failed', `local analysis failed: ${message}`);
    }
    if (!answer.ok) throw new InvalidInput(`${field}: the image could not be decoded (${answer.message})`, field);
    const result = localResult(task, answer.raw, this.options);
    this.logger.debug({ task, ...answer.raw.timings, totalMs: Math.round(performance.now() - started) }, 'local image analysis');
    return result;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.destroy();
  }
}
