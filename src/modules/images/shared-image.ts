// Images people share (community items, wiki photos): the upload must be one image with its hashes
// (it becomes an image object), and what others see is a public file: oriented, every metadata
// field stripped (no GPS position or camera serial leaves with it), JPEG, or WebP when the image has
// transparency, optionally no longer than `maxSide` on its long side.
import { AppError, InvalidInput } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import { loadSharp } from '../../platform/sharp.js';
import { processUpload, type ProcessedImage, type ProcessLimits } from './process.js';

/** A processed image with the facts an image object needs. */
export type SharedImage = ProcessedImage & { phash: string; blockhash: string; lowInformation: boolean; width: number; height: number };

/** Processes an upload that must be an image (a 400 naming `file` otherwise). */
export async function processSharedImage(body: Buffer, limits: ProcessLimits): Promise<SharedImage> {
  const processed = await processUpload(body, limits);
  if (processed.kind !== 'image' || !processed.blockhash || !processed.phash || processed.lowInformation === null || !processed.width || !processed.height) {
    throw new InvalidInput('file: expected an image (JPEG, PNG, WebP, GIF, AVIF, HEIC or TIFF)', 'file');
  }
  return processed as SharedImage;
}

/** The fingerprint of a shared image, as ImageObjectsService.identify takes it. */
export function fingerprintOf(image: SharedImage) {
  return {
    sha256: image.sha256,
    phash: image.phash,
    blockhash: image.blockhash,
    lowInformation: image.lowInformation,
    bytes: image.bytes,
    format: image.format ?? image.ext,
    width: image.width,
    height: image.height,
  };
}

export interface PublicFile {
  body: Buffer;
  mime: 'image/jpeg' | 'image/webp';
  ext: 'jpg' | 'webp';
  width: number;
  height: number;
}

export async function publicDerivative(processed: Pick<ProcessedImage, 'stored'>, options: { maxPixels: number; maxSide?: number | null }): Promise<PublicFile> {
  const sharp = await loadSharp();
  const input = () => sharp(processed.stored.body, { limitInputPixels: options.maxPixels });
  let pipeline = input().rotate();
  if (options.maxSide) pipeline = pipeline.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside', withoutEnlargement: true });
  const { hasAlpha } = await input().metadata();
  const encoded = hasAlpha ? pipeline.webp({ quality: 90 }) : pipeline.jpeg({ quality: 88, mozjpeg: true });
  const { data, info } = await encoded.toBuffer({ resolveWithObject: true });
  return hasAlpha ? { body: data, mime: 'image/webp', ext: 'webp', width: info.width, height: info.height } : { body: data, mime: 'image/jpeg', ext: 'jpg', width: info.width, height: info.height };
}

/**
 * An image a caller names by URL (community `image_url`, a wiki subject's `featured_image_url`),
 * through the SSRF-safe fetcher; a refused or failed fetch, or a non-2xx or empty answer, is the
 * caller's 400 naming `field`.
 */
export async function fetchImageBytes(fetcher: SafeFetcher, url: string, field: string, maxBytes: number, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Buffer> {
  let response;
  try {
    response = await fetcher.fetch(url, { maxBytes, headers: { accept: 'image/*' }, ...options });
  } catch (error) {
    // FetchRefused (a private or metadata address, too large, too many redirects) and FetchFailed (network).
    if (error instanceof AppError) throw new InvalidInput(`${field}: ${error.message}`, field);
    throw error;
  }
  if (response.status < 200 || response.status > 299) throw new InvalidInput(`${field}: the URL answered HTTP ${response.status}`, field);
  if (response.body.length === 0) throw new InvalidInput(`${field}: the URL answered an empty body`, field);
  return response.body;
}
