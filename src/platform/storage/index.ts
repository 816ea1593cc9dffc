// Chooses the blob store adapter from configuration: S3 when a bucket is configured, else files
// under DATA_DIR/files.
import { join } from 'node:path';
import { type BlobStore } from './blob-store.js';
import { LocalBlobStore } from './local-blob-store.js';
import { S3BlobStore, type S3Options } from './s3-blob-store.js';

export { assertSafeKey, assertSafePrefix, RangeNotSatisfiable, type BlobInfo, type BlobStore, type ByteRange } from './blob-store.js';
export { LocalBlobStore } from './local-blob-store.js';
export { S3BlobStore, type S3Options } from './s3-blob-store.js';
export { writeZip, type ZipEntry } from './zip.js';

export function createBlobStore(options: { dataDir: string; s3?: S3Options }): BlobStore {
  return options.s3 ? new S3BlobStore(options.s3) : new LocalBlobStore(join(options.dataDir, 'files'));
}
