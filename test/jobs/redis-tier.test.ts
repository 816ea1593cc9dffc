// The Redis tier (REDIS_URL): jobs through BullMQ, subscriptions through Redis, and an API process
// seeing progress that a worker process elsewhere makes. .ci/run sets REDIS_URL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, ADMIN_TOKEN, startTestApp, TEST_TIERS, type TestApp } from '../helpers/app.js';
import { createTestDatabase, usePostgres } from '../helpers/database.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { buildApp } from '../../src/app.js';
import { buildCore } from '../../src/core.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';

const redisUrl = process.env.REDIS_URL;
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

/** Collects jobUpdated states until the job ends. */
function watch(url: string, key: string, jobId: number): Promise<string[]> {
  const client = createClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': key } });
  const states: string[] = [];
  return new Promise<string[]>((resolve, reject) => {
    client.subscribe<{ jobUpdated: { state: string } }>(
      { query: `subscription { jobUpdated(id: ${jobId}) { state } }` },
      { next: (v) => states.push(v.data!.jobUpdated.state), error: reject, complete: () => resolve(states) },
    );
  }).finally(() => client.dispose());
}

describe.runIf(redisUrl)('with REDIS_URL', () => {
  describe('one process', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ redisUrl, redisPrefix: `test-${randomBytes(4).toString('hex')}`, fetch: LOCAL_FETCH });
    });
    afterAll(() => t.stop());

    it('runs scrapes through BullMQ and reports progress through Redis', async () => {
      expect(t.app.services.queue.kind).toBe('bullmq');
      const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/`, force: true } });
      const states = await watch(t.url, t.ownerKey, started.body.job_id);
      expect(states.at(-1)).toBe('completed');
      const done = await waitForJob(t, t.ownerKey, started.body.job_id);
      expect(done.body.assets.count).toBeGreaterThan(5);
    });
  });

  describe.runIf(usePostgres)('an API process and a worker process', () => {
    const cleanups: Array<() => Promise<void>> = [];
    afterAll(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });

    it('lets a subscriber on the API process see the progress a separate worker makes', async () => {
      const database = await createTestDatabase();
      const dir = mkdtempSync(join(tmpdir(), 'redis-tier-'));
      cleanups.push(async () => {
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      });
      const config = loadConfig(
        { NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN },
        { databaseUrl: database.url, redisUrl, redisPrefix: `test-${randomBytes(4).toString('hex')}`, tiers: TEST_TIERS, fetch: LOCAL_FETCH },
      );
      const logger = createLogger('silent');
      const api = await buildApp({ ...config, runWorkers: false }, { logger });
      cleanups.push(() => api.stop());
      const url = await api.start(0, '127.0.0.1');
      const key = api.initialAccount!.apiKey;

      const started = await (
        await fetch(`${url}/api/scrape`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: `${site.url}/` }) })
      ).json();
      const watching = watch(url, key, started.job_id);
      await new Promise((r) => setTimeout(r, 300));
      // Nothing runs it until a worker starts.
      expect((await api.services.jobs.get(started.job_id))?.state).toBe('queued');

      const worker = await buildCore(config, logger);
      cleanups.push(() => worker.close());
      await worker.startBackground({ workers: true });
      const states = await watching;
      expect(states[0]).toBe('queued');
      expect(states).toContain('processing');
      expect(states.at(-1)).toBe('completed');
      const job = await api.services.jobs.get(started.job_id);
      expect(job?.leaseOwner).toBeNull();
      expect(job?.assetsStored).toBeGreaterThan(5);
    });
  });
});
