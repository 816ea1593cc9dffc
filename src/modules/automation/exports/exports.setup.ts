// Wires exports into a process: the service the API calls, the two job kinds the workers run, and
// the rule that a finishing export job takes its sealed secret with it.
import type { Database } from '../../../platform/database/database.js';
import type { SafeFetcher } from '../../../platform/http/safe-fetch.js';
import type { Logger } from '../../../platform/logger.js';
import type { JobQueue } from '../../../platform/queue/job-queue.js';
import type { BlobStore } from '../../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../../platform/url-signer.js';
import type { JobRunner, JobsService } from '../../jobs/index.js';
import type { ExportsConfig } from '../automation.settings.js';
import type { CredentialBox } from './credential-box.js';
import { shopifyDestination, wordpressDestination } from './destinations.js';
import { createExportHandler } from './exports.job.js';
import { ExportsService, SHOPIFY_EXPORT_KIND, WORDPRESS_EXPORT_KIND } from './exports.service.js';
import { ShopifyClient } from './shopify.client.js';
import { WordPressClient } from './wordpress.client.js';

export interface ExportsSetup {
  config: { publicBaseUrl?: string; exports: ExportsConfig };
  db: Database;
  jobs: JobsService;
  jobRunner: JobRunner;
  queue: JobQueue;
  fetcher: SafeFetcher;
  blobs: BlobStore;
  signer: UrlSigner;
  logger: Logger;
  /** The service's credential box (also sealing webhook secrets). */
  box: CredentialBox;
}

export function setUpExports({ config, db, jobs, jobRunner, queue, fetcher, blobs, signer, logger, box }: ExportsSetup): ExportsService {
  const settings = config.exports;
  const service = new ExportsService(db, jobs, queue, box, (url) => fetcher.refusal(url), { allowHttp: settings.allowHttp });
  // Inside the transaction that finishes a job: the secret is gone exactly when the job has ended.
  jobs.onFinished((job, tx) => service.forgetCredential(job, tx));

  const clientOptions = { timeoutMs: settings.timeoutMs, retries: settings.maxRetries };
  const wordpress = new WordPressClient(fetcher, clientOptions);
  const handlerDeps = { db, blobs, box, logger, concurrency: settings.concurrency };
  jobRunner.register(WORDPRESS_EXPORT_KIND, createExportHandler(handlerDeps, (job, secret) => wordpressDestination(job, secret, { blobs, client: wordpress })));
  jobRunner.register(
    SHOPIFY_EXPORT_KIND,
    // A client per job: it follows that shop's rate-limit bucket.
    createExportHandler(handlerDeps, (job, secret) =>
      shopifyDestination(job, secret, { blobs, signer, client: new ShopifyClient(fetcher, clientOptions), publicBaseUrl: config.publicBaseUrl, ...settings.shopify }),
    ),
  );
  return service;
}
