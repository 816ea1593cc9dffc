// The image at the edge: base64 (with or without a data: prefix) or uploaded bytes, checked to be an
// image of a supported format within the pixel limit, and (for external providers) a copy fit to send.
import type { Metadata } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { z } from 'zod';
import { InvalidInput, PayloadTooLarge } from '../../platform/errors.js';
import { PROVIDER_CHOICES, VISION_TASKS, type InspectedImage } from './vision.types.js';

export const SUPPORTED_FORMATS: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  avif: 'image/avif',
};
const FORMAT_LIST = 'JPEG, PNG, WebP, GIF, TIFF or AVIF';

/** One of a documented list; anything else is refused with the list and what was sent. */
function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => `expected one of ${values.join(', ')} (got '${String(issue.input).slice(0, 40)}')` });
}

const imageFile = z.file({ error: 'expected an uploaded file' });

/**
 * The request of POST /api/vision/analyze and analyzeImage: task, provider, and the image as base64
 * text (blank text is none) or an uploaded file. Fields only: analyzeRequestSchema adds the rule
 * that exactly one image is sent.
 */
export const analyzeFields = z.object({
  task: oneOf(VISION_TASKS).default('all').describe('ocr: the text; describe: caption and labels; all: both'),
  provider: oneOf(PROVIDER_CHOICES).default('auto').describe('auto tries the configured providers in order, then the local one'),
  image_data: z
    .string({ error: 'expected a string' })
    .transform((value) => (value.trim() === '' ? undefined : value))
    .optional()
    .describe(`the image base64-encoded, optionally as a data: URI (${FORMAT_LIST})`),
  image_file: imageFile.optional().describe('the image file'),
});

/** Exactly one image: base64 text or an uploaded file. */
export const analyzeRequestSchema = analyzeFields.superRefine((request, ctx) => {
  if (request.image_data === undefined && !request.image_file) ctx.addIssue({ code: 'custom', path: ['image_data'], message: 'image_data or image_file is required' });
  else if (request.image_data !== undefined && request.image_file) ctx.addIssue({ code: 'custom', path: ['image_data'], message: 'send either image_data or image_file, not both' });
}).describe('exactly one of image_data and image_file');

/**
 * POST /api/ocr (legacy, spec "Versioning"): the same request with task ocr only, and the file also
 * under the name `file` (one file: image_file or file). The service reads it as analyzeRequestSchema.
 */
export const ocrRequestSchema = analyzeFields
  .extend({
    task: z.literal('ocr', { error: '/api/ocr only reads text (task ocr); use /api/vision/analyze for describe or all' }).optional().describe('ocr only (the default)'),
    image_file: imageFile.optional().describe('the image file (multipart/form-data)'),
    file: imageFile.optional().describe('the image file, instead of image_file (multipart/form-data)'),
  })
  .superRefine((request, ctx) => {
    if (request.image_file && request.file) ctx.addIssue({ code: 'custom', path: ['file'], message: 'send one file, in image_file or file' });
  });

const DATA_PREFIX = /^data:([a-z0-9.+/-]*)((?:;[a-z0-9_.+-]+=[a-z0-9_.+"-]+)*)(;base64)?,/i;

/** Base64 (standard or URL-safe alphabet, padding optional, whitespace ignored) into bytes. */
export function decodeBase64(value: string, field: string): Buffer {
  let payload = value.trim();
  const prefix = DATA_PREFIX.exec(payload);
  if (prefix) {
    if (!prefix[3]) throw new InvalidInput(`${field}: a data: URI must be base64-encoded (data:image/png;base64,...)`, field);
    payload = payload.slice(prefix[0].length);
  }
  payload = payload.replace(/\s+/g, '');
  if (payload === '') throw new InvalidInput(`${field}: the image is empty`, field);
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(payload) || payload.replace(/=+$/, '').length % 4 === 1) {
    throw new InvalidInput(`${field}: not valid base64 (send the image's bytes base64-encoded, optionally as a data: URI)`, field);
  }
  return Buffer.from(payload.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** Sniffs the bytes with sharp: refuses what is not an image of a supported format or is too large. */
export async function inspectImage(bytes: Buffer, field: string, limits: { maxPixels: number; maxBytes: number }): Promise<InspectedImage> {
  const sharp = await loadSharp();
  if (bytes.length === 0) throw new InvalidInput(`${field}: the image is empty`, field);
  if (bytes.length > limits.maxBytes) throw new PayloadTooLarge(`${field}: the image is larger than the limit of ${limits.maxBytes} bytes`);
  let metadata: Metadata;
  try {
    metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new InvalidInput(`${field}: not an image (expected ${FORMAT_LIST})`, field);
  }
  // sharp names AVIF by its container (heif, with av1 compression); HEIC (hevc) it cannot decode.
  const format = metadata.format === 'heif' ? (metadata.compression === 'av1' ? 'avif' : 'heic') : (metadata.format ?? 'unknown');
  const mime = SUPPORTED_FORMATS[format];
  if (!mime) throw new InvalidInput(`${field}: unsupported image format ${format} (expected ${FORMAT_LIST})`, field);
  const width = metadata.width ?? 0;
  const height = metadata.height ?? 0;
  if (width <= 0 || height <= 0) throw new InvalidInput(`${field}: the image has no size`, field);
  if (width * height > limits.maxPixels) {
    throw new InvalidInput(`${field}: the image has ${width}x${height} pixels, more than the limit of ${limits.maxPixels} pixels`, field);
  }
  return { bytes, format, mime, width, height };
}

/** Long side and size external providers are sent at most (their own limits are near these). */
export const UPLOAD_MAX_SIDE = 2048;
export const UPLOAD_MAX_BYTES = 4 * 1024 * 1024;

/**
 * The image as sent to an external provider: unchanged when it is a JPEG, PNG or WebP within the
 * limits above; otherwise turned upright, reduced and re-encoded as JPEG.
 */
export async function forUpload(image: InspectedImage): Promise<InspectedImage> {
  const sharp = await loadSharp();
  const fits = ['jpeg', 'png', 'webp'].includes(image.format) && Math.max(image.width, image.height) <= UPLOAD_MAX_SIDE && image.bytes.length <= UPLOAD_MAX_BYTES;
  if (fits) return image;
  const { data, info } = await sharp(image.bytes, { limitInputPixels: false })
    .rotate()
    .resize(UPLOAD_MAX_SIDE, UPLOAD_MAX_SIDE, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .jpeg({ quality: 90 })
    .toBuffer({ resolveWithObject: true });
  return { bytes: data, format: 'jpeg', mime: 'image/jpeg', width: info.width, height: info.height };
}
