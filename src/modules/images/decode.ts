// Decoding untrusted image bytes with sharp (libvips) within limits: the header is read first
// (metadata() decodes no pixels) so width x height over `maxPixels` is refused before any decoding,
// every sharp call gets `limitInputPixels`, and sharp's failures become ImageRejected (a 400, or a
// 413 for sizes) naming `file`, with sharp's reason cut short.
import type { Metadata, OutputInfo, ResizeOptions, SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { AppError, ErrorCode } from '../../platform/errors.js';

export class ImageRejected extends AppError {
  constructor(reason: string, status: 400 | 413 = 400) {
    super(`file: ${reason}`, status, ErrorCode.ImageRejected, 'file');
  }
}

export interface Raster {
  data: Buffer;
  info: OutputInfo;
}

export type RawInfo = { width: number; height: number; channels: 1 | 2 | 3 | 4 };

export function rawOf(info: OutputInfo): RawInfo {
  return { width: info.width, height: info.height, channels: info.channels };
}

/** Resize options that fit an image inside a square of that side, never enlarging it. */
export function boundedInside(size: number): ResizeOptions {
  return { width: size, height: size, fit: 'inside', withoutEnlargement: true };
}

function isPixelLimit(error: unknown): boolean {
  return error instanceof Error && /pixel limit/i.test(error.message);
}

export function tooManyPixels(dimensions: string | null, maxPixels: number): ImageRejected {
  const limit = `the ${maxPixels.toLocaleString('en-US')}-pixel limit`;
  return new ImageRejected(
    dimensions === null
      ? `the image declares more pixels than ${limit}; refused before decoding`
      : `the image is ${dimensions} pixels, over ${limit}; refused before decoding`,
    413,
  );
}

/** sharp's own reason, without its stack, the "Input buffer" boilerplate or libvips' seek retries (HEIF). */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .replace(/^Input buffer (has corrupt header|contains unsupported image format):?\s*/i, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^source: bad seek to \d+$/.test(line));
  return lines.join(' ').slice(0, 200) || 'corrupt data';
}

export async function readHeader(body: Buffer, input: SharpOptions, format: string): Promise<Metadata> {
  const sharp = await loadSharp();
  try {
    return await sharp(body, input).metadata();
  } catch (error) {
    if (isPixelLimit(error)) throw tooManyPixels(null, input.limitInputPixels as number);
    throw new ImageRejected(`the ${format} image could not be read (${reason(error)})`);
  }
}

/** Runs a sharp job on upload bytes, turning its failures into ImageRejected. */
export async function decode<T>(job: () => Promise<T>, format: string, maxPixels: number): Promise<T> {
  try {
    return await job();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isPixelLimit(error)) throw tooManyPixels(null, maxPixels);
    if (error instanceof Error && /timeout/i.test(error.message)) throw new ImageRejected(`the ${format} image took too long to decode`);
    throw new ImageRejected(`the ${format} image could not be decoded (${reason(error)})`);
  }
}
