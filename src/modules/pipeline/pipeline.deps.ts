// What the pipeline needs of the rest of the service: the same services the single routes call.
import type { Logger } from '../../platform/logger.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { GenerationService } from '../generation/index.js';
import type { JobsService } from '../jobs/index.js';
import type { MediaService } from '../media/index.js';
import type { QuotaService } from '../quota/index.js';
import type { ReplaceFlowService } from '../replaceflow/index.js';
import type { ScrapeService } from '../scrape/index.js';
import type { SearchService } from '../search/index.js';
import type { VisionService } from '../vision/index.js';
import type { PipelineConfig } from './pipeline.settings.js';

export interface PipelineDeps {
  config: PipelineConfig;
  scrape: Pick<ScrapeService, 'start'>;
  jobs: Pick<JobsService, 'get' | 'getOwned'>;
  search: Pick<SearchService, 'search'>;
  generation: Pick<GenerationService, 'generate'>;
  vision: Pick<VisionService, 'analyze'>;
  replaceflow: Pick<ReplaceFlowService, 'find'>;
  media: Pick<MediaService, 'ingest'>;
  quota: Pick<QuotaService, 'consume'>;
  fetcher: SafeFetcher;
  blobs: BlobStore;
  signer: UrlSigner;
  /** Largest image read or fetched (UPLOAD_MAX_BYTES). */
  maxImageBytes: number;
  logger: Logger;
}
