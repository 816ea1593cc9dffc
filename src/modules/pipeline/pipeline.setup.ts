// Builds the pipeline service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { PipelineService } from './pipeline.service.js';
import type { PipelineConfig } from './pipeline.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Pipelines: steps run in order through the services of their single routes (POST /api/pipeline). */
    pipeline: PipelineService;
  }
}

export type PipelineSetup = Pick<Services, 'scrape' | 'jobs' | 'search' | 'generation' | 'vision' | 'replaceflow' | 'media' | 'quota' | 'fetcher' | 'blobs' | 'signer' | 'logger'> & {
  settings: PipelineConfig;
  /** Largest image read or fetched (UPLOAD_MAX_BYTES). */
  maxImageBytes: number;
};

export function setupPipeline({ settings, ...deps }: PipelineSetup): Pick<Services, 'pipeline'> {
  // Each step calls the same service as its single route (scopes, quota, credits as there).
  return { pipeline: new PipelineService({ ...deps, config: settings }) };
}
