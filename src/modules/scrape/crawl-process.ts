// Entry of a crawl process, forked by crawl-process-pool.ts. It loads only what a crawl needs (the
// fetcher, the page parser, the blob store): no database, no GraphQL server. The crawl's memory
// and CPU stay out of the job's process, and a crawl that runs out of memory ends only this
// process. Files go straight to the blob store; rows, progress and labelling go back over IPC.
import { createBlobStore } from '../../platform/storage/index.js';
import { AppError, ErrorCode } from '../../platform/errors.js';
import { SafeFetcher } from '../../platform/http/safe-fetch.js';
import { createLogger } from '../../platform/logger.js';
import { crawl, type CrawlDependencies } from './scrape.crawler.js';
import type { CrawlError, CrawlProcessSettings, FromCrawlProcess, ToCrawlProcess } from './crawl-protocol.js';

/** Progress goes to the job at most this often (and once more with the result). */
const PROGRESS_INTERVAL_MS = 100;

if (!process.send) {
  console.error('crawl-process is started by the service (crawl-process-pool.ts), not by hand');
  process.exit(1);
}

const send = (message: FromCrawlProcess) => process.send!(message);
let deps: CrawlDependencies | undefined;
let running: { jobId: number; abort: AbortController } | undefined;
const replies = new Map<number, { resolve: (labels: string[]) => void; reject: (error: Error) => void }>();
let nextRequestId = 1;

/** Sends a request to the job's process and waits for its reply. */
function ask(message: { type: 'save' | 'label' } & Record<string, unknown>): Promise<string[]> {
  const id = nextRequestId++;
  return new Promise((resolve, reject) => {
    replies.set(id, { resolve, reject });
    send({ ...message, id } as FromCrawlProcess);
  });
}

async function build(settings: CrawlProcessSettings): Promise<CrawlDependencies> {
  return {
    fetcher: new SafeFetcher(settings.fetch),
    blobs: await createBlobStore({ dataDir: settings.dataDir, s3: settings.s3 }),
    logger: createLogger(settings.logLevel).child({ crawlProcess: process.pid }),
    scrape: settings.scrape,
    userAgent: settings.fetch.userAgent,
    maxRedirects: settings.fetch.maxRedirects,
  };
}

async function run(jobId: number, input: Extract<ToCrawlProcess, { type: 'run' }>['input']): Promise<void> {
  const abort = new AbortController();
  running = { jobId, abort };
  let lastProgress = 0;
  try {
    const counts = await crawl(deps!, jobId, input, {
      signal: abort.signal,
      progress: (progress) => {
        if (Date.now() - lastProgress < PROGRESS_INTERVAL_MS) return;
        lastProgress = Date.now();
        send({ type: 'progress', jobId, counts: progress });
      },
      saveAssets: async (assets) => {
        await ask({ type: 'save', jobId, assets });
      },
      // Copied into an array of its own, so only the image's bytes travel (a Buffer may be a view
      // of a larger allocation); the image stays usable here for storing.
      label: (image) => ask({ type: 'label', jobId, image: new Uint8Array(image) }),
    });
    send({ type: 'done', jobId, counts });
  } catch (error) {
    send({ type: 'failed', jobId, error: describe(error, jobId) });
  } finally {
    running = undefined;
  }
}

function describe(error: unknown, jobId: number): CrawlError {
  if (error instanceof AppError) return { message: error.message, status: error.status, code: error.code };
  deps?.logger.error({ err: error, jobId }, 'crawl failed');
  return { message: 'the crawl failed unexpectedly; see the service log', status: 500, code: ErrorCode.CrawlFailed };
}

process.on('message', (message: ToCrawlProcess) => {
  switch (message.type) {
    case 'init':
      build(message.settings).then(
        (built) => {
          deps = built;
          send({ type: 'ready' });
        },
        (error: unknown) => {
          console.error('crawl process could not start:', error);
          process.exit(1);
        },
      );
      break;
    case 'run':
      if (!deps || running) throw new Error(`crawl process asked to run job ${message.jobId} while ${deps ? `running job ${running!.jobId}` : 'not initialised'}`);
      void run(message.jobId, message.input);
      break;
    case 'abort':
      if (running?.jobId === message.jobId) running.abort.abort();
      break;
    case 'reply': {
      const waiting = replies.get(message.id);
      replies.delete(message.id);
      if (message.error !== undefined) waiting?.reject(new AppError(message.error, 500, ErrorCode.CrawlRequestFailed));
      else waiting?.resolve(message.labels ?? []);
      break;
    }
  }
});

// The job's process is gone (stopped or crashed): its job will be recovered elsewhere, so stop.
process.on('disconnect', () => process.exit(0));
