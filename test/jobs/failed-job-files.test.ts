// A failed job keeps no files: what it stored under its prefix in the blob store (jobs/<id>/) and
// its asset rows go as it becomes failed (JobsService.fail), whether its crawl died under it or it
// was given up after interruptions, and also when the first try at it stopped half-way. A
// completed job keeps its files.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SCRAPES, QUICK_JOBS, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { jobFilesPrefix } from '../../src/modules/jobs/jobs.service.js';
import type { CrawlProcessPool } from '../../src/modules/scrape/crawl-process-pool.js';
import { LocalBlobStore } from '../../src/platform/storage/local-blob-store.js';

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite({ slowMs: 5000 });
});
afterAll(() => site.close());

async function storedKeys(t: TestApp, jobId: number): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of t.app.services.blobs.list(jobFilesPrefix(jobId))) keys.push(blob.key);
  return keys;
}

async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a scrape job that fails after storing files', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(LOCAL_SCRAPES);
  });
  afterAll(() => t.stop());

  const scrape = async (body: Record<string, unknown>) => {
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { force: true, ...body } });
    expect(started.status, started.text).toBe(202);
    return started.body.job_id as number;
  };

  it('leaves no blobs under its prefix and no rows, answers failed without files, and a completed job keeps its files', async () => {
    const completed = await waitForJob(t, t.ownerKey, await scrape({ url: `${site.url}/gallery/1` }));
    expect(completed.body.status).toBe('completed');
    const completedKeys = await storedKeys(t, completed.body.job_id);
    expect(completedKeys).toHaveLength(completed.body.assets.count);

    // Its two pictures are stored while the crawl waits for the slow page it links to; then its
    // crawl process dies (as one that runs out of memory does).
    const slowBefore = site.hits.get('/slow') ?? 0;
    const jobId = await scrape({ url: `${site.url}/then-slow`, sniper_mode: false, crawl_depth: 1 });
    await eventually(async () => (await storedKeys(t, jobId)).length === 2 && (site.hits.get('/slow') ?? 0) > slowBefore, 'two stored files and the slow page asked for');
    const [stored] = await storedKeys(t, jobId);
    const [pid] = (t.app.services.crawler as CrawlProcessPool).pids;
    process.kill(pid!, 'SIGKILL');

    const failed = await waitForJob(t, t.ownerKey, jobId);
    expect(failed.body).toMatchObject({ success: false, status: 'failed', job_id: jobId, error: expect.stringMatching(/^the crawl process stopped unexpectedly/) });
    expect(failed.body.assets).toBeUndefined();
    expect(await storedKeys(t, jobId)).toEqual([]);
    expect(await t.app.services.db.prisma.asset.count({ where: { jobId } })).toBe(0);
    const graphql = await t.graphql('query($id: Int!) { job(id: $id) { state assets { totalCount } } }', { id: jobId }, { key: t.ownerKey });
    expect(graphql.body.data.job).toEqual({ state: 'failed', assets: { totalCount: 0 } });
    const file = await t.request('GET', `/files/${jobId}/${stored!.split('/').pop()}`, { key: t.ownerKey });
    expect(file.status).toBe(404);
    expect((await t.request('GET', `/download/${jobId}`, { key: t.ownerKey })).status).toBe(409);

    // The completed jobs, before and after, keep theirs.
    expect(await storedKeys(t, completed.body.job_id)).toEqual(completedKeys);
    const after = await waitForJob(t, t.ownerKey, await scrape({ url: `${site.url}/gallery/2` }));
    expect(after.body.status).toBe('completed');
    expect(await storedKeys(t, after.body.job_id)).toHaveLength(after.body.assets.count);
    const download = await fetch(after.body.assets.items[0].download_url, { headers: { 'X-API-Key': t.ownerKey } });
    expect(download.status).toBe(200);
  });
});

describe('a job run again after an interruption', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(LOCAL_SCRAPES);
  });
  afterAll(() => t.stop());

  it('starts clean: what the cut-short try stored, and the temp files of its unfinished writes, are gone', async () => {
    const { db, blobs } = t.app.services;
    const owner = await db.prisma.account.findUniqueOrThrow({ where: { handle: 'owner' } });
    // Its first worker died while it was processing: the lease ran out.
    const job = await db.prisma.job.create({
      data: { accountId: owner.id, kind: 'scrape', input: { url: `${site.url}/gallery/1`, force: true }, state: 'processing', attempts: 1, leaseOwner: 'dead-worker', leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    const png = site.images.get('/img/page1.png')!;
    const stale = `${jobFilesPrefix(job.id)}no-longer-on-the-site.png`;
    await blobs.put(stale, png, { contentType: 'image/png' });
    const temp = blobs instanceof LocalBlobStore ? join(blobs.root, `${jobFilesPrefix(job.id)}cut-short.png~0123456789ab.tmp`) : null;
    if (temp) await writeFile(temp, 'half a file');
    expect(await t.app.services.jobs.recoverExpired()).toEqual([job.id]);

    const done = await waitForJob(t, t.ownerKey, job.id);
    expect(done.body.status).toBe('completed');
    const keys = await storedKeys(t, job.id);
    expect(keys).not.toContain(stale);
    const rows = await db.prisma.asset.findMany({ where: { jobId: job.id }, select: { storageKey: true } });
    expect(rows.length).toBeGreaterThan(0);
    expect(keys.sort()).toEqual(rows.map((row) => row.storageKey).sort());
    if (temp) expect(existsSync(temp)).toBe(false);
  });
});

describe('a job given up after interruptions', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No workers, so no recovery runs but the test's own.
    t = await startTestApp({ runWorkers: false, jobs: QUICK_JOBS });
  });
  afterAll(() => t.stop());

  it('loses the files its dead worker stored, also when the first try at failing it stops half-way', async () => {
    const { db, blobs, jobs } = t.app.services;
    const owner = await db.prisma.account.findUniqueOrThrow({ where: { handle: 'owner' } });
    const job = await db.prisma.job.create({
      data: { accountId: owner.id, kind: 'scrape', input: { url: `${site.url}/gallery/1` }, state: 'processing', attempts: 2, leaseOwner: 'dead-worker', leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    // A neighbour whose id starts the same way keeps its files.
    const neighbourKey = `${jobFilesPrefix(job.id).slice(0, -1)}0/keep.png`;
    const png = site.images.get('/img/page1.png')!;
    await blobs.put(neighbourKey, png, { contentType: 'image/png' });
    // What the dead worker stored: two files and their rows.
    const files = ['a.png', 'b.png'].map((filename) => ({ filename, storageKey: `${jobFilesPrefix(job.id)}${filename}` }));
    for (const { storageKey } of files) await blobs.put(storageKey, png, { contentType: 'image/png' });
    await db.prisma.asset.createMany({
      data: files.map((f) => ({ ...f, jobId: job.id, url: `${site.url}/${f.filename}`, type: 'image', contentType: 'image/png', size: png.length, sha256: f.filename })),
    });

    // The first try stops after deleting the files, before the job is marked failed (a listener of
    // the finishing transaction throws, so it rolls back): the job is still in processing.
    let interrupt = true;
    jobs.onFinished(async (finished) => {
      if (finished.id === job.id && interrupt) {
        interrupt = false;
        throw new Error('stopped half-way');
      }
    });
    expect(await jobs.recoverExpired()).toEqual([]);
    expect(await db.prisma.job.findUniqueOrThrow({ where: { id: job.id } })).toMatchObject({ state: 'processing' });
    expect(await storedKeys(t, job.id)).toEqual([]);

    // The next recovery fails it: the rows go with the state, and deleting again finds nothing.
    expect(await jobs.recoverExpired()).toEqual([]);
    const failed = await t.request('GET', `/api/jobs/${job.id}`, { key: t.ownerKey });
    expect(failed.body).toMatchObject({ success: false, status: 'failed', error: expect.stringMatching(/interrupted 2 times/) });
    expect(await db.prisma.asset.count({ where: { jobId: job.id } })).toBe(0);
    expect(await storedKeys(t, job.id)).toEqual([]);
    expect(await blobs.head(neighbourKey)).not.toBeNull();
    // Once failed, it is not failed again.
    expect(await jobs.fail(job.id, 'dead-worker', 'again')).toBeNull();
  });
});
