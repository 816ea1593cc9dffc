// Chooses the blob store adapter from configuration: S3 when a bucket is configured, else files
// under DATA_DIR/files. The S3 adapter (and the AWS SDK under it) is loaded only when configured.
import { join } from 'node:path';
import { type BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import type { S3Options } from './s3-blob-store.js';

export { assertSafeKey, assertSafePrefix, RangeNotSatisfiable, type BlobInfo, type BlobStore, type ByteRange } from './blob-store.js';
export { LocalBlobStore } from './local-blob-store.js';
export type { S3Options } from './s3-blob-store.js';

export async function createBlobStore(options: { dataDir: string; s3?: S3Options }): Promise<BlobStore> {
  if (!options.s3) return new LocalBlobStore(join(options.dataDir, 'files'));
  const { S3BlobStore } = await import('./s3-blob-store.js');
  return new S3BlobStore(options.s3);
}
