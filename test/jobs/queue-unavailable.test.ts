// Redis away: handing a job to the BullMQ queue fails fast with 503, and the job row written for it
// is taken back, so the caller's refusal is the whole story and its retry makes the only job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqQueue } from '../../src/platform/queue/bullmq-queue.js';
import { createLogger } from '../../src/platform/logger.js';
import { Unavailable } from '../../src/platform/errors.js';
import { ScrapeService } from '../../src/modules/scrape/index.js';
import type { JobQueue } from '../../src/platform/queue/job-queue.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  // The service's own workers poll for queued rows; polling once an hour keeps them from claiming
  // the row this file's scrape writes before its failed hand-off takes it back (a claimed row is
  // not queued any more, and stays: seen once in CI).
  t = await startTestApp({ jobs: { concurrency: 1, leaseMs: 10_000, pollMs: 3_600_000 } });
});
afterAll(() => t.stop());

describe('the job queue while Redis is away', () => {
  it('refuses an enqueue with 503 within seconds instead of waiting for Redis to return', async () => {
    const queue = new BullMqQueue('redis://127.0.0.1:1', async () => false, createLogger('silent'), { concurrency: 1 });
    try {
      const started = Date.now();
      await expect(queue.enqueue(1)).rejects.toThrow(new Unavailable('the job queue (Redis) is unavailable: nothing was started; retry shortly'));
      expect(Date.now() - started).toBeLessThan(8_000);
    } finally {
      await queue.stop().catch(() => {});
    }
  });

  it('takes back the job row of a scrape it could not enqueue', async () => {
    const away: JobQueue = { kind: 'bullmq', enqueue: () => Promise.reject(new Unavailable('the job queue (Redis) is unavailable: nothing was started; retry shortly')), startWorkers: () => {}, stop: async () => {} } as unknown as JobQueue;
    const scrape = new ScrapeService(t.app.services.jobs, away, () => null);
    const actor = await t.app.services.auth.authenticate(t.ownerKey);
    const before = await t.app.services.db.prisma.job.count();
    await expect(scrape.start(actor, { url: 'https://example.com/' })).rejects.toThrow(Unavailable);
    expect(await t.app.services.db.prisma.job.count()).toBe(before);
  });
});
