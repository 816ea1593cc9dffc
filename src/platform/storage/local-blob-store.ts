// Blobs as files under one root folder (DATA_DIR/files by default).
//
// Layout: the blob `jobs/12/a.jpg` is the file `<root>/jobs/12/a.jpg`; its content type and etag
// live in the sidecar `<root>/jobs/12/a.jpg~meta.json`, and a put writes through temp files named
// `a.jpg~<random>.tmp` in the same folder. `~` is outside the key alphabet, so no key can name a
// sidecar or a temp file and listings skip them.
//
// A put writes the temp file (fsynced), then renames the sidecar into place, then the blob: rename
// is atomic, so readers see the old or the new file, never a half-written one. The sidecar records
// the inode and size of the file it describes; a reader that finds them differing (a put between
// its two renames, or a crash there) retries briefly, then rebuilds the etag from the content.
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readFile, realpath, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { Conflict, InvalidInput } from '../errors.js';

/** Stored files are the accounts' own: readable by the service's user only (umask cannot widen these). */
const FILE_MODE = 0o600;
const FOLDER_MODE = 0o700;
import {
  assertSafeKey,
  assertSafePrefix,
  ByteCounter,
  compareKeys,
  isSafeKey,
  resolveRange,
  sizeMismatch,
  type BlobInfo,
  type BlobStore,
  type ByteRange,
} from './blob-store.js';

const META_SUFFIX = '~meta.json';
const FALLBACK_CONTENT_TYPE = 'application/octet-stream';
// Sidecars are opened without following symlinks: a planted link must not make us read outside root.
const READ_NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

interface Sidecar {
  contentType: string;
  etag: string;
  size: number;
  /** The inode of the blob file this sidecar describes. */
  ino: number;
}

export class LocalBlobStore implements BlobStore {
  readonly root: string;
  private realRoot?: Promise<string>;
  private readonly renaming = new Map<string, Promise<void>>();
  /** Set while a backup links the files: puts' renames and deletes wait for it (see freeze). */
  private frozen?: Promise<void>;
  private commits = 0;
  private drained?: () => void;

  constructor(root: string) {
    this.root = resolve(root);
  }

  async put(key: string, body: Buffer | Readable, options: { contentType: string; size?: number }): Promise<BlobInfo> {
    assertSafeKey(key);
    const path = await this.prepareParent(key);
    const blobTemp = tempPath(path);
    const metaTemp = tempPath(path);
    const hash = createHash('sha256');
    let handle: FileHandle | undefined;
    try {
      handle = await open(blobTemp, 'wx', FILE_MODE);
      if (Buffer.isBuffer(body)) {
        if (options.size !== undefined && body.length !== options.size) throw sizeMismatch(String(body.length), options.size);
        hash.update(body);
        await handle.writeFile(body);
      } else {
        const fileHandle = handle;
        await pipeline(body, new ByteCounter(options.size, hash), async (chunks: AsyncIterable<Buffer>) => {
          for await (const chunk of chunks) await writeAll(fileHandle, chunk);
        });
      }
      await handle.sync();
      const stat = await handle.stat();
      await handle.close();
      handle = undefined;
      const sidecar: Sidecar = { contentType: options.contentType, etag: hash.digest('hex'), size: stat.size, ino: stat.ino };
      await writeNewFile(metaTemp, JSON.stringify(sidecar));
      // Two puts of one key must not interleave their renames (A's blob with B's sidecar).
      await this.committing(() =>
        this.oneAtATime(key, async () => {
          await rename(metaTemp, path + META_SUFFIX);
          await rename(blobTemp, path).catch((error: unknown) => {
            throw errorCode(error) === 'EISDIR' || errorCode(error) === 'ENOTEMPTY' ? folderConflict(key) : error;
          });
        }),
      );
      return toInfo(key, sidecar, stat);
    } catch (error) {
      await handle?.close().catch(() => undefined);
      await Promise.all([unlink(blobTemp).catch(() => undefined), unlink(metaTemp).catch(() => undefined)]);
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; body: Readable; range?: { start: number; end: number } } | null> {
    assertSafeKey(key);
    const opened = await this.openBlob(key);
    if (!opened) return null;
    const { handle, info } = opened;
    try {
      const bytes = range ? resolveRange(range, info.size) : undefined;
      // The stream owns the handle from here on and closes it when it ends or is destroyed.
      // An explicit start makes the stream read by position, whatever the handle's offset is.
      const body = handle.createReadStream(bytes ? { start: bytes.start, end: bytes.end } : { start: 0 });
      return bytes ? { info, body, range: bytes } : { info, body };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async head(key: string): Promise<BlobInfo | null> {
    assertSafeKey(key);
    const opened = await this.openBlob(key);
    if (!opened) return null;
    await opened.handle.close();
    return opened.info;
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.remove(key);
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertSafePrefix(prefix);
    if (prefix === '') throw new InvalidInput('prefix: refusing to delete every blob, give a non-empty prefix', 'prefix');
    let deleted = 0;
    for await (const key of this.keys(prefix)) {
      await this.remove(key);
      deleted++;
    }
    await this.removeLeftovers(prefix);
    return deleted;
  }

  async *list(prefix: string): AsyncIterable<BlobInfo> {
    assertSafePrefix(prefix);
    for await (const key of this.keys(prefix)) {
      const info = await this.head(key);
      if (info) yield info; // deleted since the folder was read
    }
  }

  /**
   * Stops every change to the stored files (a put's final renames, a delete) until the returned
   * function is called, once the changes under way have finished; a put still writes its temp file
   * meanwhile. A backup holds it while it snapshots the database and hard-links the files
   * (linkAll): short, since links copy no bytes. Per process, like oneAtATime.
   */
  async freeze(): Promise<() => void> {
    while (this.frozen) await this.frozen; // one at a time
    let thaw!: () => void;
    this.frozen = new Promise<void>((resolve) => (thaw = resolve));
    if (this.commits > 0) await new Promise<void>((resolve) => (this.drained = resolve));
    this.drained = undefined;
    return () => {
      this.frozen = undefined;
      thaw();
    };
  }

  private async committing<T>(task: () => Promise<T>): Promise<T> {
    while (this.frozen) await this.frozen;
    this.commits++;
    try {
      return await task();
    } finally {
      if (--this.commits === 0) this.drained?.();
    }
  }

  /**
   * Hard-links every blob and its sidecar under `target` (same layout), which must be on the same
   * file system and outside root. Later puts replace files by rename and deletes unlink names, so
   * the links keep these bytes whatever happens to the store afterwards. Returns the keys.
   */
  async linkAll(target: string): Promise<string[]> {
    const keys: string[] = [];
    for await (const key of this.keys('')) {
      await mkdir(dirname(join(target, key)), { recursive: true, mode: FOLDER_MODE });
      try {
        await link(join(this.root, key), join(target, key));
      } catch (error) {
        if (isMissing(error)) continue; // another process sharing the folder deleted it
        throw error;
      }
      await link(join(this.root, key) + META_SUFFIX, join(target, key) + META_SUFFIX).catch((error: unknown) => {
        if (!isMissing(error)) throw error; // no sidecar: the content type is read as unknown
      });
      keys.push(key);
    }
    return keys;
  }

  /**
   * Runs `task` after any earlier task for the same key has settled. Per process: puts from two
   * processes sharing the folder can still cross, and then readers rebuild the etag from the content.
   */
  private async oneAtATime(key: string, task: () => Promise<void>): Promise<void> {
    const previous = this.renaming.get(key) ?? Promise.resolve();
    const current = previous.then(task, task);
    const tail = current.catch(() => undefined);
    this.renaming.set(key, tail);
    try {
      await current;
    } finally {
      if (this.renaming.get(key) === tail) this.renaming.delete(key);
    }
  }

  /** Opens the blob and reads its sidecar; null when there is no such blob. */
  private async openBlob(key: string): Promise<{ handle: FileHandle; info: BlobInfo } | null> {
    const path = join(this.root, key);
    for (let attempt = 0; ; attempt++) {
      const real = await realpath(path).catch((error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      });
      if (real === null) return null;
      await this.assertInsideRoot(real, key);
      let handle: FileHandle;
      try {
        handle = await open(real, 'r');
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
      try {
        const stat = await handle.stat();
        if (!stat.isFile()) {
          await handle.close();
          return null; // a folder of other blobs, not a blob
        }
        const sidecar = await readSidecar(path + META_SUFFIX);
        if (sidecar && sidecar.ino === stat.ino && sidecar.size === stat.size) return { handle, info: toInfo(key, sidecar, stat) };
        // A put may be between its two renames: give it a moment before deciding the sidecar is stale.
        if (attempt < 3) {
          await handle.close();
          await sleep(5 * (attempt + 1));
          continue;
        }
        const etag = await hashFile(handle);
        return { handle, info: toInfo(key, { contentType: sidecar?.contentType ?? FALLBACK_CONTENT_TYPE, etag, size: stat.size, ino: stat.ino }, stat) };
      } catch (error) {
        await handle.close().catch(() => undefined);
        throw error;
      }
    }
  }

  private async remove(key: string): Promise<void> {
    await this.committing(() => this.removeNow(key));
  }

  private async removeNow(key: string): Promise<void> {
    const path = join(this.root, key);
    // unlink never follows a symlink in the last segment, so only the folder needs checking.
    await this.rootRealPath();
    await this.assertInsideRoot(await deepestExisting(dirname(path)), key);
    for (const file of [path, path + META_SUFFIX]) {
      await unlink(file).catch((error: unknown) => {
        if (!isMissing(error) && errorCode(error) !== 'EISDIR' && errorCode(error) !== 'EPERM') throw error;
      });
    }
    await this.pruneEmptyFolders(dirname(path));
  }

  /** Removes folders left empty by a delete, up to the root (a concurrent put re-creates its own). */
  private async pruneEmptyFolders(folder: string): Promise<void> {
    for (let dir = folder; dir.startsWith(this.root + sep); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        return; // not empty (or already gone): so are its parents
      }
    }
  }

  /** The blob's path, with its folder created and checked to be inside root. */
  private async prepareParent(key: string): Promise<string> {
    const path = join(this.root, key);
    const folder = dirname(path);
    // Check before creating: mkdir through a symlinked folder would already create outside root.
    await this.rootRealPath(); // root exists, so the walk up stops at or below it
    await this.assertInsideRoot(await deepestExisting(folder), key);
    for (let attempt = 0; ; attempt++) {
      try {
        await mkdir(folder, { recursive: true, mode: FOLDER_MODE });
        break;
      } catch (error) {
        if (errorCode(error) === 'ENOTDIR' || errorCode(error) === 'EEXIST') throw folderConflict(key);
        // A delete may prune the folder while we create it.
        if (!isMissing(error) || attempt >= 3) throw error;
      }
    }
    await this.assertInsideRoot(await realpath(folder), key);
    const existing = await lstat(path).catch(() => null);
    if (existing?.isDirectory()) throw folderConflict(key);
    return path;
  }

  private async assertInsideRoot(realPath: string, key: string): Promise<void> {
    const root = await this.rootRealPath();
    if (realPath !== root && !realPath.startsWith(root + sep)) {
      throw new InvalidInput(`invalid blob key ${JSON.stringify(key)}: it resolves outside the storage root`, 'key');
    }
  }

  private rootRealPath(): Promise<string> {
    this.realRoot ??= mkdir(this.root, { recursive: true, mode: FOLDER_MODE }).then(() => realpath(this.root));
    // A failure (root not creatable) is not cached, so the next call tries again.
    this.realRoot.catch(() => (this.realRoot = undefined));
    return this.realRoot;
  }

  /**
   * Temp files and lonely sidecars of blobs under `prefix`: what a put cut short by a crash leaves
   * (no key names them, so nothing else would ever remove them). A put into the prefix that is
   * still writing loses its temp file and fails, as it would have lost its blob a moment later.
   */
  private async removeLeftovers(prefix: string): Promise<void> {
    for await (const key of this.keys(prefix, 'leftovers')) {
      const path = join(this.root, key);
      await unlink(path).catch((error: unknown) => {
        if (!isMissing(error)) throw error;
      });
      await this.pruneEmptyFolders(dirname(path));
    }
  }

  /**
   * Keys starting with `prefix`, in byte order, read one folder at a time; or, for 'leftovers', the
   * relative paths of the temp files and sidecars whose blob's key starts with it.
   */
  private async *keys(prefix: string, what: 'blobs' | 'leftovers' = 'blobs'): AsyncGenerator<string> {
    // Start in the deepest folder the prefix names in full: `jobs/12/a` starts in `jobs/12`.
    const slash = prefix.lastIndexOf('/');
    const folderKey = slash === -1 ? '' : prefix.slice(0, slash);
    const folder = join(this.root, folderKey);
    const real = await realpath(folder).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
    if (real === null) return;
    await this.assertInsideRoot(real, prefix);
    yield* this.walk(folder, folderKey, prefix, what);
  }

  private async *walk(folder: string, folderKey: string, prefix: string, what: 'blobs' | 'leftovers'): AsyncGenerator<string> {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return; // deleted while we walked
      throw error;
    }
    // Symlinks are neither files nor folders here, so a listing never leaves root. A folder sorts as
    // `name/`, which puts its keys where a flat byte-order sort of full keys would (`a-c` < `a/b`).
    const children = entries
      .filter((entry) => entry.isFile() || entry.isDirectory())
      .map((entry) => ({ key: folderKey ? `${folderKey}/${entry.name}` : entry.name, isFolder: entry.isDirectory() }))
      .map((child) => ({ ...child, sortKey: child.isFolder ? `${child.key}/` : child.key }))
      .sort((a, b) => compareKeys(a.sortKey, b.sortKey));
    for (const child of children) {
      if (child.isFolder) {
        if (!isSafeKey(child.key)) continue;
        if (child.sortKey.startsWith(prefix) || prefix.startsWith(child.sortKey)) yield* this.walk(join(this.root, child.key), child.key, prefix, what);
      } else if (what === 'blobs') {
        if (isSafeKey(child.key) && child.key.startsWith(prefix)) yield child.key;
      } else {
        const owner = leftoverOwner(child.key);
        if (owner !== null && owner.startsWith(prefix)) yield child.key;
      }
    }
  }
}

function tempPath(path: string): string {
  return `${path}~${randomBytes(6).toString('hex')}.tmp`;
}

/** The key of the blob a temp file (`<key>~<random>.tmp`) or sidecar (`<key>~meta.json`) belongs to; null for other files. */
function leftoverOwner(relativePath: string): string | null {
  const match = /^(.+)~(?:[0-9a-f]{12}\.tmp|meta\.json)$/.exec(relativePath);
  return match && isSafeKey(match[1]!) ? match[1]! : null;
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let offset = 0; offset < chunk.length; ) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

async function writeNewFile(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', FILE_MODE);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

async function readSidecar(path: string): Promise<Sidecar | null> {
  try {
    const parsed = JSON.parse(await readFile(path, { encoding: 'utf8', flag: READ_NO_FOLLOW })) as Partial<Sidecar>;
    if (typeof parsed.contentType !== 'string' || typeof parsed.etag !== 'string' || typeof parsed.size !== 'number' || typeof parsed.ino !== 'number') return null;
    return parsed as Sidecar;
  } catch {
    return null; // missing, torn by a crash, or a symlink: treated as stale
  }
}

async function hashFile(handle: FileHandle): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of handle.createReadStream({ start: 0, autoClose: false }) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}

/** The real path of `path` or of its deepest existing ancestor (what a mkdir -p would build on). */
async function deepestExisting(path: string): Promise<string> {
  for (let current = path; ; current = dirname(current)) {
    try {
      return await realpath(current);
    } catch (error) {
      if (!isMissing(error) || dirname(current) === current) throw error;
    }
  }
}

function toInfo(key: string, sidecar: Sidecar, stat: Stats): BlobInfo {
  return { key, size: stat.size, contentType: sidecar.contentType, etag: sidecar.etag, lastModified: stat.mtime };
}

function folderConflict(key: string): Conflict {
  return new Conflict(`blob key ${JSON.stringify(key)} collides with an existing blob: the local store cannot hold both "a" and "a/b"`, 'key');
}

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** ENOTDIR counts as missing: `a/b` cannot exist when `a` is a file. */
function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
