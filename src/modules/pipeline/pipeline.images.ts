// Images of one pipeline run. Steps that produce files (generate stores its images, scrape has its
// job's files) register them by every URL they answer with, so a later step (analyze, ocr, filter,
// search by image_url) reads those bytes directly: no second download, and the service's own URLs
// (which the SSRF-safe fetcher refuses when the service runs on a private address) work as well.
// Any other URL goes through the SSRF-safe fetcher, as in the single routes.
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import { readBounded, type BlobStore } from '../../platform/storage/blob-store.js';
import { NotFound, PayloadTooLarge } from '../../platform/errors.js';
import { loadSharp } from '../../platform/sharp.js';
import { fetchImageBytes } from '../images/index.js';

type Loader = () => Promise<Buffer>;

export class StepImages {
  private readonly known = new Map<string, Loader>();

  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly blobs: BlobStore,
    private readonly maxBytes: number,
  ) {}

  /** Bytes held in memory (generated images). */
  rememberBytes(urls: readonly string[], bytes: Buffer): void {
    for (const url of urls) this.known.set(url, async () => bytes);
  }

  /** A stored blob (a scrape job's file), read when a step asks for it. */
  rememberBlob(urls: readonly string[], storageKey: string): void {
    const load = async () => {
      const blob = await this.blobs.get(storageKey);
      if (!blob) throw new NotFound(`the stored file behind ${urls[0]} is no longer there`);
      const bytes = await readBounded(blob.body, this.maxBytes);
      if (!bytes) throw new PayloadTooLarge(`the stored file behind ${urls[0]} is larger than the limit of ${this.maxBytes} bytes`);
      return bytes;
    };
    for (const url of urls) this.known.set(url, load);
  }

  has(url: string): boolean {
    return this.known.has(url);
  }

  /** The image's bytes: held by this run, or fetched (SSRF-safe, bounded); `field` names the param in errors. */
  async bytes(url: string, field: string, signal: AbortSignal): Promise<Buffer> {
    const known = this.known.get(url);
    if (known) return known();
    return fetchImageBytes(this.fetcher, url, field, this.maxBytes, { signal });
  }

  /** Width and height of an image, read from its header. */
  async measure(url: string, field: string, signal: AbortSignal): Promise<{ width: number; height: number } | null> {
    const sharp = await loadSharp();
    const metadata = await sharp(await this.bytes(url, field, signal), { limitInputPixels: false }).metadata();
    return metadata.width && metadata.height ? { width: metadata.width, height: metadata.height } : null;
  }
}
