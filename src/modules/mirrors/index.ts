// Public surface of the mirrors module (bulk mirror, and the check behind POST /api/media/mirror):
// the service, the factory the composition root builds it with, and its settings.
import type { Database } from '../../platform/database/database.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import type { ImageObjectsService } from '../image-objects/index.js';
import type { JobRunner, JobsService } from '../jobs/index.js';
import type { RewardsService } from '../ledger/index.js';
import { ImageAtUrl, type ImageLimits } from './image-at-url.js';
import { createMirrorHandler } from './mirrors.job.js';
import { BULK_MIRROR_JOB_KIND, MirrorsService } from './mirrors.service.js';
import type { MirrorsConfig } from './mirrors.settings.js';

export { MirrorsService, BULK_MIRROR_JOB_KIND, BULK_MIRROR_STATUSES, type BulkMirrorStatus, type BulkMirrorView } from './mirrors.service.js';
export { mirrorsConfigFrom, mirrorsEnvShape, type MirrorsConfig } from './mirrors.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Bulk mirror jobs (URLs checked against the image objects, paid once per URL ever) and the media mirror check. */
    mirrors: MirrorsService;
  }
}

export interface MirrorsSetup {
  settings: MirrorsConfig;
  /** The upload limits: a fetched image is held to them as an uploaded one is. */
  limits: ImageLimits;
  db: Database;
  jobs: JobsService;
  jobRunner: JobRunner;
  queue: JobQueue;
  fetcher: SafeFetcher;
  imageObjects: ImageObjectsService;
  rewards: RewardsService;
  logger: Logger;
}

/** The service the API calls, with the bulk mirror job kind registered with this process's runner. */
export function setUpMirrors(deps: MirrorsSetup): MirrorsService {
  const images = new ImageAtUrl(deps.fetcher, deps.imageObjects, deps.limits);
  deps.jobRunner.register(BULK_MIRROR_JOB_KIND, createMirrorHandler({ db: deps.db, images, imageObjects: deps.imageObjects, rewards: deps.rewards, logger: deps.logger, settings: deps.settings }));
  return new MirrorsService({ db: deps.db, jobs: deps.jobs, queue: deps.queue, images, urlRefusal: (url) => deps.fetcher.refusal(url), settings: deps.settings });
}
