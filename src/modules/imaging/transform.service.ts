// Transformation URLs of library images (spec "Media library": POST /api/media/{id}/optimize) and
// the renders behind them.
//
// URL: /media/<id>/t/<width>x<quality>.<format>?v=<first 16 hex digits of the item's sha256>&sig=..
// signed (services.signer) over the path and `v`: nobody can ask for another size, quality, format
// or item, and a link never outlives the bytes it was made for.
//
// Output: the original (EXIF orientation applied) scaled down to `width` px wide, never up; both sides capped at TRANSFORM_MAX_DIMENSION (a tall image is scaled
// further so its height fits). Metadata is stripped, colours converted to sRGB. quality auto is
// a per-format default (AUTO_QUALITY); png is lossless (compression level 9) under auto and
// palette-quantised at the given quality otherwise; jpg flattens transparency onto white.
//
// Animation: an animated source (GIF, WebP) stays animated in webp, every frame scaled alike, with
// its delays and loop count, when it fits the budget: at most TRANSFORM_MAX_FRAMES frames and at
// most UPLOAD_MAX_PIXELS pixels in all frames together (width x height x frames). Past the budget,
// and in jpg, png and avif, the output is the first frame (a still image), never a refusal.
//
// Cache: renders live in the blob store under
//   transforms/v2/<sha256>/<outWidth>x<outHeight>-<encoding>.<ext>
// a key made from the source content and what is actually produced, so every URL that yields the
// same bytes (width past the original, auto vs the same explicit quality, another account's copy
// of the same file) shares one blob. The first request renders, stores and answers; later ones
// stream from the store. Concurrent first requests for one key share one render (in-flight map),
// and renders run TRANSFORM_CONCURRENCY at a time.
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import PQueue from 'p-queue';
import type { Sharp } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import type { MediaItem } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { Conflict, NotFound } from '../../platform/errors.js';
import type { BlobInfo, BlobStore } from '../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { Actor } from '../accounts/index.js';
import { mediaItemPolicy } from '../media/index.js';
import { parseInput } from '../../platform/validation.js';
import { DEFAULT_WIDTH, TRANSFORM_FORMATS, transformSchemaFor, type TransformFormat } from './imaging.input.js';

export type TransformQuality = 'auto' | number;
/** What quality auto means; png auto is lossless. */
export const AUTO_QUALITY: Record<Exclude<TransformFormat, 'png'>, number> = { webp: 80, jpg: 82, avif: 55 };
const PNG_COMPRESSION = 9;
const DEFAULT_MAX_FRAMES = 200;
const CONTENT_TYPES: Record<TransformFormat, string> = { webp: 'image/webp', jpg: 'image/jpeg', png: 'image/png', avif: 'image/avif' };
/** Bump when the encoders' settings change: old renders are then never served again. */
const RENDER_VERSION = 'v2'; // v2: animated sources stay animated in webp

export interface TransformSpec {
  width: number;
  quality: TransformQuality;
  format: TransformFormat;
}

/** optimize's parameters as given (REST body or GraphQL arguments); imaging.input.ts says what they may be. */
export interface TransformInput {
  width?: unknown;
  quality?: unknown;
  format?: unknown;
}

export interface TransformLimits {
  /** Longest output side (width is validated against it, height is capped by it). */
  maxDimension: number;
  /** sharp's limitInputPixels for the source. */
  maxInputPixels: number;
  /** Renders at once. */
  concurrency: number;
  /** Most frames of an animation kept in a webp output (more: the first frame only). Default 200. */
  maxFrames?: number;
}

export interface Transformation {
  mediaId: number;
  /** The URL is `baseUrl + signer.sign(path, params)`. */
  path: string;
  params: { v: string };
  spec: TransformSpec;
  /** What the URL serves: dimensions (null when the item's are unknown) and the encoder quality (null: lossless). */
  output: { width: number | null; height: number | null; quality: number | null };
}

export interface OpenedVariant {
  info: BlobInfo;
  /** A stream from the store (cache hit), or the bytes just rendered. */
  body: Readable | Buffer;
  cache: 'hit' | 'miss';
}

type Source = Pick<MediaItem, 'id' | 'kind' | 'width' | 'height' | 'sha256' | 'storageKey' | 'trashedAt'>;

interface Encoding {
  /** Encoder quality; null for lossless png. */
  quality: number | null;
  palette: boolean;
  tag: string;
}

interface Plan {
  key: string;
  spec: TransformSpec;
  output: { width: number; height: number } | null;
  encoding: Encoding;
}

// ---------------------------------------------------------------------------------------------
// Parameters

/** `1200xauto.webp`, `800x75.jpg`: the last path segment of a transformation URL. */
export function variantName(spec: TransformSpec): string {
  return `${spec.width}x${spec.quality}.${spec.format}`;
}

export function transformPath(mediaId: number | string, spec: TransformSpec | string): string {
  return `/media/${mediaId}/t/${typeof spec === 'string' ? spec : variantName(spec)}`;
}

const VARIANT_NAME = new RegExp(`^([1-9]\\d{0,5})x(auto|[1-9]\\d{0,2})\\.(${TRANSFORM_FORMATS.join('|')})$`);

/** The spec a variant name stands for, or null when it is not one this service makes. */
export function parseVariantName(name: string, maxDimension: number): TransformSpec | null {
  const match = VARIANT_NAME.exec(name);
  if (!match) return null;
  const width = Number(match[1]);
  const quality = match[2] === 'auto' ? 'auto' : Number(match[2]);
  if (width > maxDimension || (quality !== 'auto' && quality > 100)) return null;
  return { width, quality, format: match[3] as TransformFormat };
}

function encodingOf(spec: TransformSpec): Encoding {
  if (spec.format === 'png') {
    return spec.quality === 'auto' ? { quality: null, palette: false, tag: 'lossless' } : { quality: spec.quality, palette: true, tag: `p${spec.quality}` };
  }
  const quality = spec.quality === 'auto' ? AUTO_QUALITY[spec.format] : spec.quality;
  return { quality, palette: false, tag: `q${quality}` };
}

/** Output size for a source of width x height (after orientation): scale down only, both sides capped. */
export function outputSize(width: number, height: number, requestedWidth: number, maxDimension: number): { width: number; height: number } {
  const scale = Math.min(1, requestedWidth / width, maxDimension / width, maxDimension / height);
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}

// ---------------------------------------------------------------------------------------------

export class TransformService {
  private readonly queue: PQueue;
  private readonly inflight = new Map<string, Promise<{ info: BlobInfo; data: Buffer }>>();
  /** optimize's parameters, width bounded by this server's largest output side. */
  private readonly inputSchema: ReturnType<typeof transformSchemaFor>;
  /** Renders performed since start (tests and the benchmark watch it). */
  renders = 0;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly limits: TransformLimits,
    private readonly signer: UrlSigner,
  ) {
    this.queue = new PQueue({ concurrency: limits.concurrency });
    this.inputSchema = transformSchemaFor(limits.maxDimension);
  }

  /** Checks the parameters and the item (the caller's, an active image) and describes the URL to hand out. */
  async optimize(actor: Actor, id: number, input: TransformInput): Promise<Transformation> {
    const { width, quality, format } = parseInput(this.inputSchema, input);
    const spec: TransformSpec = { width: width ?? Math.min(DEFAULT_WIDTH, this.limits.maxDimension), quality, format };
    const media = await mediaItemPolicy.findOne(actor, id, (where) => this.db.prisma.mediaItem.findFirst({ where }));
    if (media.trashedAt) throw new Conflict(`media item ${id} is in the trash; restore it first (POST /api/media/${id}/restore)`, 'id');
    if (media.kind !== 'image') throw new Conflict(`media item ${id} is a ${media.kind}; only images can be transformed`, 'id');
    const plan = this.plan(media, spec);
    return {
      mediaId: media.id,
      path: transformPath(media.id, spec),
      params: { v: media.sha256.slice(0, 16) },
      spec,
      output: { width: plan.output?.width ?? null, height: plan.output?.height ?? null, quality: plan.encoding.quality },
    };
  }

  /** The variant behind a signed transformation URL (403 for a missing or wrong signature; see open). */
  async openSigned(idText: string, name: string, query: Record<string, unknown>): Promise<OpenedVariant> {
    this.signer.require(transformPath(idText, name), query);
    return this.open(idText, name, query.v);
  }

  /**
   * The variant behind a transformation URL whose signature the caller has checked: from the store,
   * or rendered (once, however many ask at the same time) and stored. 404 when the item is gone,
   * trashed, no longer an image, or holds other bytes than the link was made for.
   */
  async open(idText: string, name: string, version: unknown): Promise<OpenedVariant> {
    const spec = parseVariantName(name, this.limits.maxDimension);
    const id = /^\d{1,9}$/.test(idText) ? Number(idText) : null;
    const gone = new NotFound(`no transformation ${name} of media item ${idText}`);
    if (!spec || id === null) throw gone;
    // Raw SQL: this runs on every request of the endpoint, cached or not, and skips the ORM's cost.
    const [media] = await this.db.query<Source>(
      'SELECT "id", "kind", "width", "height", "sha256", "storageKey", "trashedAt" FROM "MediaItem" WHERE "id" = $1',
      [id],
    );
    if (!media || media.trashedAt || media.kind !== 'image' || media.sha256.slice(0, 16) !== version) throw gone;
    const plan = this.plan(media, spec);
    const stored = await this.blobs.get(plan.key);
    if (stored) return { info: stored.info, body: stored.body, cache: 'hit' };
    const rendered = await this.renderOnce(media, plan);
    return { info: rendered.info, body: rendered.data, cache: 'miss' };
  }

  /** The blob key a spec of an item is stored under (tests and the benchmark look for it). */
  keyOf(media: Source, spec: TransformSpec): string {
    return this.plan(media, spec).key;
  }

  private plan(media: Source, spec: TransformSpec): Plan {
    const output = media.width && media.height ? outputSize(media.width, media.height, spec.width, this.limits.maxDimension) : null;
    const encoding = encodingOf(spec);
    const size = output ? `${output.width}x${output.height}` : `w${spec.width}`;
    return { key: `transforms/${RENDER_VERSION}/${media.sha256}/${size}-${encoding.tag}.${spec.format}`, spec, output, encoding };
  }

  private renderOnce(media: Source, plan: Plan): Promise<{ info: BlobInfo; data: Buffer }> {
    let pending = this.inflight.get(plan.key);
    if (!pending) {
      pending = this.queue
        .add(async () => {
          // A render of this key may have finished between our look into the store and now.
          const stored = await this.blobs.get(plan.key);
          if (stored) return { info: stored.info, data: await buffer(stored.body) };
          return this.render(media, plan);
        })
        .finally(() => this.inflight.delete(plan.key));
      this.inflight.set(plan.key, pending);
    }
    return pending;
  }

  private async render(media: Source, plan: Plan): Promise<{ info: BlobInfo; data: Buffer }> {
    const sharp = await loadSharp();
    this.renders++;
    const source = await this.blobs.get(media.storageKey);
    if (!source) throw new NotFound(`the file of media item ${media.id} is no longer stored`);
    const input = await buffer(source.body);
    const animated = plan.spec.format === 'webp' && (await this.keepsAnimation(input));
    let pipeline = sharp(input, { limitInputPixels: this.limits.maxInputPixels, ...(animated ? { animated: true } : {}) }).rotate();
    if (plan.output) {
      if (plan.output.width !== media.width || plan.output.height !== media.height) pipeline = pipeline.resize(plan.output.width, plan.output.height, { fit: 'fill' });
    } else {
      pipeline = pipeline.resize({ width: plan.spec.width, height: this.limits.maxDimension, fit: 'inside', withoutEnlargement: true });
    }
    const data = await encode(pipeline, plan.spec.format, plan.encoding).toBuffer();
    const info = await this.blobs.put(plan.key, data, { contentType: CONTENT_TYPES[plan.spec.format], size: data.length });
    return { info, data };
  }

  /**
   * Whether a source's animation is kept: more than one frame, within the frame budget, and within
   * the pixel budget counting every frame (so a small GIF of thousands of frames is no pixel bomb).
   * The header only is read here; no pixels are decoded.
   */
  private async keepsAnimation(input: Buffer): Promise<boolean> {
    const sharp = await loadSharp();
    const meta = await sharp(input, { limitInputPixels: false }).metadata();
    const frames = meta.pages ?? 1;
    if (frames < 2 || !meta.width || !meta.height) return false;
    return frames <= (this.limits.maxFrames ?? DEFAULT_MAX_FRAMES) && meta.width * meta.height * frames <= this.limits.maxInputPixels;
  }
}

function encode(pipeline: Sharp, format: TransformFormat, encoding: Encoding): Sharp {
  switch (format) {
    case 'webp':
      return pipeline.webp({ quality: encoding.quality! });
    case 'jpg':
      return pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: encoding.quality!, mozjpeg: true });
    case 'avif':
      return pipeline.avif({ quality: encoding.quality! });
    case 'png':
      return encoding.palette ? pipeline.png({ compressionLevel: PNG_COMPRESSION, palette: true, quality: encoding.quality! }) : pipeline.png({ compressionLevel: PNG_COMPRESSION });
  }
}
