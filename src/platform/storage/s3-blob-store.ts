// Blobs in an S3-compatible bucket (AWS S3, MinIO, R2, ...), optionally under a key prefix so one
// bucket can hold several deployments.
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, type Readable } from 'node:stream';
import { InvalidInput } from '../errors.js';
import {
  assertSafeKey,
  assertSafePrefix,
  ByteCounter,
  isSafeKey,
  RangeNotSatisfiable,
  resolveRange,
  sizeMismatch,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from './blob-store.js';

export interface S3Options {
  bucket: string;
  /** For S3-compatible services (`http://minio:9000`); AWS S3 needs none. */
  endpoint?: string;
  region: string;
  /** Both or neither; without them the SDK's default chain (environment, instance role) is used. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** `bucket.host/key` (virtual-hosted, the default) or `host/bucket/key`; MinIO and most local servers need true. */
  forcePathStyle?: boolean;
  /** Stored keys are `prefix + key`; `/` is added when missing. */
  prefix?: string;
}

const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
// Streamed puts hold at most queueSize x partSize bytes in memory (5 MB is S3's smallest part).
const UPLOAD_QUEUE_SIZE = 2;
const UPLOAD_PART_SIZE = 5 * 1024 * 1024;
// S3 listings carry no content type, so list() asks for each object's head, this many at a time.
const LIST_HEAD_CONCURRENCY = 16;
const DELETE_BATCH = 1000; // the most DeleteObjects accepts

export class S3BlobStore implements BlobStore {
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(options: S3Options) {
    if (!options.bucket) throw new InvalidInput('s3 bucket: expected a bucket name', 'bucket');
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new InvalidInput('s3 credentials: give both accessKeyId and secretAccessKey, or neither', 'accessKeyId');
    }
    const prefix = (options.prefix ?? '').replace(/^\/+/, '');
    this.prefix = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
    assertSafePrefix(this.prefix);
    this.bucket = options.bucket;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials: options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
      // Newer SDKs add CRC checksums (and aws-chunked bodies) to every request by default; many
      // S3-compatible servers reject or mis-store those. Only send them where the API requires one.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<BlobInfo> {
    assertSafeKey(key);
    let payload: Buffer | Readable;
    if (Buffer.isBuffer(body)) {
      if (options.size !== undefined && body.length !== options.size) throw sizeMismatch(String(body.length), options.size);
      payload = body;
    } else {
      // The counter fails the upload (so S3 aborts it) when the body breaks its promised size.
      const counter = new ByteCounter(options.size);
      payload = pipeline(body, counter, () => undefined);
    }
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.prefix + key, Body: payload, ContentType: options.contentType },
      queueSize: UPLOAD_QUEUE_SIZE,
      partSize: UPLOAD_PART_SIZE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      if (!Buffer.isBuffer(payload)) payload.destroy(); // lets go of the caller's body too
      throw error;
    }
    const info = await this.head(key);
    if (!info) throw new Error(`blob ${key} vanished right after it was stored`);
    return info;
  }

  async get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; body: Readable; range?: { start: number; end: number } } | null> {
    assertSafeKey(key);
    if (range) resolveRange(range, Number.MAX_SAFE_INTEGER); // checks the numbers; S3 checks the size
    let response;
    try {
      response = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.prefix + key, Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (errorName(error) === 'InvalidRange' || httpStatus(error) === 416) {
        const info = await this.head(key);
        if (!info) return null;
        throw new RangeNotSatisfiable(info.size);
      }
      throw error;
    }
    const body = response.Body as Readable;
    const contentRange = range ? parseContentRange(response.ContentRange) : null;
    const info: BlobInfo = {
      key,
      size: contentRange?.size ?? response.ContentLength ?? 0,
      contentType: response.ContentType ?? FALLBACK_CONTENT_TYPE,
      etag: unquote(response.ETag),
      lastModified: response.LastModified ?? new Date(0),
    };
    if (!range) return { info, body };
    // A server that ignored the Range header sent the whole object.
    return { info, body, range: contentRange ? { start: contentRange.start, end: contentRange.end } : { start: 0, end: info.size - 1 } };
  }

  async head(key: string): Promise<BlobInfo | null> {
    assertSafeKey(key);
    try {
      const response = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
      return {
        key,
        size: response.ContentLength ?? 0,
        contentType: response.ContentType ?? FALLBACK_CONTENT_TYPE,
        etag: unquote(response.ETag),
        lastModified: response.LastModified ?? new Date(0),
      };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    // S3 answers 204 for a missing key as well.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.prefix + key }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertSafePrefix(prefix);
    if (prefix === '') throw new InvalidInput('prefix: refusing to delete every blob, give a non-empty prefix', 'prefix');
    let deleted = 0;
    let batch: string[] = [];
    const flush = async () => {
      const response = await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }),
      );
      const failed = response.Errors ?? [];
      if (failed.length > 0) throw new Error(`could not delete ${failed.length} blobs under ${prefix}: ${failed[0]?.Key} ${failed[0]?.Code} ${failed[0]?.Message}`);
      deleted += batch.length;
      batch = [];
    };
    // Everything under the prefix goes, keys we would not have written included.
    for await (const object of this.listObjects(this.prefix + prefix)) {
      batch.push(object.Key as string);
      if (batch.length === DELETE_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    return deleted;
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    assertSafePrefix(prefix);
    let pending: string[] = [];
    const heads = async () => (await Promise.all(pending.map((key) => this.head(key)))).filter((info): info is BlobInfo => info !== null); // null: deleted since listed
    for await (const object of this.listObjects(this.prefix + prefix)) {
      const key = (object.Key as string).slice(this.prefix.length);
      if (!isSafeKey(key)) continue; // written by something else into the bucket
      pending.push(key);
      if (pending.length === LIST_HEAD_CONCURRENCY) {
        yield* await heads();
        pending = [];
      }
    }
    if (pending.length > 0) yield* await heads();
  }

  /** Every object under a full (bucket-level) prefix, page by page, in S3's byte order. */
  private async *listObjects(fullPrefix: string): AsyncGenerator<_Object> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: fullPrefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key) yield object;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}

function parseContentRange(header: string | undefined): { start: number; end: number; size: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? '');
  return match ? { start: Number(match[1]), end: Number(match[2]), size: Number(match[3]) } : null;
}

function unquote(etag: string | undefined): string {
  return (etag ?? '').replace(/"/g, '');
}

function errorName(error: unknown): string | undefined {
  return (error as { name?: string } | undefined)?.name;
}

function httpStatus(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

/** NoSuchKey (GET) and NotFound (HEAD, which has no error body); NoSuchBucket stays an error. */
function isNotFound(error: unknown): boolean {
  const name = errorName(error);
  return name === 'NoSuchKey' || name === 'NotFound';
}
