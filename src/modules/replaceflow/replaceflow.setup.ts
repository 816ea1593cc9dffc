// Builds the ReplaceFlow service and adds it to the service registry's type.
import type { Services, UploadLimits } from '../../platform/service-registry.js';
import { GoogleWebDetection } from './google-web-detection.js';
import { ReplaceFlowService } from './replaceflow.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** ReplaceFlow: clean versions of an article's watermarked image (reverse search, pHash, the watermark detector). */
    replaceflow: ReplaceFlowService;
  }
}

export type ReplaceFlowSetup = Pick<Services, 'db' | 'blobs' | 'fetcher' | 'featured' | 'imageObjects' | 'community' | 'wiki' | 'signer' | 'quota' | 'stockSearch' | 'logger'> & {
  /** Reverse search by Google web detection uses the vision module's Google key and base URL (none: no web detection). */
  google?: { apiKey: string; baseUrl: string; timeoutMs: number };
  limits: UploadLimits;
};

export function setupReplaceflow({ google, stockSearch, ...deps }: ReplaceFlowSetup): Pick<Services, 'replaceflow'> {
  const replaceflow = new ReplaceFlowService({
    ...deps,
    webDetection: google ? new GoogleWebDetection({ ...google, maxResults: 20 }) : null,
    // The headline's keywords go to the same stock clients as the search's fourth tier.
    stockSearch: async (keywords, options) => (await stockSearch.search(keywords, options)).images,
  });
  return { replaceflow };
}
