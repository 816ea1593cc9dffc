// Backup and restore of the embedded store: the PGlite database (DATA_DIR/db), the local blob files
// (DATA_DIR/files) and the files at the top of DATA_DIR (admin token, URL signing key, the key that
// encrypts stored export credentials), as one ZIP. docs/operations.md "Backup and restore".
//
// Consistency, while the service runs: the blob store is frozen first (puts' final renames and
// deletes wait, see LocalBlobStore.freeze), then the database is dumped under PGlite's own lock, then
// every blob is hard-linked aside, then the store thaws. Every put happens before the row that names
// it is written, and every blob delete after its row is deleted; so a row in the dump names a blob
// whose put finished before the freeze, and whose delete (if any) waits until the links exist: no row
// without its file. Files are taken from the links, so later puts (new inodes by rename) and deletes
// (unlinked names) cannot change them while they stream: the archive holds the store as it was
// during the freeze. What an operation under way at that instant left half done (a file put whose row
// was not yet written) is in the archive as it was in the store, and the service treats it the same.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { Database } from './database/database.js';
import { PGLITE_OPTIONS } from './database/pglite-files.js';
import { LocalBlobStore, type BlobStore } from './storage/index.js';
import { writeZip, type ZipEntry } from './storage/zip.js';

export const BACKUP_FORMAT = 'image-service-backup';
const MANIFEST = 'backup.json';
const DATABASE_ENTRY = 'db.tar';

interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: 1;
  created_at: string;
  /** Blobs: the ZIP entry (numbered, so a key is never renamed by the ZIP writer) and its content type. */
  files: Array<{ entry: string; key: string; content_type: string; size: number }>;
  /** Files at the top of DATA_DIR, stored as `root/<name>`. */
  root: string[];
}

/** Why a backup cannot be made here (PostgreSQL or S3 configured): those have tools of their own. */
export function backupUnsupported(db: Database, blobs: BlobStore): string | null {
  if (!db.dumpDataDir) return 'backup: this service uses PostgreSQL; back it up with pg_dump (docs/operations.md "Backup and restore")';
  if (!(blobs instanceof LocalBlobStore)) return 'backup: this service stores files in S3; copy the bucket with its own tools (docs/operations.md "Backup and restore")';
  return null;
}

/** Writes the ZIP to `output` and ends it; see the top of this file for why it is consistent. */
export async function writeBackup(deps: { db: Database; blobs: BlobStore; dataDir: string }, output: Writable): Promise<{ files: number }> {
  const problem = backupUnsupported(deps.db, deps.blobs);
  if (problem) throw new Error(problem);
  const blobs = deps.blobs as LocalBlobStore;
  // Beside files/ on the same file system (hard links cannot cross one), outside the store's root.
  const links = await mkdtemp(join(deps.dataDir, '.backup-'));
  try {
    const thaw = await blobs.freeze();
    let tar: Blob;
    let keys: string[];
    try {
      tar = await deps.db.dumpDataDir!();
      keys = await blobs.linkAll(links);
    } finally {
      thaw();
    }
    const files: Manifest['files'] = [];
    for (const [index, key] of keys.entries()) {
      const meta = await readFile(join(links, `${key}~meta.json`), 'utf8').then((text) => JSON.parse(text) as { contentType?: string }, () => ({}) as { contentType?: string });
      files.push({ entry: `files/${index + 1}`, key, content_type: meta.contentType ?? 'application/octet-stream', size: (await stat(join(links, key))).size });
    }
    const root = await rootFiles(deps.dataDir);
    const manifest: Manifest = { format: BACKUP_FORMAT, version: 1, created_at: new Date().toISOString(), files, root };
    const entries: ZipEntry[] = [
      { name: MANIFEST, body: async () => Readable.from([Buffer.from(JSON.stringify(manifest, null, 2))]) },
      { name: DATABASE_ENTRY, body: async () => Readable.fromWeb(tar.stream() as WebReadableStream<Uint8Array>) },
      ...files.map((file): ZipEntry => ({ name: file.entry, body: async () => createReadStream(join(links, file.key)) })),
      // Read now: a root file is a few bytes, and the admin token's file is rewritten on a restart.
      ...(await Promise.all(root.map(async (name): Promise<ZipEntry> => {
        const bytes = await readFile(join(deps.dataDir, name));
        return { name: `root/${name}`, body: async () => Readable.from([bytes]) };
      }))),
    ];
    await writeZip(entries, output);
    return { files: files.length };
  } finally {
    await rm(links, { recursive: true, force: true });
  }
}

/** Regular files at the top of DATA_DIR (the keys the service made there), not the folders. */
async function rootFiles(dataDir: string): Promise<string[]> {
  const entries = await readdir(dataDir, { withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && !entry.name.startsWith('.')).map((entry) => entry.name).sort();
}

export class RestoreError extends Error {}

/**
 * Unpacks a backup into `dataDir`, which must be missing or empty: the database folder from the
 * dump, every blob through LocalBlobStore.put (so sidecars describe the new files), the root files.
 * `npm start` on the folder then serves the state the backup was taken in.
 */
export async function restoreBackup(archive: string, dataDir: string): Promise<{ files: number }> {
  const existing = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length > 0) {
    throw new RestoreError(`restore: ${dataDir} is not empty (${existing.length} entries, e.g. ${existing.slice(0, 3).join(', ')}); restore only into a new or empty data folder, so nothing there is mixed with the backup`);
  }
  const zip = await openZip(archive);
  try {
    const entries = new Map<string, yauzl.Entry>();
    for (let entry = await zip.next(); entry; entry = await zip.next()) entries.set(entry.fileName, entry);
    const manifestEntry = entries.get(MANIFEST);
    if (!manifestEntry) throw new RestoreError(`restore: ${archive} is not a backup of this service (no ${MANIFEST} in it)`);
    const manifest = JSON.parse((await readEntry(zip, manifestEntry)).toString('utf8')) as Manifest;
    if (manifest.format !== BACKUP_FORMAT || manifest.version !== 1) throw new RestoreError(`restore: ${archive} has format ${String(manifest.format)} version ${String(manifest.version)}; expected ${BACKUP_FORMAT} version 1`);
    const need = (name: string) => {
      const entry = entries.get(name);
      if (!entry) throw new RestoreError(`restore: ${archive} lacks ${name}, which its ${MANIFEST} lists: the archive is incomplete`);
      return entry;
    };
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const tar = await readEntry(zip, need(DATABASE_ENTRY));
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(join(dataDir, 'db'), { loadDataDir: new Blob([new Uint8Array(tar)]), ...PGLITE_OPTIONS });
    await db.close();
    const store = new LocalBlobStore(join(dataDir, 'files'));
    for (const file of manifest.files) {
      await store.put(file.key, await openEntry(zip, need(file.entry)), { contentType: file.content_type, size: file.size });
    }
    for (const name of manifest.root) {
      if (name !== basename(name) || name.startsWith('.')) throw new RestoreError(`restore: root file name ${JSON.stringify(name)} is not a plain file name`);
      await pipeline(await openEntry(zip, need(`root/${name}`)), createWriteStream(join(dataDir, name), { flags: 'wx', mode: 0o600 }));
    }
    return { files: manifest.files.length };
  } finally {
    zip.close();
  }
}

interface ZipReader {
  next(): Promise<yauzl.Entry | null>;
  close(): void;
  raw: yauzl.ZipFile;
}

async function openZip(path: string): Promise<ZipReader> {
  const raw = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false }, (error, zip) => (error ? reject(new RestoreError(`restore: cannot read ${path} as a ZIP (${error.message})`)) : resolve(zip))),
  );
  return {
    raw,
    close: () => raw.close(),
    next: () =>
      new Promise((resolve, reject) => {
        const onEntry = (entry: yauzl.Entry) => done(entry);
        const onEnd = () => done(null);
        const onError = (error: Error) => done(null, error);
        const done = (entry: yauzl.Entry | null, error?: Error) => {
          raw.off('entry', onEntry).off('end', onEnd).off('error', onError);
          if (error) reject(error);
          else resolve(entry);
        };
        raw.on('entry', onEntry).on('end', onEnd).on('error', onError);
        raw.readEntry();
      }),
  };
}

function openEntry(zip: ZipReader, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => zip.raw.openReadStream(entry, (error, stream) => (error ? reject(error) : resolve(stream))));
}

async function readEntry(zip: ZipReader, entry: yauzl.Entry): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await openEntry(zip, entry)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
