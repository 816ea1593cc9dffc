// Watermark overlay (spec "Watermark", GET or POST /api/watermark): fetches the image and the overlay
// through the SSRF-safe fetcher, composites the overlay at a position with an opacity, stores the
// result under the caller's account and describes a signed URL that serves it.
//
// Rules (ours; the spec leaves them open):
// - the overlay is resized, keeping its aspect ratio, to 25% of the image's width (up or down), or
//   smaller when that would make it taller than half the image;
// - corner positions keep a margin of 2% of the image's shorter side (at least 1 px); center is
//   centred exactly;
// - opacity multiplies the overlay's own alpha (0: the image unchanged, 100: the overlay as it is);
// - EXIF orientation of both is applied; metadata is stripped, colours converted to sRGB;
// - output in the image's format when that is jpeg, png or webp, png otherwise (gif, avif, tiff);
// - each input is at most WATERMARK_MAX_BYTES downloaded and WATERMARK_MAX_PIXELS decoded;
//   SVG is refused (an SVG renderer is more attack surface than a watermark is worth).
// Results are content-addressed: watermarks/<accountId>/<sha256 of the output>.<ext>.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Metadata } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { AppError, InvalidInput, NotFound } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { BlobInfo, BlobStore } from '../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { Actor } from '../accounts/index.js';
import { parseInput } from '../../platform/validation.js';
import { watermarkSchema, type WatermarkPosition } from './imaging.input.js';

/** Overlay width as a fraction of the image's width. */
export const OVERLAY_WIDTH_FRACTION = 0.25;
/** Overlay height is at most this fraction of the image's height. */
export const OVERLAY_MAX_HEIGHT_FRACTION = 0.5;
/** Margin of corner positions, as a fraction of the image's shorter side. */
export const MARGIN_FRACTION = 0.02;

const INPUT_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif', 'tiff']);
/** What a result is encoded as: the image's own format when it is one of these, else png. */
export const WATERMARK_FORMATS = ['jpeg', 'png', 'webp'] as const;
export type WatermarkFormat = (typeof WATERMARK_FORMATS)[number];
const OUTPUT: Record<WatermarkFormat, { ext: string; mime: string }> = {
  jpeg: { ext: 'jpg', mime: 'image/jpeg' },
  png: { ext: 'png', mime: 'image/png' },
  webp: { ext: 'webp', mime: 'image/webp' },
};

/** The parameters as given (REST query or body, GraphQL arguments); imaging.input.ts says what they may be. */
export interface WatermarkInput {
  image?: unknown;
  watermark?: unknown;
  position?: unknown;
  opacity?: unknown;
}

export interface WatermarkLimits {
  maxBytes: number;
  maxPixels: number;
}

export interface WatermarkResult {
  /** The URL is `baseUrl + signer.sign(path)`. */
  path: string;
  position: WatermarkPosition;
  opacity: number;
  width: number;
  height: number;
  format: WatermarkFormat;
  bytes: number;
}

type Field = 'image' | 'watermark';

interface Loaded {
  body: Buffer;
  meta: Metadata;
  /** After EXIF orientation. */
  width: number;
  height: number;
}

export function watermarkPath(accountId: number | string, file: string): string {
  return `/watermarks/${accountId}/${file}`;
}

export class WatermarkService {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly blobs: BlobStore,
    private readonly limits: WatermarkLimits,
    private readonly signer: UrlSigner,
  ) {}

  async create(actor: Actor, input: WatermarkInput): Promise<WatermarkResult> {
    const { image, watermark: overlayUrl, position, opacity } = parseInput(watermarkSchema, input);

    // Both at once; when both fail, the image's problem is the one reported.
    const [base, overlay] = await Promise.allSettled([this.load('image', image), this.load('watermark', overlayUrl)]);
    if (base.status === 'rejected') throw base.reason;
    if (overlay.status === 'rejected') throw overlay.reason;

    const composed = await this.compose(base.value, overlay.value, position, opacity);
    const hash = createHash('sha256').update(composed.data).digest('hex');
    const file = `${hash}.${composed.ext}`;
    await this.blobs.put(`watermarks/${actor.accountId}/${file}`, composed.data, { contentType: composed.mime, size: composed.data.length });
    return {
      path: watermarkPath(actor.accountId, file),
      position,
      opacity,
      width: base.value.width,
      height: base.value.height,
      format: composed.format,
      bytes: composed.data.length,
    };
  }

  /** A stored result, for the public route (which has checked the signature). */
  /** A watermarked result behind its signed URL (403 for a missing or wrong signature). */
  async openSigned(accountText: string, file: string, query: Record<string, unknown>): Promise<{ info: BlobInfo; body: Readable }> {
    this.signer.require(watermarkPath(accountText, file), query);
    return this.open(accountText, file);
  }

  async open(accountText: string, file: string): Promise<{ info: BlobInfo; body: Readable }> {
    if (!/^\d{1,9}$/.test(accountText) || !/^[0-9a-f]{64}\.(jpg|png|webp)$/.test(file)) throw new NotFound('no such watermarked image');
    const stored = await this.blobs.get(`watermarks/${accountText}/${file}`);
    if (!stored) throw new NotFound('no such watermarked image');
    return stored;
  }

  private async load(field: Field, url: string): Promise<Loaded> {
    const sharp = await loadSharp();
    let body: Buffer;
    let contentType: string;
    try {
      const response = await this.fetcher.fetch(url, { maxBytes: this.limits.maxBytes, headers: { accept: 'image/*' } });
      if (response.status < 200 || response.status > 299) throw new InvalidInput(`${field}: the URL answered HTTP ${response.status}`, field);
      body = response.body;
      contentType = response.headers.get('content-type') ?? 'no content type';
    } catch (error) {
      if (error instanceof InvalidInput) throw error;
      // FetchRefused (forbidden address, too large, too many redirects) and FetchFailed (network).
      if (error instanceof AppError) throw new InvalidInput(`${field}: ${error.message}`, field);
      throw error;
    }
    if (body.length === 0) throw new InvalidInput(`${field}: the URL answered an empty body`, field);

    let meta: Metadata;
    try {
      // The header only (no pixels are decoded here): the size is checked against the limit below,
      // with a message that says it, and every decode after this gets limitInputPixels.
      meta = await sharp(body, { limitInputPixels: false }).metadata();
    } catch {
      throw new InvalidInput(`${field}: not an image (the URL answered ${contentType.split(';')[0]}, ${body.length} bytes)`, field);
    }
    if (meta.format === 'svg') throw new InvalidInput(`${field}: SVG is not accepted; use PNG, JPEG or WebP`, field);
    if (!INPUT_FORMATS.has(meta.format) || !meta.width || !meta.height) {
      throw new InvalidInput(`${field}: not an image this service reads (${meta.format}); use PNG, JPEG or WebP`, field);
    }
    if (meta.width * meta.height > this.limits.maxPixels) {
      throw new InvalidInput(`${field}: the image is ${meta.width}x${meta.height} pixels, over the limit of ${this.limits.maxPixels.toLocaleString('en-US')} pixels`, field);
    }
    const swap = (meta.orientation ?? 1) >= 5;
    return { body, meta, width: swap ? meta.height : meta.width, height: swap ? meta.width : meta.height };
  }

  private async compose(base: Loaded, overlay: Loaded, position: WatermarkPosition, opacity: number) {
    const sharp = await loadSharp();
    const input = { limitInputPixels: this.limits.maxPixels };
    const { width: W, height: H } = base;
    const scale = Math.min((W * OVERLAY_WIDTH_FRACTION) / overlay.width, (H * OVERLAY_MAX_HEIGHT_FRACTION) / overlay.height);
    const w = Math.max(1, Math.min(W, Math.round(overlay.width * scale)));
    const h = Math.max(1, Math.min(H, Math.round(overlay.height * scale)));

    let pipeline = sharp(base.body, input).rotate();
    if (opacity > 0) {
      const raster = await sharp(overlay.body, input).rotate().resize(w, h, { fit: 'fill' }).toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      const { data, info } = raster;
      if (opacity < 100) {
        const factor = opacity / 100;
        for (let i = info.channels - 1; i < data.length; i += info.channels) data[i] = Math.round(data[i]! * factor);
      }
      const { left, top } = placement(position, W, H, info.width, info.height);
      pipeline = pipeline.composite([{ input: data, raw: { width: info.width, height: info.height, channels: info.channels }, left, top }]);
    }

    const format: WatermarkFormat = (WATERMARK_FORMATS as readonly string[]).includes(base.meta.format) ? (base.meta.format as WatermarkFormat) : 'png';
    const encoded =
      format === 'jpeg' ? pipeline.jpeg({ quality: 90, mozjpeg: true }) : format === 'webp' ? pipeline.webp({ quality: 90 }) : pipeline.png({ compressionLevel: 6 });
    const data = await encoded.toBuffer();
    return { data, format, ...OUTPUT[format] };
  }
}

/** Top-left corner of a w x h overlay on a W x H image. */
export function placement(position: WatermarkPosition, W: number, H: number, w: number, h: number): { left: number; top: number } {
  const margin = Math.max(1, Math.round(Math.min(W, H) * MARGIN_FRACTION));
  const right = Math.max(0, W - w - margin);
  const bottom = Math.max(0, H - h - margin);
  const near = (limit: number) => Math.min(margin, limit);
  switch (position) {
    case 'center':
      return { left: Math.floor((W - w) / 2), top: Math.floor((H - h) / 2) };
    case 'top-left':
      return { left: near(W - w), top: near(H - h) };
    case 'top-right':
      return { left: right, top: near(H - h) };
    case 'bottom-left':
      return { left: near(W - w), top: bottom };
    case 'bottom-right':
      return { left: right, top: bottom };
  }
}
