// Messages between a job's process and its crawl processes (Node IPC with the "advanced"
// serialization, so image bytes travel as bytes). A crawl process runs one crawl at a time.
import type { ErrorCode } from '../../platform/errors.js';
import type { SafeFetchOptions } from '../../platform/http/safe-fetch.js';
import type { S3Options } from '../../platform/storage/index.js';
import type { JobProgress } from '../jobs/index.js';
import type { CrawledAsset } from './scrape.crawler.js';
import type { ScrapeInput } from './scrape.input.js';
import type { ScrapeConfig } from './scrape.settings.js';

/** What a crawl process is built from: the parts of the configuration a crawl uses, no more. */
export interface CrawlProcessSettings {
  fetch: Required<Omit<SafeFetchOptions, 'maxBytes'>>;
  scrape: ScrapeConfig;
  dataDir: string;
  s3?: S3Options;
  logLevel: string;
}

/**
 * An error as it crosses the process boundary: an AppError keeps its message, status and code; a
 * bug is logged with its stack by the crawl process and arrives as a generic message.
 */
export interface CrawlError {
  message: string;
  status: number;
  code: ErrorCode;
}

export type ToCrawlProcess =
  | { type: 'init'; settings: CrawlProcessSettings }
  | { type: 'run'; jobId: number; input: ScrapeInput }
  | { type: 'abort'; jobId: number }
  /** The answer to a request (`save` or `label`) with the same id. */
  | { type: 'reply'; id: number; labels?: string[]; error?: string };

export type FromCrawlProcess =
  | { type: 'ready' }
  | { type: 'progress'; jobId: number; counts: Required<JobProgress> }
  | { type: 'save'; id: number; jobId: number; assets: CrawledAsset[] }
  | { type: 'label'; id: number; jobId: number; image: Uint8Array }
  | { type: 'done'; jobId: number; counts: Required<JobProgress> }
  | { type: 'failed'; jobId: number; error: CrawlError };
