// The blob storage port: where uploaded and generated files live. Two adapters implement it, a
// folder on disk (the embedded default) and any S3-compatible bucket; both pass one contract test
// (test/platform/blob-store.test.ts), so callers never care which one they were given.
import { type Hash } from 'node:crypto';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { AppError, ErrorCode, InvalidInput } from '../errors.js';

export interface BlobInfo {
  key: string;
  /** Bytes of the whole blob, also when a range of it was asked for. */
  size: number;
  contentType: string;
  /**
   * A strong validator for If-None-Match / If-Match: it changes whenever the content does. The
   * local store gives the SHA-256 of the content; S3 gives the object's ETag (the MD5 of the content,
   * or `md5-parts` for multipart uploads), without quotes.
   */
  etag: string;
  lastModified: Date;
}

/** Inclusive byte offsets, as in an HTTP Range header; `end` past the blob's end is clamped. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStore {
  /** Replaces any blob under the same key; readers see the old or the new content, never a mix. */
  put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<BlobInfo>;
  /**
   * null when missing. The body must be consumed or destroyed (it holds a file or a socket). With a
   * range, `range` says which bytes the body holds (`end` clamped to the last byte), for Content-Range.
   */
  get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; body: Readable; range?: { start: number; end: number } } | null>;
  head(key: string): Promise<BlobInfo | null>;
  /** Deleting a missing key is not an error (a retried delete must succeed). */
  delete(key: string): Promise<void>;
  /** Deletes every blob whose key starts with `prefix` (a plain string prefix, as in S3); returns how many. */
  deletePrefix(prefix: string): Promise<number>;
  /** Every blob whose key starts with `prefix`, sorted by key (byte order, as S3 lists). */
  list(prefix: string): AsyncIterable<BlobInfo>;
}

/** A range that starts at or past the end of the blob; HTTP answers 416 with `Content-Range: bytes *\/size`. */
export class RangeNotSatisfiable extends AppError {
  constructor(readonly size: number) {
    super(`the requested range is not satisfiable: the blob has ${size} bytes`, 416, ErrorCode.RangeNotSatisfiable, 'range', { 'Content-Range': `bytes */${size}` });
  }
}

export const MAX_KEY_LENGTH = 512;
const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Keys are `/`-separated segments of [A-Za-z0-9._-]: no `.` or `..` segment, no leading or trailing
 * `/`, no empty segment, at most 512 characters. With so small an alphabet a key is also a safe
 * relative file path and a safe S3 key, and percent-encoded tricks (`%2e%2e`) cannot get in.
 */
export function assertSafeKey(key: string): void {
  const problem = keyProblem(key);
  if (problem) throw new InvalidInput(`invalid blob key ${JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}...` : key)}: ${problem}`, 'key');
}

/** A list/delete prefix: empty (everything), a key, a key plus `/`, or a key cut short. */
export function assertSafePrefix(prefix: string): void {
  if (prefix === '') return;
  const problem = keyProblem(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  if (problem) throw new InvalidInput(`invalid blob prefix ${JSON.stringify(prefix.length > 80 ? `${prefix.slice(0, 80)}...` : prefix)}: ${problem}`, 'prefix');
}

/** The same rules as assertSafeKey, as a test (listings skip files that no key can name). */
export function isSafeKey(key: string): boolean {
  return keyProblem(key) === null;
}

function keyProblem(key: unknown): string | null {
  if (typeof key !== 'string') return 'expected a string';
  if (key === '') return 'it is empty';
  if (key.length > MAX_KEY_LENGTH) return `it is ${key.length} characters long, the maximum is ${MAX_KEY_LENGTH}`;
  if (key.startsWith('/')) return 'it must not start with /';
  for (const segment of key.split('/')) {
    if (segment === '') return 'it has an empty segment (// or a trailing /)';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
    if (!SEGMENT.test(segment)) return `segment ${JSON.stringify(segment)} has characters outside [A-Za-z0-9._-]`;
  }
  return null;
}

/** Checks a range against the blob size; returns the inclusive byte offsets to send. */
export function resolveRange(range: ByteRange, size: number): { start: number; end: number } {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0) throw new InvalidInput('range start: expected an integer >= 0', 'range');
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) throw new InvalidInput('range end: expected an integer >= start', 'range');
  if (start >= size) throw new RangeNotSatisfiable(size);
  return { start, end: Math.min(end ?? size - 1, size - 1) };
}

/**
 * Passes a put's body through, counting bytes (and hashing them when given a hash). With an
 * expected size it fails as soon as the body runs over, or at its end when it fell short, so the
 * adapter throws the write away and nothing is stored.
 */
export class ByteCounter extends Transform {
  bytes = 0;

  constructor(
    private readonly expected?: number,
    private readonly hash?: Hash,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.expected !== undefined && this.bytes > this.expected) return callback(sizeMismatch(`more than ${this.expected}`, this.expected));
    this.hash?.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    if (this.expected !== undefined && this.bytes !== this.expected) return callback(sizeMismatch(String(this.bytes), this.expected));
    callback();
  }
}

export function sizeMismatch(actual: string, expected: number): InvalidInput {
  return new InvalidInput(`size: the body has ${actual} bytes, expected ${expected}`, 'size');
}

/** Sorts keys in byte order (what S3 returns); localeCompare would not. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A blob's body read whole, or null (the body destroyed) once it passes `maxBytes`. */
export async function readBounded(body: Readable, maxBytes: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      return null;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
