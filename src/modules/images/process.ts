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
//
// The parts live beside this file: sniff.ts (what the bytes are), decode.ts (limits and refusals),
// svg.ts, heic.decoder.ts, transform.ts (orientation), analyse.ts (thumbnail, hashes, colour).
import { createHash } from 'node:crypto';
import type { Sharp, SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { analyse, type Analysis } from './analyse.js';
import { boundedInside, decode, ImageRejected, rawOf, readHeader, tooManyPixels, type RawInfo } from './decode.js';
import { HASH_SIZE } from './hash.js';
import { decodeHeic } from './heic.decoder.js';
import { isAvif, sniff } from './sniff.js';
import { rasteriseSvg } from './svg.js';
import { reencodeOriented } from './transform.js';

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

const DEFAULT_THUMBNAIL_SIZE = 320;
/** The served file of a HEIC/HEIF upload. */
const HEIC_JPEG = { quality: 90 } as const;

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
