// What image a URL serves, and which known image it is: fetched through the SSRF-safe fetcher
// (private addresses, redirects to them, oversized bodies and slow servers refused), decoded within
// the upload limits (bytes and pixels), hashed, and matched by the image-objects rule for the same
// image (exact bytes, or a near blockhash when neither side is low-information).
import { AppError, ErrorCode } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { ImageObjectsService, Neighbour } from '../image-objects/index.js';
import { fetchImageBytes, processSharedImage, type SharedImage } from '../images/index.js';

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
}

/** Why a URL's image could not be had: the caller's 400, worded for a URL (no field prefix). */
export class UnreadableImage extends AppError {
  constructor(message: string) {
    super(message, 400, ErrorCode.UnreadableImage, 'url');
  }
}

export class ImageAtUrl {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly imageObjects: ImageObjectsService,
    private readonly limits: ImageLimits,
  ) {}

  /** The image at the URL with its hashes; UnreadableImage when it cannot be fetched or is not an image. */
  async read(url: string, signal?: AbortSignal): Promise<SharedImage> {
    let body: Buffer;
    try {
      body = await fetchImageBytes(this.fetcher, url, 'url', this.limits.maxBytes, { signal });
    } catch (error) {
      if (error instanceof AppError) throw new UnreadableImage(error.message.replace(/^url: /, ''));
      throw error;
    }
    try {
      return await processSharedImage(body, this.limits);
    } catch (error) {
      // processSharedImage names its upload `file`; here the image is the URL's answer (a 400 also
      // when over the size limits: the request itself was small).
      if (error instanceof AppError) throw new UnreadableImage(`the URL's answer is not a usable image: ${error.message.replace(/^file: /, '')}`);
      throw error;
    }
  }

  /** The known image object this image is by the same-image rule (the nearest); null when none is. */
  async knownObject(image: SharedImage): Promise<Neighbour | null> {
    const [nearest] = await this.imageObjects.nearest(image, 1);
    return nearest ?? null;
  }
}
