// The upload pipeline's file processing as one pure function: what the bytes are (magic numbers,
// never the name or the declared type), and for images the facts the media library stores —
// dimensions after EXIF orientation, a WebP thumbnail, a dominant colour (hex + CIE Lab), a 64-bit
// DCT pHash, a 256-bit blockhash — plus the bytes to store.
//
// Work sharing: an image is decoded once, by libvips, straight to a small oriented sRGB raster that
// fits inside max(thumbnailSize, 256) px (JPEG shrink-on-load makes that decode cheap). The
// thumbnail, both hashes and the colour all come from that raster. The full-resolution image is
// only decoded again when it has to be re-encoded (EXIF orientation != 1, or SVG rasterisation).
//
// HEIC/HEIF (phones' default): sharp reads the header but its libvips has no HEVC decoder, so the
// pixels come from libheif in WebAssembly (heic.decoder.ts, in a worker thread), decoded once to a
// full-size raster that everything else is made from, as for SVG. The served file is a JPEG; the
// HEIC itself is handed back as `original` for the caller to keep privately.
//
// Safety: the header is read first (sharp's metadata() does not decode pixels) and width x height
// above `maxPixels` is refused before any decoding; every sharp call also gets
// `limitInputPixels: maxPixels`. SVG is never stored or served: it is rasterised to PNG with a size
// cap and a render timeout (librsvg does not fetch external resources from a buffer and refuses
// XML entity amplification).
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileTypeFromBuffer } from 'file-type';
import type { Metadata, OutputInfo, ResizeOptions, Sharp, SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { bmvbhash } from 'blockhash-core';
import { AppError, ErrorCode } from '../../platform/errors.js';
import { hexToLab, labToHex, rgbToLab, type Lab } from './colour.js';
import { decodeHeic } from './heic.decoder.js';
import { detailOf, isLowInformation } from './information.js';

export interface ProcessLimits {
  maxBytes: number;
  maxPixels: number;
  /** Longest side of the thumbnail in pixels. Default 320. */
  thumbnailSize?: number;
}

export interface ProcessedImage {
  /** Sniffed from the bytes (magic numbers), never from the name or declared type. */
  kind: 'image' | 'video' | 'document';
  /**
   * What the stored bytes are. For SVG uploads that is the rasterised PNG (image/png, png), for
   * HEIC/HEIF the JPEG made from it (image/jpeg, jpg); `format` says 'svg' or 'heif'.
   */
  mime: string;
  ext: string;
  /** Size and SHA-256 (hex) of the uploaded bytes. */
  bytes: number;
  sha256: string;
  /** After EXIF orientation (swapped for 90/270). For animated images, one frame. Null unless kind is image. */
  width: number | null;
  height: number | null;
  /** The decoder's name for the uploaded format: jpeg, png, webp, gif, avif, heif, tiff, svg. */
  format: string | null;
  /** True when the stored image was re-encoded to apply its EXIF orientation. */
  orientationApplied: boolean;
  dominantColour: { hex: string; lab: [number, number, number] } | null;
  /** 64-bit DCT perceptual hash (sharp-phash), 16 hex chars. */
  phash: string | null;
  /** 256-bit blockhash (blockhash-core, 16x16 blocks), 64 hex chars. */
  blockhash: string | null;
  /**
   * Too little information for a perceptual hash (flat, a smooth gradient, almost blank, or tiny:
   * information.ts): such an image is the same as another only by its exact bytes. Null unless kind is image.
   */
  lowInformation: boolean | null;
  thumbnail: { body: Buffer; mime: 'image/webp'; width: number; height: number } | null;
  /**
   * The bytes to store: the original, unless it had to be re-encoded (EXIF orientation applied →
   * re-encoded in the same format at high quality, metadata stripped except the ICC profile; SVG →
   * rasterised PNG, the SVG itself is never stored; HEIC/HEIF → JPEG, quality 90, no metadata).
   */
  stored: { body: Buffer; mime: string; ext: string };
  /**
   * The uploaded bytes, when `stored` is a conversion made because the format is not served
   * (HEIC/HEIF: image/heic or image/heif, heic), to keep privately; null otherwise.
   */
  original: { body: Buffer; mime: string; ext: string } | null;
}

export class ImageRejected extends AppError {
  constructor(reason: string, status: 400 | 413 = 400) {
    super(`file: ${reason}`, status, ErrorCode.ImageRejected, 'file');
  }
}

// sharp-phash is CommonJS (`module.exports = phash`) while its typings declare a default export.
// Required on first use: it loads sharp (see platform/sharp.ts).
const phash = (image: Buffer, options?: SharpOptions): Promise<string> =>
  (createRequire(import.meta.url)('sharp-phash') as (image: Buffer, options?: SharpOptions) => Promise<string>)(image, options);

const DEFAULT_THUMBNAIL_SIZE = 320;
/** Side of the square RGBA raster blockhash (and the colour) is computed from. */
const HASH_SIZE = 256;
const BLOCKHASH_BITS = 16; // 16 x 16 = 256 bits
/** Side of the grid the dominant colour is clustered on (box averages of the hash raster). */
const COLOUR_GRID = 64;
/** Longest side an SVG is rasterised to. */
const SVG_MAX_SIDE = 2048;
const SVG_TIMEOUT_SECONDS = 10;
const THUMBNAIL_WEBP = { quality: 80 } as const;
/** Brands read from a HEIF file's ftyp box; real files list a handful. */
const MAX_BRANDS = 32;
/** Re-encoding after applying EXIF orientation: same format, high quality. */
const REENCODE_QUALITY = 92;
/** The served file of a HEIC/HEIF upload. */
const HEIC_JPEG = { quality: 90 } as const;

type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'avif' | 'tiff' | 'svg' | 'heif';
interface Sniffed {
  kind: ProcessedImage['kind'];
  mime: string;
  ext: string;
  /** For images: the sharp format to decode with. */
  image?: ImageFormat;
}

const IMAGE_TYPES: Record<string, ImageFormat> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/apng': 'png', // sharp decodes the default image; the stored original keeps the animation
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/tiff': 'tiff',
  // file-type's names for the HEIF brands (ext heic for all); sequences are decoded by their primary image.
  'image/heic': 'heif',
  'image/heif': 'heif',
  'image/heic-sequence': 'heif',
  'image/heif-sequence': 'heif',
};
const VIDEO_TYPES = new Set(['video/mp4', 'video/x-m4v', 'video/webm', 'video/quicktime']);
const DOCUMENT_TYPE =
  /^application\/(pdf|zip|rtf|x-cfb|msword|vnd\.ms-(excel|powerpoint)|vnd\.openxmlformats-officedocument\.(wordprocessingml\.document|spreadsheetml\.sheet|presentationml\.(presentation|slideshow))|vnd\.oasis\.opendocument\.(text|spreadsheet|presentation))$/;

export async function processUpload(body: Buffer, limits: ProcessLimits): Promise<ProcessedImage> {
  const sharp = await loadSharp();
  const { maxBytes, maxPixels } = limits;
  const thumbnailSize = limits.thumbnailSize ?? DEFAULT_THUMBNAIL_SIZE;
  if (!(maxBytes > 0) || !Number.isInteger(maxPixels) || maxPixels <= 0) throw new RangeError('processUpload: maxBytes and maxPixels must be positive');
  if (!Number.isInteger(thumbnailSize) || thumbnailSize < 16 || thumbnailSize > 4096) throw new RangeError('processUpload: thumbnailSize must be an integer from 16 to 4096');

  if (body.length === 0) throw new ImageRejected('the file is empty');
  if (body.length > maxBytes) {
    throw new ImageRejected(`${body.length.toLocaleString('en-US')} bytes is over the ${maxBytes.toLocaleString('en-US')}-byte limit`, 413);
  }
  let sniffed = await sniff(body);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const common = { bytes: body.length, sha256 };

  if (!sniffed.image) {
    return {
      kind: sniffed.kind,
      mime: sniffed.mime,
      ext: sniffed.ext,
      ...common,
      width: null,
      height: null,
      format: null,
      orientationApplied: false,
      dominantColour: null,
      phash: null,
      blockhash: null,
      lowInformation: null,
      thumbnail: null,
      stored: { body, mime: sniffed.mime, ext: sniffed.ext },
      original: null,
    };
  }
  const input: SharpOptions = { limitInputPixels: maxPixels };
  const bound = Math.max(thumbnailSize, HASH_SIZE);

  if (sniffed.image === 'svg') {
    const raster = await rasteriseSvg(body, maxPixels);
    const { stored, ...analysis } = await fromRaster(raster.data, rawOf(raster.info), (image) => image.png(), 'svg', input, thumbnailSize);
    return {
      kind: 'image',
      mime: 'image/png',
      ext: 'png',
      ...common,
      width: raster.info.width,
      height: raster.info.height,
      format: 'svg',
      orientationApplied: false,
      ...analysis,
      stored: { body: stored, mime: 'image/png', ext: 'png' },
      original: null,
    };
  }

  // Header only: refuse oversized images before any pixel is decoded.
  const meta = await readHeader(body, input, sniffed.image);
  const pixels = meta.width * meta.height;
  if (pixels > maxPixels) throw tooManyPixels(`${meta.width}x${meta.height}`, maxPixels);
  if (sniffed.image === 'heif') {
    // AVIF under the generic HEIF brand (mif1), as some encoders write it: sharp decodes AV1 itself.
    if (isAvif(body)) sniffed = { kind: 'image', mime: 'image/avif', ext: 'avif', image: 'avif' };
    else return { ...(await processHeic(body, sniffed.mime, input, thumbnailSize)), ...common };
  }
  const orientation = meta.orientation ?? 1;
  const swap = orientation >= 5 && orientation <= 8;
  // sharp cannot rotate multi-page images (and re-encoding one page would lose the others): an
  // oriented animation or multi-page TIFF is stored as uploaded. The analysis uses the first page.
  const reencode = orientation !== 1 && (meta.pages ?? 1) === 1;

  const [small, reencoded] = await Promise.all([
    decode(
      () =>
        sharp(body, input)
          .rotate()
          .resize(boundedInside(bound))
          .toColourspace('srgb')
          .raw()
          .toBuffer({ resolveWithObject: true }),
      sniffed.ext,
      maxPixels,
    ),
    reencode ? decode(() => reencodeOriented(body, input, sniffed.image!, meta), sniffed.ext, maxPixels) : Promise.resolve(null),
  ]);
  const analysis = await analyse(small, thumbnailSize, input, pixels);
  return {
    kind: 'image',
    mime: sniffed.mime,
    ext: sniffed.ext,
    ...common,
    width: swap ? meta.height : meta.width,
    height: swap ? meta.width : meta.height,
    // libvips names AVIF by its container, heif.
    format: sniffed.image === 'avif' ? 'avif' : meta.format,
    orientationApplied: reencoded !== null,
    ...analysis,
    stored: { body: reencoded ?? body, mime: sniffed.mime, ext: sniffed.ext },
    original: null,
  };
}

/**
 * HEIC/HEIF: one decode of the primary image (upright: libheif applies the file's rotation and
 * mirroring, so the EXIF orientation, which HEIF says to ignore, is not applied), the served JPEG
 * and the analysis from that raster. Transparency is flattened onto white in the JPEG only.
 */
async function processHeic(body: Buffer, mime: string, input: SharpOptions, thumbnailSize: number): Promise<Omit<ProcessedImage, 'bytes' | 'sha256'>> {
  const maxPixels = input.limitInputPixels as number;
  const decoded = await decodeHeic(body, maxPixels);
  if (!decoded.ok) {
    if ('tooManyPixels' in decoded) throw tooManyPixels(`${decoded.tooManyPixels.width}x${decoded.tooManyPixels.height}`, maxPixels);
    throw new ImageRejected(`the heif image could not be decoded (${decoded.reason.slice(0, 200)})`);
  }
  const { width, height, channels } = decoded;
  // The container's size was checked before decoding; a stream that decodes larger is refused too.
  if (width * height > maxPixels) {
    throw new ImageRejected(`the image decoded to ${width}x${height} pixels, over the ${maxPixels.toLocaleString('en-US')}-pixel limit`, 413);
  }
  const pixels = Buffer.from(decoded.data.buffer, decoded.data.byteOffset, decoded.data.byteLength);
  const encode = (image: Sharp) => (channels === 4 ? image.flatten({ background: '#ffffff' }) : image).jpeg(HEIC_JPEG);
  const { stored, ...analysis } = await fromRaster(pixels, { width, height, channels }, encode, 'heif', input, thumbnailSize);
  return {
    kind: 'image',
    mime: 'image/jpeg',
    ext: 'jpg',
    width,
    height,
    format: 'heif',
    orientationApplied: false,
    ...analysis,
    stored: { body: stored, mime: 'image/jpeg', ext: 'jpg' },
    original: { body, mime, ext: 'heic' },
  };
}

/**
 * For formats decoded to a full-size raster outside libvips' own loaders (SVG rendering, HEIC):
 * the bytes to store, encoded by `encode`, and the analysis of a bounded copy, made side by side.
 */
async function fromRaster(
  pixels: Buffer,
  raw: RawInfo,
  encode: (image: Sharp) => Sharp,
  format: string,
  input: SharpOptions,
  thumbnailSize: number,
): Promise<Analysis & { stored: Buffer }> {
  const sharp = await loadSharp();
  const maxPixels = input.limitInputPixels as number;
  const rawInput: SharpOptions = { ...input, raw };
  const bound = Math.max(thumbnailSize, HASH_SIZE);
  const [stored, small] = await Promise.all([
    decode(() => encode(sharp(pixels, rawInput)).toBuffer(), format, maxPixels),
    decode(() => sharp(pixels, rawInput).resize(boundedInside(bound)).raw().toBuffer({ resolveWithObject: true }), format, maxPixels),
  ]);
  return { ...(await analyse(small, thumbnailSize, input, raw.width * raw.height)), stored };
}

/** Hamming distance between two equal-length hex hashes (pHash: 0-64, blockhash: 0-256). */
export function hammingDistance(hexA: string, hexB: string): number {
  if (hexA.length !== hexB.length) throw new RangeError(`hammingDistance: hashes differ in length (${hexA.length} and ${hexB.length} hex digits)`);
  if (!/^[0-9a-f]*$/i.test(hexA) || !/^[0-9a-f]*$/i.test(hexB)) throw new RangeError('hammingDistance: hashes must be hex strings');
  let distance = 0;
  for (let i = 0; i < hexA.length; i += 6) {
    let x = Number.parseInt(hexA.slice(i, i + 6), 16) ^ Number.parseInt(hexB.slice(i, i + 6), 16);
    while (x) {
      x &= x - 1;
      distance++;
    }
  }
  return distance;
}

// ---------------------------------------------------------------------------------------------
// Sniffing

async function sniff(body: Buffer): Promise<Sniffed> {
  const detected = await fileTypeFromBuffer(body);
  if (detected) {
    const image = IMAGE_TYPES[detected.mime];
    if (image) return { kind: 'image', mime: detected.mime, ext: detected.ext, image };
    if (VIDEO_TYPES.has(detected.mime)) return { kind: 'video', mime: detected.mime, ext: detected.ext };
    if (DOCUMENT_TYPE.test(detected.mime)) return { kind: 'document', mime: detected.mime, ext: detected.ext };
  }
  // Text formats have no magic number: file-type says nothing (or "xml") for them.
  if (!detected || detected.mime === 'application/xml') {
    const text = decodeUtf8(body.subarray(0, 64 * 1024), body.length > 64 * 1024);
    if (text !== null && isSvg(text)) return { kind: 'image', mime: 'image/svg+xml', ext: 'svg', image: 'svg' };
    if (!detected && text !== null && isCsv(text, body.length > 64 * 1024)) return { kind: 'document', mime: 'text/csv', ext: 'csv' };
    if (!detected) {
      throw new ImageRejected(`not a supported image, video or document (detected ${text !== null ? 'plain text' : 'unknown binary data'})`);
    }
  }
  throw new ImageRejected(`not a supported image, video or document (detected ${detected!.mime})`);
}

/**
 * Whether a HEIF file's brands (major and compatible, from its leading ftyp box, which file-type
 * found) name AVIF and no HEVC brand. libvips cannot tell: it reports the compression from the major
 * brand alone.
 */
function isAvif(body: Buffer): boolean {
  const end = Math.min(body.readUInt32BE(0), body.length, 16 + 4 * MAX_BRANDS);
  const brands: string[] = [];
  // Major brand at 8, minor version at 12, compatible brands from 16.
  for (let at = 8; at + 4 <= end; at += at === 8 ? 8 : 4) brands.push(body.toString('latin1', at, at + 4));
  return brands.some((brand) => brand === 'avif' || brand === 'avis') && !brands.some((brand) => /^he[iv][cx]$/.test(brand));
}

/** The text, when the bytes are UTF-8 without control characters other than tab, CR and LF. */
function decodeUtf8(bytes: Buffer, truncated: boolean): string | null {
  let end = bytes.length;
  if (truncated) {
    // The prefix may cut a multi-byte character: drop from the last lead byte on.
    for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
      if ((bytes[i]! & 0xc0) !== 0x80) {
        end = bytes[i]! < 0x80 ? i + 1 : i;
        break;
      }
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    return null;
  }
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(text) ? null : text;
}

function isSvg(text: string): boolean {
  const head = text.replace(/^\uFEFF/, '').slice(0, 8192);
  // Prolog (XML declaration, comments, doctype, processing instructions), then the <svg> root.
  return /^\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>|<\?[\s\S]*?\?>)\s*)*<svg[\s>/]/i.test(head);
}

/**
 * At least two comma-, semicolon- or tab-separated rows (of the first 50) with the same number of
 * fields, two or more. Quoted fields spanning lines are not followed: such files are refused.
 */
function isCsv(text: string, truncated: boolean): boolean {
  const body = text.replace(/^\uFEFF/, '');
  if (/^\s*</.test(body)) return false; // markup, not data
  const lines = body.split(/\r\n|\n|\r/);
  if (truncated) lines.pop(); // cut mid-row
  const rows = lines.filter((line) => line.trim() !== '').slice(0, 50);
  if (rows.length < 2) return false;
  return [',', ';', '\t'].some((delimiter) => {
    const counts = rows.map((line) => fieldCount(line, delimiter));
    return counts[0]! >= 2 && counts.every((c) => c === counts[0]);
  });
}

function fieldCount(line: string, delimiter: string): number {
  let fields = 1;
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === delimiter && !quoted) fields++;
  }
  return fields;
}

// ---------------------------------------------------------------------------------------------
// Decoding

interface Raster {
  data: Buffer;
  info: OutputInfo;
}

type RawInfo = { width: number; height: number; channels: 1 | 2 | 3 | 4 };

function rawOf(info: OutputInfo): RawInfo {
  return { width: info.width, height: info.height, channels: info.channels };
}

function boundedInside(size: number): ResizeOptions {
  return { width: size, height: size, fit: 'inside', withoutEnlargement: true };
}

function isPixelLimit(error: unknown): boolean {
  return error instanceof Error && /pixel limit/i.test(error.message);
}

function tooManyPixels(dimensions: string | null, maxPixels: number): ImageRejected {
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

async function readHeader(body: Buffer, input: SharpOptions, format: string): Promise<Metadata> {
  const sharp = await loadSharp();
  try {
    return await sharp(body, input).metadata();
  } catch (error) {
    if (isPixelLimit(error)) throw tooManyPixels(null, input.limitInputPixels as number);
    throw new ImageRejected(`the ${format} image could not be read (${reason(error)})`);
  }
}

/** Runs a sharp job on upload bytes, turning its failures into ImageRejected. */
async function decode<T>(job: () => Promise<T>, format: string, maxPixels: number): Promise<T> {
  try {
    return await job();
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (isPixelLimit(error)) throw tooManyPixels(null, maxPixels);
    if (error instanceof Error && /timeout/i.test(error.message)) throw new ImageRejected(`the ${format} image took too long to decode`);
    throw new ImageRejected(`the ${format} image could not be decoded (${reason(error)})`);
  }
}

/** The full-size image with its EXIF orientation applied, in its own format; metadata except ICC dropped. */
async function reencodeOriented(body: Buffer, input: SharpOptions, format: ImageFormat, meta: Metadata): Promise<Buffer> {
  const sharp = await loadSharp();
  let pipeline: Sharp = sharp(body, input).rotate();
  if (meta.hasProfile) pipeline = pipeline.keepIccProfile();
  switch (format) {
    case 'jpeg':
      return pipeline.jpeg({ quality: REENCODE_QUALITY, chromaSubsampling: meta.chromaSubsampling === '4:4:4' ? '4:4:4' : '4:2:0' }).toBuffer();
    case 'png':
      // Lossless; 16-bit stays 16-bit.
      if (meta.depth === 'ushort') pipeline = pipeline.toColourspace(meta.channels <= 2 ? 'grey16' : 'rgb16');
      return pipeline.png().toBuffer();
    case 'webp':
      return pipeline.webp(webpIsLossless(body) ? { lossless: true } : { quality: REENCODE_QUALITY }).toBuffer();
    case 'avif':
      return pipeline.avif({ quality: 80 }).toBuffer();
    case 'tiff':
      return pipeline.tiff({ compression: 'lzw' }).toBuffer();
    default:
      return pipeline.png().toBuffer();
  }
}

/** Whether the first image chunk of a WebP (RIFF) file is VP8L, the lossless codec. */
function webpIsLossless(body: Buffer): boolean {
  for (let offset = 12; offset + 8 <= body.length; ) {
    const fourcc = body.toString('latin1', offset, offset + 4);
    if (fourcc === 'VP8L') return true;
    if (fourcc === 'VP8 ') return false;
    offset += 8 + body.readUInt32LE(offset + 4) + (body.readUInt32LE(offset + 4) % 2);
  }
  return false;
}

/**
 * Rasterises an SVG to RGBA, rendered directly at a size that fits inside SVG_MAX_SIDE. Refused
 * before any rendering: filters and entity declarations (refuseCostlySvg), and a declared size
 * (width and height, or the viewBox, as librsvg reads them from the header at 72 dpi) over maxPixels, as
 * for every other format.
 */
async function rasteriseSvg(body: Buffer, maxPixels: number): Promise<Raster> {
  refuseCostlySvg(body);
  const sharp = await loadSharp();
  const input: SharpOptions = { limitInputPixels: maxPixels };
  const { width, height } = await readHeader(body, input, 'svg');
  if (width * height > maxPixels) throw tooManyPixels(`${width}x${height}`, maxPixels);
  const scale = Math.min(1, SVG_MAX_SIDE / Math.max(width, height));
  const density = Math.min(100_000, Math.max(1, 72 * scale));
  return decode(
    () =>
      sharp(body, { ...input, density })
        .timeout({ seconds: SVG_TIMEOUT_SECONDS })
        .resize(boundedInside(SVG_MAX_SIDE))
        .ensureAlpha()
        .toColourspace('srgb')
        .raw()
        .toBuffer({ resolveWithObject: true }),
    'svg',
    maxPixels,
  );
}

/**
 * SVG whose rendering cost nothing bounds is refused before librsvg renders a pixel: filter effects
 * (a 300-byte feTurbulence or a huge feGaussianBlur cost seconds of CPU at any size), CSS filter
 * functions, and entity declarations (whose text could spell them out of this check's sight).
 * Character references and CSS escapes are read as what they spell first, CSS comments are
 * dropped (`filter/**\/: blur(...)` is a filter declaration), and what data: URLs carry (an
 * <image> of an SVG, an xml-stylesheet of CSS, which librsvg loads) is checked the same way.
 */
function refuseCostlySvg(body: Buffer, depth = 0): void {
  const text = body.toString('utf8');
  if (/<!ENTITY/i.test(text)) throw new ImageRejected('SVG with entity declarations (<!ENTITY) is not accepted');
  const spelled = text
    .replace(/&#x([0-9a-f]{1,6});?/gi, (_match, hex: string) => codePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d{1,7});?/g, (_match, digits: string) => codePoint(Number(digits)))
    .replace(/\\([0-9a-f]{1,6})\s?/gi, (_match, hex: string) => codePoint(Number.parseInt(hex, 16)))
    .replace(/\\(.)/g, '$1')
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, '');
  if (/<(?:[\w.-]+:)?(?:filter[\s/>]|fe[A-Z])/.test(spelled) || /filter\s*[:=]/i.test(spelled)) {
    throw new ImageRejected('SVG filters (filter, feTurbulence, feGaussianBlur, feConvolveMatrix ...) are not accepted: their rendering cost has no bound; flatten the image (PNG) first');
  }
  // The media type and parameters are short (bounded, so a text of many "data:" is read once).
  for (const [, meta, payload] of spelled.matchAll(/data:([^,"'()]{0,200}),([^"'()]*)/gi)) {
    // Base64 when the parameters say so anywhere (a plain payload read as base64 too is harmless: its text was read above).
    const base64 = /;\s*base64/i.test(meta!);
    // Plain text is part of this text, checked above; only what decoding reveals is read again.
    if (!base64 && !payload!.includes('%')) continue;
    if (depth >= MAX_DATA_URL_DEPTH) throw new ImageRejected(`SVG with data: URLs nested more than ${MAX_DATA_URL_DEPTH} deep is not accepted`);
    const bytes = dataUrlBytes(base64, payload!);
    // Compressed, it could be a gzipped SVG (librsvg inflates one) that no text check sees into.
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) throw new ImageRejected('SVG with a compressed (gzip) data: URL is not accepted');
    // A raster (PNG, JPEG ...: binary, with NUL bytes) carries no filter; text (SVG, CSS) is checked.
    if (!bytes.includes(0)) refuseCostlySvg(bytes, depth + 1);
  }
}

/** Data URLs inside data URLs inside the SVG: deeper is refused (each level is decoded and read again). */
const MAX_DATA_URL_DEPTH = 3;

/** The bytes a data: URL carries (percent-decoded, then base64-decoded when it says so). */
function dataUrlBytes(base64: boolean, payload: string): Buffer {
  const bytes = Buffer.from(payload.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))), 'latin1');
  return base64 ? Buffer.from(bytes.toString('latin1').replace(/\s+/g, ''), 'base64') : bytes;
}

function codePoint(code: number): string {
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '';
}

// ---------------------------------------------------------------------------------------------
// Analysis of the small raster: thumbnail, hashes, dominant colour

type Analysis = Pick<ProcessedImage, 'thumbnail' | 'phash' | 'blockhash' | 'lowInformation' | 'dominantColour'>;

/** `pixels`: the whole image's, for the low-information rule's size floor. */
async function analyse(small: Raster, thumbnailSize: number, input: SharpOptions, pixels: number): Promise<Analysis> {
  const sharp = await loadSharp();
  const { data, info } = small;
  const rawInput: SharpOptions = { ...input, raw: rawOf(info) };
  const needsResize = info.width > thumbnailSize || info.height > thumbnailSize;
  // sharp-phash greys and resizes whatever it is given; with an alpha band its raw output would
  // interleave grey and alpha, so it gets the raster flattened onto white.
  const opaque = info.channels === 3 ? data : flattenOnWhite(data, info.channels);
  const [thumbnail, phashBits, hashRaster] = await Promise.all([
    (needsResize ? sharp(data, rawInput).resize(boundedInside(thumbnailSize)) : sharp(data, rawInput))
      .webp(THUMBNAIL_WEBP)
      .toBuffer({ resolveWithObject: true }),
    phash(opaque, { ...input, raw: { width: info.width, height: info.height, channels: 3 } }),
    sharp(data, rawInput).resize(HASH_SIZE, HASH_SIZE, { fit: 'fill' }).ensureAlpha().raw().toBuffer(),
  ]);
  const blockhash = bmvbhash({ width: HASH_SIZE, height: HASH_SIZE, data: hashRaster }, BLOCKHASH_BITS);
  return {
    thumbnail: { body: thumbnail.data, mime: 'image/webp', width: thumbnail.info.width, height: thumbnail.info.height },
    phash: bitsToHex(phashBits),
    blockhash,
    lowInformation: isLowInformation({ pixels, detail: detailOf(hashRaster, HASH_SIZE), blockhash }),
    dominantColour: dominantColour(hashRaster, HASH_SIZE),
  };
}

function flattenOnWhite(data: Buffer, channels: number): Buffer {
  const pixels = data.length / channels;
  const out = Buffer.allocUnsafe(pixels * 3);
  for (let p = 0; p < pixels; p++) {
    const i = p * channels;
    const alpha = data[i + channels - 1]!;
    const white = 255 * (255 - alpha);
    for (let c = 0; c < 3; c++) {
      const v = channels >= 3 ? data[i + c]! : data[i]!; // grey + alpha repeats the grey
      out[p * 3 + c] = Math.round((v * alpha + white) / 255);
    }
  }
  return out;
}

function bitsToHex(bits: string): string {
  let hex = '';
  for (let i = 0; i < bits.length; i += 4) hex += Number.parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}

/**
 * Dominant colour, "k-means-lite" in CIE Lab: the square RGBA hash raster is box-averaged to a
 * 64x64 grid (alpha-weighted; fully transparent cells ignored), each cell converted to Lab (D65);
 * seeds are the centres of the most populated cells of a coarse Lab histogram (L 10, a/b 12 units
 * wide) at least 10 ΔE*ab apart, at most six of them; up to ten Lloyd iterations with Euclidean Lab
 * distance; the dominant colour is the centroid of the cluster holding the largest (alpha) weight.
 * Clustering in Lab groups pixels by perceived similarity, so a textured red surface yields one red
 * rather than being split across RGB histogram bins. Null for a fully transparent image.
 */
function dominantColour(rgba: Buffer, size: number): { hex: string; lab: Lab } | null {
  const cell = size / COLOUR_GRID;
  const count = COLOUR_GRID * COLOUR_GRID;
  const L = new Float64Array(count);
  const A = new Float64Array(count);
  const B = new Float64Array(count);
  const W = new Float64Array(count);
  let n = 0;
  for (let gy = 0; gy < COLOUR_GRID; gy++) {
    for (let gx = 0; gx < COLOUR_GRID; gx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let y = gy * cell; y < (gy + 1) * cell; y++) {
        for (let x = gx * cell; x < (gx + 1) * cell; x++) {
          const i = (y * size + x) * 4;
          const alpha = rgba[i + 3]!;
          r += rgba[i]! * alpha;
          g += rgba[i + 1]! * alpha;
          b += rgba[i + 2]! * alpha;
          a += alpha;
        }
      }
      if (a === 0) continue;
      const [l, la, lb] = rgbToLab(Math.round(r / a), Math.round(g / a), Math.round(b / a));
      L[n] = l;
      A[n] = la;
      B[n] = lb;
      W[n] = a;
      n++;
    }
  }
  if (n === 0) return null;

  // Seeds from a coarse Lab histogram.
  const bins = new Map<number, { w: number; l: number; a: number; b: number }>();
  for (let i = 0; i < n; i++) {
    const key = Math.floor(L[i]! / 10) * 10_000 + (Math.floor(A[i]! / 12) + 20) * 100 + (Math.floor(B[i]! / 12) + 20);
    const bin = bins.get(key) ?? { w: 0, l: 0, a: 0, b: 0 };
    bin.w += W[i]!;
    bin.l += L[i]! * W[i]!;
    bin.a += A[i]! * W[i]!;
    bin.b += B[i]! * W[i]!;
    bins.set(key, bin);
  }
  const centres: Lab[] = [];
  for (const bin of [...bins.values()].sort((x, y) => y.w - x.w)) {
    const c: Lab = [bin.l / bin.w, bin.a / bin.w, bin.b / bin.w];
    if (centres.every((d) => (d[0] - c[0]) ** 2 + (d[1] - c[1]) ** 2 + (d[2] - c[2]) ** 2 >= 100)) centres.push(c);
    if (centres.length === 6) break;
  }

  const k = centres.length;
  const assignment = new Int32Array(n).fill(-1);
  const weights = new Float64Array(k);
  for (let iteration = 0; iteration < 10; iteration++) {
    let changed = false;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestDistance = Infinity;
      for (let j = 0; j < k; j++) {
        const c = centres[j]!;
        const d = (L[i]! - c[0]) ** 2 + (A[i]! - c[1]) ** 2 + (B[i]! - c[2]) ** 2;
        if (d < bestDistance) {
          bestDistance = d;
          best = j;
        }
      }
      if (assignment[i] !== best) {
        assignment[i] = best;
        changed = true;
      }
    }
    if (!changed) break;
    const sums = Array.from({ length: k }, () => [0, 0, 0] as Lab);
    weights.fill(0);
    for (let i = 0; i < n; i++) {
      const j = assignment[i]!;
      const w = W[i]!;
      sums[j]![0] += L[i]! * w;
      sums[j]![1] += A[i]! * w;
      sums[j]![2] += B[i]! * w;
      weights[j]! += w;
    }
    for (let j = 0; j < k; j++) {
      if (weights[j]! > 0) centres[j] = [sums[j]![0] / weights[j]!, sums[j]![1] / weights[j]!, sums[j]![2] / weights[j]!];
    }
  }
  weights.fill(0);
  for (let i = 0; i < n; i++) weights[assignment[i]!]! += W[i]!;
  let dominant = 0;
  for (let j = 1; j < k; j++) if (weights[j]! > weights[dominant]!) dominant = j;
  const hex = labToHex(centres[dominant]!);
  // The Lab of the hex colour itself (so it matches hexToLab(hex) in search), float noise rounded off.
  const lab = hexToLab(hex).map((v) => Math.round(v * 1e4) / 1e4 + 0) as Lab;
  return { hex, lab };
}
