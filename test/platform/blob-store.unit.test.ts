// One contract for every BlobStore adapter: the local folder store in a temp dir, and the S3 store
// against a real S3-compatible server (s3rver on a random port), so both behave the same to callers.
import { createHash } from 'node:crypto';
import { mkdtemp, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidInput } from '../../src/platform/errors.js';
import { RangeNotSatisfiable, type BlobStore } from '../../src/platform/storage/blob-store.js';
import { createBlobStore } from '../../src/platform/storage/index.js';
import { LocalBlobStore } from '../../src/platform/storage/local-blob-store.js';
import { S3BlobStore } from '../../src/platform/storage/s3-blob-store.js';
import { startS3rver } from '../helpers/s3.js';

interface Running {
  store: BlobStore;
  stop: () => Promise<void>;
}

const adapters: { name: string; start: () => Promise<Running> }[] = [
  {
    name: 'local',
    async start() {
      const dir = await mkdtemp(join(tmpdir(), 'blob-local-'));
      return { store: new LocalBlobStore(join(dir, 'files')), stop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    async start() {
      const dir = await mkdtemp(join(tmpdir(), 'blob-s3rver-'));
      const server = await startS3rver(dir, 'test-bucket');
      // Through the factory, as the service builds it when S3_BUCKET is set.
      const store = await createBlobStore({
        dataDir: dir,
        s3: {
          bucket: 'test-bucket',
          endpoint: `http://127.0.0.1:${server.port}`,
          region: 'us-east-1',
          accessKeyId: 'S3RVER',
          secretAccessKey: 'S3RVER',
          forcePathStyle: true,
          prefix: 'svc', // every key lives under `svc/`: the store must add and strip it
        },
      });
      if (!(store instanceof S3BlobStore)) throw new Error('createBlobStore with S3 settings must give the S3 adapter');
      return {
        store,
        stop: async () => {
          store.client.destroy();
          await server.stop();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A deterministic body of `size` bytes in 64 KB chunks, with no length known up front. */
function generated(size: number): { stream: Readable; digest: () => string } {
  const hash = createHash('sha256');
  async function* chunks() {
    for (let offset = 0; offset < size; offset += 65_536) {
      const chunk = Buffer.alloc(Math.min(65_536, size - offset), offset % 251);
      hash.update(chunk);
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks()), digest: () => hash.digest('hex') };
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

describe.each(adapters)('BlobStore contract: $name', (adapter) => {
  let store: BlobStore;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    ({ store, stop } = await adapter.start());
  });
  afterAll(() => stop());

  it('round-trips content, content type, size and etag through put, head and get', async () => {
    const put = await store.put('round/photo.png', Buffer.from('not really a png'), { contentType: 'image/png' });
    expect(put).toMatchObject({ key: 'round/photo.png', size: 16, contentType: 'image/png', etag: expect.stringMatching(/^[0-9a-f-]+$/) });
    expect(put.lastModified).toBeInstanceOf(Date);
    expect(await store.head('round/photo.png')).toEqual(put);
    const got = await store.get('round/photo.png');
    expect(got?.info).toEqual(put);
    expect((await readAll(got!.body)).toString()).toBe('not really a png');
    if (adapter.name === 'local') expect(put.etag).toBe(sha256('not really a png'));
    if (store instanceof S3BlobStore) {
      // The configured prefix is added on the way in and stripped on the way out.
      const raw = await store.client.send(new ListObjectsV2Command({ Bucket: 'test-bucket', Prefix: 'svc/round/' }));
      expect(raw.Contents?.map((object) => object.Key)).toEqual(['svc/round/photo.png']);
      expect(put.etag).toBe(createHash('md5').update('not really a png').digest('hex'));
    }

    // The etag is a content validator: same bytes, same etag; other bytes, another one.
    const twin = await store.put('round/twin.png', Buffer.from('not really a png'), { contentType: 'image/png' });
    expect(twin.etag).toBe(put.etag);
    const replaced = await store.put('round/photo.png', Buffer.from('changed'), { contentType: 'image/webp' });
    expect(replaced.etag).not.toBe(put.etag);
    expect(await store.head('round/photo.png')).toMatchObject({ size: 7, contentType: 'image/webp', etag: replaced.etag });
  });

  it('stores an empty blob', async () => {
    const info = await store.put('round/empty.txt', Buffer.alloc(0), { contentType: 'text/plain' });
    expect(info.size).toBe(0);
    const got = await store.get('round/empty.txt');
    expect((await readAll(got!.body)).length).toBe(0);
  });

  it('streams a put of unknown length (5 MB and a bit, more than one S3 part)', async () => {
    const size = 5 * 1024 * 1024 + 12_345;
    const body = generated(size);
    const info = await store.put('stream/big.bin', body.stream, { contentType: 'application/octet-stream' });
    expect(info.size).toBe(size);
    const got = await store.get('stream/big.bin');
    expect(got?.info.size).toBe(size);
    const read = await readAll(got!.body);
    expect(read.length).toBe(size);
    expect(sha256(read)).toBe(body.digest());
  });

  it('refuses a body that breaks its promised size, and stores nothing', async () => {
    await expect(store.put('size/short.bin', generated(1000).stream, { contentType: 'application/octet-stream', size: 2000 })).rejects.toThrow(/size: the body has 1000 bytes, expected 2000/);
    await expect(store.put('size/long.bin', generated(3000).stream, { contentType: 'application/octet-stream', size: 2000 })).rejects.toThrow(/more than 2000/);
    await expect(store.put('size/buffer.bin', Buffer.alloc(10), { contentType: 'application/octet-stream', size: 11 })).rejects.toBeInstanceOf(InvalidInput);
    expect(await collect(store.list('size/'))).toEqual([]);
  });

  it('gets byte ranges, inclusive, clamped at the end, with the whole size in info', async () => {
    const content = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    await store.put('range/data.bin', content, { contentType: 'application/octet-stream' });
    const middle = await store.get('range/data.bin', { start: 10, end: 19 });
    expect(middle?.range).toEqual({ start: 10, end: 19 });
    expect(middle?.info.size).toBe(1000);
    expect(await readAll(middle!.body)).toEqual(content.subarray(10, 20));
    const tail = await store.get('range/data.bin', { start: 990 });
    expect(tail?.range).toEqual({ start: 990, end: 999 });
    expect(await readAll(tail!.body)).toEqual(content.subarray(990));
    const clamped = await store.get('range/data.bin', { start: 995, end: 5000 });
    expect(clamped?.range).toEqual({ start: 995, end: 999 });
    expect((await readAll(clamped!.body)).length).toBe(5);
    await expect(store.get('range/data.bin', { start: 1000 })).rejects.toSatisfy((error) => error instanceof RangeNotSatisfiable && error.size === 1000 && error.status === 416);
    await expect(store.get('range/data.bin', { start: 5, end: 4 })).rejects.toBeInstanceOf(InvalidInput);
  });

  it('answers null for a missing key, and deleting one is fine', async () => {
    expect(await store.get('missing/nothing.jpg')).toBeNull();
    expect(await store.get('missing/nothing.jpg', { start: 0, end: 10 })).toBeNull();
    expect(await store.head('missing/nothing.jpg')).toBeNull();
    await expect(store.delete('missing/nothing.jpg')).resolves.toBeUndefined();
  });

  it('deletes one blob, and every blob under a prefix', async () => {
    for (const key of ['del/one.txt', 'del/job-1/a.jpg', 'del/job-1/b/c.jpg', 'del/job-12/a.jpg', 'del/job-2/a.jpg']) {
      await store.put(key, Buffer.from(key), { contentType: 'text/plain' });
    }
    await store.delete('del/one.txt');
    expect(await store.head('del/one.txt')).toBeNull();
    expect(await store.deletePrefix('del/job-1/')).toBe(2);
    expect((await collect(store.list('del/'))).map((info) => info.key)).toEqual(['del/job-12/a.jpg', 'del/job-2/a.jpg']);
    // A prefix is a plain string prefix, as in S3: `del/job-` covers job-12 and job-2.
    expect(await store.deletePrefix('del/job-')).toBe(2);
    expect(await collect(store.list('del/'))).toEqual([]);
    expect(await store.deletePrefix('del/')).toBe(0);
    await expect(store.deletePrefix('')).rejects.toThrow(/refusing to delete every blob/);
  });

  it('lists by prefix in byte order, with full info', async () => {
    const keys = ['list/B', 'list/a/b', 'list/b.txt', 'list/a/c/d', 'list/a0', 'list/z', 'lister/x'];
    // A folder's keys sort among its siblings as `name/` does: `a-c` < `a.txt` < `a/b`. S3 and the
    // local store get this right; s3rver lists folder by folder, so this part is local only.
    if (adapter.name === 'local') keys.push('list/a-c', 'list/a.txt', 'list/a/b-c');
    for (const key of keys) await store.put(key, Buffer.from(key), { contentType: key.endsWith('.txt') ? 'text/plain' : 'application/x-test' });
    const sorted = [...keys].sort(byteOrder);
    const listed = await collect(store.list('list/'));
    expect(listed.map((info) => info.key)).toEqual(sorted.filter((key) => key.startsWith('list/')));
    expect(listed.find((info) => info.key === 'list/b.txt')).toMatchObject({ size: 10, contentType: 'text/plain', etag: (await store.head('list/b.txt'))!.etag });
    expect(listed.find((info) => info.key === 'list/z')).toMatchObject({ size: 6, contentType: 'application/x-test' });
    expect((await collect(store.list('list/a'))).map((info) => info.key)).toEqual(sorted.filter((key) => key.startsWith('list/a')));
    expect((await collect(store.list('list'))).map((info) => info.key)).toEqual(sorted);
    expect(await collect(store.list('nothing-here/'))).toEqual([]);
  });

  it('lists and deletes past one S3 page (1,005 blobs)', async () => {
    const keys = Array.from({ length: 1005 }, (_, i) => `many/${String(i).padStart(4, '0')}.txt`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((key) => store.put(key, Buffer.from('x'), { contentType: 'text/plain' })));
    }
    const listed = await collect(store.list('many/'));
    expect(listed.map((info) => info.key)).toEqual(keys);
    expect(listed.every((info) => info.size === 1 && info.contentType === 'text/plain')).toBe(true);
    expect(await store.deletePrefix('many/')).toBe(1005);
    expect(await collect(store.list('many/'))).toEqual([]);
  });

  const unsafeKeys = ['../x', '/abs', 'a//b', 'a/./b', 'a/../b', '%2e%2e/x', 'a/', '', 'a b', 'a\\b', 'x'.repeat(513)];
  it.each(unsafeKeys.map((key) => [key.length > 100 ? `of ${key.length} characters` : JSON.stringify(key), key]))('refuses the unsafe key %s in every method', async (_label, key) => {
    const refused = expect.objectContaining({ status: 400, message: expect.stringMatching(/^invalid blob key/) });
    await expect(store.put(key, Buffer.from('x'), { contentType: 'text/plain' })).rejects.toEqual(refused);
    await expect(store.get(key)).rejects.toEqual(refused);
    await expect(store.head(key)).rejects.toEqual(refused);
    await expect(store.delete(key)).rejects.toEqual(refused);
  });

  it('refuses unsafe prefixes, and names the problem', async () => {
    await expect(collect(store.list('../'))).rejects.toThrow(/invalid blob prefix "..\/": it has a ".." segment/);
    await expect(store.deletePrefix('/abs')).rejects.toThrow(/must not start with \//);
    await expect(store.put('a//b', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/empty segment/);
    await expect(store.put('x'.repeat(513), Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(/513 characters long, the maximum is 512/);
  });
});

describe('LocalBlobStore on disk', () => {
  let dir: string;
  let root: string;
  let outside: string;
  let store: LocalBlobStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blob-local-fs-'));
    root = join(dir, 'files');
    outside = join(dir, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'secret.txt'), 'secret');
    store = new LocalBlobStore(root);
    await store.put('plain/file.txt', Buffer.from('inside'), { contentType: 'text/plain' });
    await symlink(outside, join(root, 'link'));
    await symlink(join(outside, 'secret.txt'), join(root, 'plain', 'secret-link.txt'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is what createBlobStore gives without S3 settings, under DATA_DIR/files', async () => {
    const created = await createBlobStore({ dataDir: dir });
    expect(created).toBeInstanceOf(LocalBlobStore);
    expect((created as LocalBlobStore).root).toBe(root);
  });

  it('cannot read, write, list or delete through a symlink that points outside root', async () => {
    const outsideRoot = /resolves outside the storage root/;
    await expect(store.get('link/secret.txt')).rejects.toThrow(outsideRoot);
    await expect(store.head('link/secret.txt')).rejects.toThrow(outsideRoot);
    await expect(store.get('plain/secret-link.txt')).rejects.toThrow(outsideRoot);
    await expect(store.put('link/new.txt', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(outsideRoot);
    await expect(store.put('link/sub/new.txt', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toThrow(outsideRoot);
    await expect(store.delete('link/secret.txt')).rejects.toThrow(outsideRoot);
    await expect(store.deletePrefix('link/')).rejects.toThrow(outsideRoot);
    expect((await collect(store.list(''))).map((info) => info.key)).toEqual(['plain/file.txt']);
    expect((await readdir(outside)).sort()).toEqual(['secret.txt']);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  it("writes files for the service's user only (0600) in folders only it can open (0700)", async () => {
    await store.put('modes/deep/a.jpg', Buffer.from('jpeg'), { contentType: 'image/jpeg' });
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    expect(await mode(join(root, 'modes/deep/a.jpg'))).toBe(0o600);
    expect(await mode(join(root, 'modes/deep/a.jpg~meta.json'))).toBe(0o600);
    expect(await mode(join(root, 'modes/deep'))).toBe(0o700);
    expect(await mode(join(root, 'modes'))).toBe(0o700);
    expect(await mode(root)).toBe(0o700);
  });

  it('keeps the sidecar next to the blob, never listed, and leaves no temp files', async () => {
    await store.put('side/a.jpg', Buffer.from('jpeg'), { contentType: 'image/jpeg' });
    expect((await readdir(join(root, 'side'))).sort()).toEqual(['a.jpg', 'a.jpg~meta.json']);
    expect(JSON.parse(await readFile(join(root, 'side', 'a.jpg~meta.json'), 'utf8'))).toMatchObject({ contentType: 'image/jpeg', etag: sha256('jpeg'), size: 4 });
    expect((await collect(store.list('side/'))).map((info) => info.key)).toEqual(['side/a.jpg']);
    await store.delete('side/a.jpg');
    await expect(readdir(join(root, 'side'))).rejects.toMatchObject({ code: 'ENOENT' }); // the emptied folder is pruned
  });

  it('deletes under a prefix what puts cut short by a crash left there, and nothing outside it', async () => {
    await store.put('cut/12/kept.jpg', Buffer.from('a'), { contentType: 'image/jpeg' });
    await store.put('cut/13/other.jpg', Buffer.from('b'), { contentType: 'image/jpeg' });
    // A temp file of each of a put's writes, and a sidecar renamed into place before its blob was.
    await writeFile(join(root, 'cut/12/half.jpg~0123456789ab.tmp'), 'half');
    await writeFile(join(root, 'cut/12/kept.jpg~ba9876543210.tmp'), '{}');
    await writeFile(join(root, 'cut/12/lonely.jpg~meta.json'), '{}');
    await writeFile(join(root, 'cut/13/half.jpg~0123456789ab.tmp'), 'half');
    expect(await store.deletePrefix('cut/12/')).toBe(1);
    await expect(readdir(join(root, 'cut/12'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(join(root, 'cut/13'))).sort()).toEqual(['half.jpg~0123456789ab.tmp', 'other.jpg', 'other.jpg~meta.json']);
    // Only the blob's own leftovers: a name with a tilde that no put writes is not one of them.
    await writeFile(join(root, 'cut/13/notes~draft.txt'), 'mine');
    expect(await store.deletePrefix('cut/13/')).toBe(1);
    expect(await readdir(join(root, 'cut/13'))).toEqual(['notes~draft.txt']);
  });

  it('rebuilds the etag when the sidecar describes another file (a crash between the two renames)', async () => {
    await store.put('crash/a.txt', Buffer.from('old'), { contentType: 'text/plain' });
    await writeFile(join(root, 'crash', 'replacement'), 'new content');
    await rename(join(root, 'crash', 'replacement'), join(root, 'crash', 'a.txt'));
    const info = await store.head('crash/a.txt');
    expect(info).toMatchObject({ size: 11, etag: sha256('new content') });
  });

  it('never shows a reader a body that does not match its etag while the blob is being replaced', async () => {
    const versions = [Buffer.alloc(300_000, 'a'), Buffer.alloc(200_000, 'b')];
    await store.put('race/blob', versions[0]!, { contentType: 'text/a' });
    const writes = Array.from({ length: 20 }, (_, i) => store.put('race/blob', versions[i % 2]!, { contentType: i % 2 ? 'text/b' : 'text/a' }));
    const reads = Array.from({ length: 40 }, async () => {
      const got = await store.get('race/blob');
      const body = await readAll(got!.body);
      expect(sha256(body)).toBe(got!.info.etag);
      expect(body.length).toBe(got!.info.size);
      expect(got!.info.contentType).toBe(`text/${String.fromCharCode(body[0]!)}`);
    });
    await Promise.all([...writes, ...reads]);
    expect((await readdir(join(root, 'race'))).sort()).toEqual(['blob', 'blob~meta.json']);
    // Puts of one key do not interleave their renames: the sidecar left describes the blob left.
    const sidecar = JSON.parse(await readFile(join(root, 'race', 'blob~meta.json'), 'utf8')) as { etag: string };
    expect(sidecar.etag).toBe(sha256(await readFile(join(root, 'race', 'blob'))));
  });

  it('refuses a key that would need a blob to be a folder too', async () => {
    await store.put('clash/a', Buffer.from('x'), { contentType: 'text/plain' });
    await expect(store.put('clash/a/b', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toMatchObject({ status: 409 });
    await store.put('clash/d/e', Buffer.from('x'), { contentType: 'text/plain' });
    await expect(store.put('clash/d', Buffer.from('x'), { contentType: 'text/plain' })).rejects.toMatchObject({ status: 409 });
    expect(await store.head('clash/d')).toBeNull();
  });
});

// What a backup relies on (src/platform/backup.ts): while frozen no stored file changes, and the
// links linkAll makes keep the bytes of the moment whatever happens to the store afterwards.
describe('LocalBlobStore freeze and linkAll', () => {
  let dir: string;
  let store: LocalBlobStore;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blob-freeze-'));
    store = new LocalBlobStore(join(dir, 'files'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('holds puts and deletes until thawed, and the links keep the frozen bytes', async () => {
    await store.put('a/old.txt', Buffer.from('old'), { contentType: 'text/plain' });
    await store.put('a/gone.txt', Buffer.from('gone'), { contentType: 'text/plain' });
    const thaw = await store.freeze();
    let settled = 0;
    const put = store.put('a/old.txt', Buffer.from('new'), { contentType: 'text/plain' }).then(() => settled++);
    const added = store.put('a/added.txt', Buffer.from('added'), { contentType: 'text/plain' }).then(() => settled++);
    const removed = store.delete('a/gone.txt').then(() => settled++);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBe(0);
    const links = join(dir, 'links');
    expect(await store.linkAll(links)).toEqual(['a/gone.txt', 'a/old.txt']);
    thaw();
    await Promise.all([put, added, removed]);
    expect(await store.head('a/gone.txt')).toBeNull();
    expect(await readFile(join(dir, 'files', 'a', 'old.txt'), 'utf8')).toBe('new');
    expect(await readFile(join(links, 'a', 'old.txt'), 'utf8')).toBe('old');
    expect(await readFile(join(links, 'a', 'gone.txt'), 'utf8')).toBe('gone');
    expect(JSON.parse(await readFile(join(links, 'a', 'old.txt~meta.json'), 'utf8'))).toMatchObject({ contentType: 'text/plain', size: 3 });
  });

  it('lets a put under way keep writing, and commits it after the thaw', async () => {
    const body = new Readable({ read() {} });
    const put = store.put('b/slow.txt', body, { contentType: 'text/plain' });
    body.push('slow');
    setTimeout(() => {
      body.push(null);
    }, 50);
    const thaw = await store.freeze();
    // The put was writing its temp file, not committing, so the freeze did not wait for it: it waits now.
    const links = join(dir, 'links-2');
    expect(await store.linkAll(links)).not.toContain('b/slow.txt');
    thaw();
    await put;
    expect(await store.head('b/slow.txt')).not.toBeNull();
  });
});
