// writeZip streams entries one at a time: these tests read the ZIPs back with yauzl, and check that
// memory does not grow with the archive and that a failing output stops the reading of entries.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { fromBufferPromise, openPromise, type ZipFile } from 'yauzl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/platform/storage/local-blob-store.js';
import { sanitizeEntryName, writeZip, type ZipEntry } from '../../src/platform/storage/zip.js';

const STORE = 0;
const DEFLATE = 8;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

async function readZip(zip: ZipFile): Promise<{ name: string; method: number; data: Buffer }[]> {
  const entries: { name: string; method: number; data: Buffer }[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: { fileName: string; compressionMethod: number }) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of await zip.openReadStreamPromise(entry as never)) chunks.push(chunk as Buffer);
        entries.push({ name: entry.fileName, method: entry.compressionMethod, data: Buffer.concat(chunks) });
        zip.readEntry();
      })().catch(reject);
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return entries;
}

/** Collects what is written, like a fast HTTP client. */
function memorySink(): { sink: Writable; data: () => Buffer } {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  return { sink, data: () => Buffer.concat(chunks) };
}

/**
 * Entries whose bodies are counted: how many were opened, how many are open (not yet read to the
 * end) right now and at most, and whether the generator was closed early.
 */
function countedEntries(count: number, content: (i: number) => Buffer, name: (i: number) => string) {
  const stats = { opened: 0, open: 0, maxOpen: 0, generatorClosed: false, bodies: [] as Readable[] };
  async function* entries(): AsyncGenerator<ZipEntry> {
    try {
      for (let i = 0; i < count; i++) {
        yield {
          name: name(i),
          body: async () => {
            stats.opened++;
            stats.open++;
            stats.maxOpen = Math.max(stats.maxOpen, stats.open);
            const data = content(i);
            const body = Readable.from(
              (function* () {
                for (let offset = 0; offset < data.length; offset += 16_384) yield data.subarray(offset, offset + 16_384);
              })(),
            );
            let counted = true;
            const done = () => {
              if (counted) stats.open--;
              counted = false;
            };
            body.once('end', done).once('close', done);
            stats.bodies.push(body);
            return body;
          },
        };
      }
    } finally {
      stats.generatorClosed = true;
    }
  }
  return { stats, entries: entries() };
}

describe('writeZip', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'zip-test-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('streams 1,000 blobs from the local store into a ZIP that reads back entry for entry', async () => {
    const store = new LocalBlobStore(join(dir, 'files'));
    const expected = new Map<string, string>();
    const extensions = ['jpg', 'txt', 'png', 'json'];
    const keys = Array.from({ length: 1000 }, (_, i) => `export/${String(i).padStart(4, '0')}.${extensions[i % 4]}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(
        keys.slice(i, i + 50).map(async (key, j) => {
          const index = i + j;
          // Mostly small files, five of 1 MB; text repeats so that deflate has something to do.
          const data = index % 200 === 7 ? randomBytes(1024 * 1024) : key.endsWith('.txt') ? Buffer.from(`line ${index}\n`.repeat(index % 50)) : randomBytes((index * 37) % 3000);
          expected.set(key.slice('export/'.length), sha256(data));
          await store.put(key, data, { contentType: 'application/octet-stream' });
        }),
      );
    }
    async function* fromStore(): AsyncGenerator<ZipEntry> {
      for await (const info of store.list('export/')) {
        yield { name: info.key.slice('export/'.length), size: info.size, date: info.lastModified, body: async () => (await store.get(info.key))!.body };
      }
    }
    const zipPath = join(dir, 'export.zip');
    const result = await writeZip(fromStore(), createWriteStream(zipPath));
    expect(result).toEqual({ entries: 1000, bytes: (await stat(zipPath)).size });

    const entries = await readZip(await openPromise(zipPath, { lazyEntries: true }));
    expect(entries.map((entry) => entry.name)).toEqual([...expected.keys()].sort());
    for (const entry of entries) expect(sha256(entry.data), entry.name).toBe(expected.get(entry.name));
    const methods = new Map(entries.map((entry) => [entry.name.split('.')[1], entry.method]));
    expect(Object.fromEntries(methods)).toEqual({ jpg: STORE, png: STORE, txt: DEFLATE, json: DEFLATE });
  });

  it('renames duplicates with (2) style suffixes and sanitises names', async () => {
    const names = ['a.jpg', 'a.jpg', 'A.JPG', 'a (2).jpg', '../evil.txt', '../../etc/passwd', '/abs/x.txt', 'dir\\y.txt', 'C:\\windows\\z.txt', './dot/./e.txt', '..', '', 'noext', 'noext', 'co:lon?.txt'];
    const { sink, data } = memorySink();
    const entries = names.map((name, i) => ({ name, body: async () => Readable.from([Buffer.from(`entry ${i}`)]) }));
    await writeZip(entries, sink);
    const read = await readZip(await fromBufferPromise(data(), { lazyEntries: true }));
    expect(read.map((entry) => entry.name)).toEqual([
      'a.jpg',
      'a (2).jpg',
      'A (3).JPG',
      'a (2) (2).jpg',
      'evil.txt',
      'etc/passwd',
      'abs/x.txt',
      'dir/y.txt',
      'windows/z.txt',
      'dot/e.txt',
      'file',
      'file (2)',
      'noext',
      'noext (2)',
      'co_lon_.txt',
    ]);
    expect(read.map((entry) => entry.data.toString())).toEqual(names.map((_, i) => `entry ${i}`));
    expect(sanitizeEntryName('a/../../b')).toBe('a/b');
  });

  it('opens one body at a time and keeps memory flat for 1,000 x 100 KB entries through a slow output', async () => {
    const content = randomBytes(100 * 1024);
    const { stats, entries } = countedEntries(1000, () => content, (i) => `${i}.${i % 2 ? 'jpg' : 'bin'}`);
    let received = 0;
    // Completes each write a turn of the event loop later, so the archive must wait for it.
    const slowSink = new Writable({
      highWaterMark: 16_384,
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        setImmediate(callback);
      },
    });
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 5);
    try {
      const result = await writeZip(entries, slowSink);
      expect(result.entries).toBe(1000);
      expect(result.bytes).toBe(received);
    } finally {
      clearInterval(sampler);
    }
    expect(received).toBeGreaterThan(1000 * content.length);
    expect(stats.opened).toBe(1000);
    expect(stats.maxOpen).toBe(1);
    expect(rssPeak - rssBefore).toBeLessThan(60 * 1024 * 1024);
  });

  it.each([
    ['fails', (sink: Writable) => sink.destroy(new Error('client went away'))],
    ['closes without an error', (sink: Writable) => sink.destroy()],
  ])('stops opening entries when the output %s', async (_how, breakOff) => {
    const content = randomBytes(64 * 1024);
    const { stats, entries } = countedEntries(1000, () => content, (i) => `${i}.bin`);
    let received = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > 1024 * 1024) breakOff(sink);
        callback();
      },
    });
    await expect(writeZip(entries, sink)).rejects.toThrow(/client went away|premature close/i);
    expect(stats.opened).toBeLessThan(30);
    expect(stats.generatorClosed).toBe(true);
    expect(stats.bodies.every((body) => body.destroyed)).toBe(true);
  });

  it('destroys the output when an entry fails, so a client never gets a complete-looking ZIP', async () => {
    const { sink } = memorySink();
    async function* entries(): AsyncGenerator<ZipEntry> {
      yield { name: 'ok.txt', body: async () => Readable.from([Buffer.from('fine')]) };
      yield {
        name: 'broken.jpg',
        body: async () =>
          new Readable({
            read() {
              this.destroy(new Error('disk read failed'));
            },
          }),
      };
      yield { name: 'never.txt', body: () => Promise.reject(new Error('must not be opened')) };
    }
    await expect(writeZip(entries(), sink)).rejects.toThrow('disk read failed');
    expect(sink.destroyed).toBe(true);
    expect(sink.writableFinished).toBe(false);
  });
});
