// Job mechanics: live progress over graphql-ws for a real scrape, and recovery after a crash
// (queued jobs run after a restart; a job caught in processing runs once more, then fails).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_JOBS, LOCAL_FETCH, ADMIN_TOKEN, startTestApp, TEST_TIERS, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';

let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

describe('jobUpdated subscription', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ fetch: LOCAL_FETCH, jobs: QUICK_JOBS });
  });
  afterAll(() => t.stop());

  it('shows queued, processing with counts, then completed for a real scrape', async () => {
    // Hold the only worker with a first job so the watched one is still queued when we subscribe.
    const blocker = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/`, sniper_mode: false, crawl_depth: 2, force: true } });
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/`, force: true } });
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': t.ownerKey } });
    const seen: Array<{ state: string; assetsStored: number }> = [];
    await new Promise<void>((resolve, reject) => {
      client.subscribe<{ jobUpdated: { state: string; assetsStored: number } }>(
        { query: `subscription { jobUpdated(id: ${started.body.job_id}) { state assetsStored } }` },
        { next: (value) => seen.push(value.data!.jobUpdated), error: reject, complete: resolve },
      );
    });
    await client.dispose();
    await waitForJob(t, t.ownerKey, blocker.body.job_id);
    const states = seen.map((s) => s.state);
    expect(states[0]).toBe('queued');
    expect(states).toContain('processing');
    expect(states.at(-1)).toBe('completed');
    expect(states.indexOf('processing')).toBeLessThan(states.lastIndexOf('completed'));
    expect(seen.at(-1)!.assetsStored).toBeGreaterThan(0);
    // Progress counts only grow.
    const stored = seen.map((s) => s.assetsStored);
    expect([...stored].sort((a, b) => a - b)).toEqual(stored);
  });

  it("refuses another account's job", async () => {
    const other = await t.createAccount('sub-other');
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/gallery/3` } });
    const client = createClient({ url: `${t.url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': other.key } });
    const result = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: `subscription { jobUpdated(id: ${started.body.job_id}) { state } }` }, { next: resolve, error: resolve, complete: () => resolve('complete') });
    });
    await client.dispose();
    expect(JSON.stringify(result)).toContain(`no job ${started.body.job_id}`);
  });
});

describe('job assets', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  it('are listed once the job has completed, not while it runs (polls stay cheap)', async () => {
    const { db } = t.app.services;
    const owner = await db.prisma.account.findUniqueOrThrow({ where: { handle: 'owner' } });
    const job = await db.prisma.job.create({ data: { accountId: owner.id, kind: 'scrape', input: {}, state: 'processing', assetsFound: 3, assetsStored: 3 } });
    await db.prisma.asset.createMany({
      data: [0, 1, 2].map((i) => ({ jobId: job.id, filename: `a-${i}.png`, url: `https://example.com/${i}.png`, type: 'image', contentType: 'image/png', size: 10, sha256: `h${i}`, storageKey: `k${i}` })),
    });
    const query = 'query($id: Int!) { job(id: $id) { state assetsStored assets(first: 10) { totalCount edges { node { filename } } } } }';
    const running = await t.graphql(query, { id: job.id }, { key: t.ownerKey });
    expect(running.body.data.job).toEqual({ state: 'processing', assetsStored: 3, assets: { totalCount: 0, edges: [] } });
    const poll = await t.request('GET', `/api/jobs/${job.id}`, { key: t.ownerKey });
    expect(poll.body).toMatchObject({ success: true, status: 'processing', progress: { assets_stored: 3 } });
    expect(poll.body.assets).toBeUndefined();

    await db.prisma.job.update({ where: { id: job.id }, data: { state: 'completed', finishedAt: new Date() } });
    const done = await t.graphql(query, { id: job.id }, { key: t.ownerKey });
    expect(done.body.data.job.assets.totalCount).toBe(3);
    expect(done.body.data.job.assets.edges.map((e: { node: { filename: string } }) => e.node.filename)).toEqual(['a-0.png', 'a-1.png', 'a-2.png']);
    const completed = await t.request('GET', `/api/jobs/${job.id}`, { key: t.ownerKey });
    expect(completed.body.assets.count).toBe(3);
  });
});

describe('restarts', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  async function persistentConfig(): Promise<Config> {
    const dir = mkdtempSync(join(tmpdir(), 'jobs-restart-'));
    const database = await createTestDatabase();
    cleanups.push(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    return loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN },
      { databaseUrl: database.url, tiers: TEST_TIERS, fetch: LOCAL_FETCH, jobs: { concurrency: 1, leaseMs: 500, pollMs: 50 } },
    );
  }

  it('runs queued jobs after a restart, retries a job interrupted once, and fails one interrupted twice', async () => {
    const config = await persistentConfig();
    const logger = createLogger('silent');
    // First life: jobs are recorded but no worker runs (as if the process died at once).
    const first = await buildApp({ ...config, runWorkers: false }, { logger });
    await first.start(0, '127.0.0.1');
    const key = first.initialAccount!.apiKey;
    const db = first.services.db.prisma;
    const owner = await db.account.findUniqueOrThrow({ where: { handle: 'owner' } });
    const queued = await first.services.scrape.start({ accountId: owner.id, handle: 'owner', tier: 'standard', keyId: 0, keyKind: 'master', scopes: new Set(), requestBudget: null }, { url: `${site.url}/gallery/1` });
    // Two jobs caught in processing by the "crash": one on its first attempt, one already retried.
    const interruptedOnce = await db.job.create({
      data: { accountId: owner.id, kind: 'scrape', input: { url: `${site.url}/gallery/2`, sniper_mode: true, max_files: 100, min_size_kb: 0, download_videos: false, download_docs: false, ai_labeling: false, crawl_depth: 1, force: true }, state: 'processing', attempts: 1, leaseOwner: 'dead-process', leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    const interruptedTwice = await db.job.create({
      data: { accountId: owner.id, kind: 'scrape', input: { url: `${site.url}/gallery/3` }, state: 'processing', attempts: 2, leaseOwner: 'dead-process', leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    await first.stop();

    // Second life, with workers.
    const second = await buildApp(config, { logger });
    cleanups.push(() => second.stop());
    const url = await second.start(0, '127.0.0.1');
    const poll = async (id: number) => {
      for (let i = 0; i < 400; i++) {
        const res = await fetch(`${url}/api/jobs/${id}`, { headers: { 'X-API-Key': key } });
        const body = await res.json();
        if (body.status === 'completed' || body.status === 'failed') return body;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`job ${id} did not finish`);
    };
    expect((await poll(queued.id)).status).toBe('completed');
    expect((await poll(interruptedOnce.id)).status).toBe('completed');
    const failed = await poll(interruptedTwice.id);
    expect(failed).toMatchObject({ success: false, status: 'failed', error: expect.stringMatching(/interrupted 2 times/) });
    const attempts = await second.services.db.prisma.job.findMany({ where: { id: { in: [queued.id, interruptedOnce.id] } }, select: { attempts: true }, orderBy: { id: 'asc' } });
    expect(attempts.map((a) => a.attempts)).toEqual([1, 2]);
  });

  it('takes a job back from a worker that stops renewing its lease, and the old worker cannot finish it', async () => {
    const config = await persistentConfig();
    const app = await buildApp({ ...config, runWorkers: false }, { logger: createLogger('silent') });
    cleanups.push(() => app.stop());
    await app.start(0, '127.0.0.1');
    const { jobs } = app.services;
    const owner = await app.services.db.prisma.account.findUniqueOrThrow({ where: { handle: 'owner' } });
    const job = await app.services.db.prisma.job.create({ data: { accountId: owner.id, kind: 'scrape', input: {} } });
    const claimed = await jobs.claim('worker-a', 100, job.id);
    expect(claimed?.state).toBe('processing');
    expect(await jobs.claim('worker-b', 100, job.id)).toBeNull(); // never two at once
    await new Promise((r) => setTimeout(r, 150));
    expect(await jobs.recoverExpired()).toEqual([job.id]);
    expect(await jobs.claim('worker-b', 10_000, job.id)).not.toBeNull();
    expect(await jobs.renewLease(job.id, 'worker-a', 10_000)).toBe(false);
    expect(await jobs.complete(job.id, 'worker-a')).toBeNull();
    expect((await jobs.complete(job.id, 'worker-b'))?.state).toBe('completed');
  });
});
