// Builds the imaging services (transformation URLs, watermarks) and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import type { TransformConfig, WatermarkConfig } from './imaging.settings.js';
import { TransformService } from './transform.service.js';
import { WatermarkService } from './watermark.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    transforms: TransformService;
    watermarks: WatermarkService;
  }
}

export interface ImagingSetup extends Pick<Services, 'db' | 'blobs' | 'fetcher' | 'signer'> {
  settings: { transform: TransformConfig; watermark: WatermarkConfig };
  /** The largest source image decoded (UPLOAD_MAX_PIXELS). */
  maxInputPixels: number;
}

export function setupImaging({ db, blobs, fetcher, signer, settings, maxInputPixels }: ImagingSetup): Pick<Services, 'transforms' | 'watermarks'> {
  const { transform } = settings;
  return {
    transforms: new TransformService(db, blobs, { maxDimension: transform.maxDimension, maxInputPixels, concurrency: transform.concurrency, maxFrames: transform.maxFrames }, signer),
    watermarks: new WatermarkService(fetcher, blobs, settings.watermark, signer),
  };
}
