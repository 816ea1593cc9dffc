// GET /download/{job_id} streams a ZIP of every file of a job: 1,000 files work, and a job that
// has not completed is a clear 409.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { assetStorageKey } from '../../src/modules/scrape/scrape.crawler.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function jobWithFiles(count: number, state: 'completed' | 'processing') {
  const { db, blobs } = t.app.services;
  const owner = await db.prisma.account.findUniqueOrThrow({ where: { handle: 'owner' } });
  const job = await db.prisma.job.create({ data: { accountId: owner.id, kind: 'scrape', input: {}, state } });
  const rows = [];
  for (let i = 0; i < count; i++) {
    const filename = `image-${i}.png`;
    const body = Buffer.from(`file number ${i} `.repeat(20));
    await blobs.put(assetStorageKey(job.id, filename), body, { contentType: 'image/png' });
    rows.push({ jobId: job.id, filename, url: `https://example.com/${filename}`, type: 'image', contentType: 'image/png', size: body.length, sha256: String(i), storageKey: assetStorageKey(job.id, filename) });
  }
  await db.prisma.asset.createMany({ data: rows });
  return job.id;
}

function readZip(buffer: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(buffer, { lazyEntries: true }, (error, zip) => {
      if (error) return reject(error);
      const entries = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks).toString());
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('GET /download/{job_id}', () => {
  it('streams a ZIP of 1,000 files with the right names and contents', { timeout: 60_000 }, async () => {
    const jobId = await jobWithFiles(1000, 'completed');
    const response = await fetch(`${t.url}/download/${jobId}`, { headers: { 'X-API-Key': t.ownerKey } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename=job-${jobId}.zip`);
    expect(response.headers.get('content-length')).toBeNull(); // streamed, not built first
    const entries = await readZip(Buffer.from(await response.arrayBuffer()));
    expect(entries.size).toBe(1000);
    expect(entries.get('image-0.png')).toBe('file number 0 '.repeat(20));
    expect(entries.get('image-999.png')).toBe('file number 999 '.repeat(20));
  });

  it('answers 409 while the job has not completed, and 400 for a non-numeric id', async () => {
    const jobId = await jobWithFiles(1, 'processing');
    const res = await t.request('GET', `/download/${jobId}`, { key: t.ownerKey });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ success: false, error: `job ${jobId} is processing; its archive is available once it has completed` });
    const bad = await t.request('GET', '/download/abc', { key: t.ownerKey });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('job_id: expected an integer job id');
  });
});
