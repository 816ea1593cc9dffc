// What image a URL serves, and which known image it is: fetched through the SSRF-safe fetcher
// (private addresses, redirects to them, oversized bodies and slow servers refused), decoded within
// the upload limits (bytes and pixels), hashed, and compared by blockhash distance, the measure that
// makes resized, recompressed and lightly cropped copies one image object.
import { AppError } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { ImageObjectsService, Neighbour } from '../image-objects/index.js';
import { SAME_OBJECT_MAX_DISTANCE } from '../image-objects/index.js';
import { fetchImageBytes, hammingDistance, processSharedImage, type SharedImage } from '../media/index.js';

export interface ImageLimits {
  maxBytes: number;
  maxPixels: number;
}

/** Why a URL's image could not be had: the caller's 400, worded for a URL (no field prefix). */
export class UnreadableImage extends AppError {
  constructor(message: string) {
    super(message, 400, 'UNREADABLE_IMAGE', 'url');
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

  /** The known image object nearest to the image, within the same-object distance; null when none is. */
  async knownObject(image: SharedImage): Promise<Neighbour | null> {
    const [nearest] = await this.imageObjects.nearest(image.blockhash, 1, SAME_OBJECT_MAX_DISTANCE);
    return nearest ?? null;
  }
}

/** Blockhash distance between an image and stored hashes: 0 for the same bytes. */
export function distanceTo(image: SharedImage, stored: { sha256: string; blockhash: string }): number {
  return image.sha256 === stored.sha256 ? 0 : hammingDistance(image.blockhash, stored.blockhash);
}
