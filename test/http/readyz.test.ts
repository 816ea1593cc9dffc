// GET /readyz: 200 when the database, the queue and the blob store answer; 503 naming the one that
// failed and why. /healthz (liveness) keeps its answer. Distributed mode (Redis, S3) under REDIS_URL.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startS3rver } from '../helpers/s3.js';
import type { LocalBlobStore } from '../../src/platform/storage/local-blob-store.js';
import { READINESS_CHECK_TIMEOUT_MS } from '../../src/http/readiness.js';

describe('GET /readyz, embedded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  it('answers 200 with each check when everything answers', async () => {
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ready', checks: { database: { ok: true, target: t.app.services.db.kind }, queue: { ok: true, target: 'in-process' }, blobs: { ok: true, target: 'LocalBlobStore' } } });
  });

  it('answers 503 naming the blob store when its folder cannot be written, and 200 again once it can', async () => {
    const root = (t.app.services.blobs as LocalBlobStore).root;
    const moved = `${root}.away`;
    rmSync(moved, { recursive: true, force: true });
    const { renameSync } = await import('node:fs');
    renameSync(root, moved);
    writeFileSync(root, 'not a folder');
    try {
      const res = await t.request('GET', '/readyz');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body.success).toBe(false);
      expect(res.body.error).toMatch(/^not ready: blobs \(LocalBlobStore\): /);
      expect(res.body.checks.blobs.ok).toBe(false);
      expect(res.body.checks.database.ok).toBe(true);
      // Liveness is the database alone, as before.
      expect((await t.request('GET', '/healthz')).body).toEqual({ success: true, status: 'ok' });
    } finally {
      rmSync(root, { force: true });
      renameSync(moved, root);
    }
    expect((await t.request('GET', '/readyz')).status).toBe(200);
  });
});

describe('GET /readyz with a closed database', () => {
  it('answers 503 naming the database within its deadline, the other checks still passing', async () => {
    const t = await startTestApp();
    try {
      await t.app.services.db.close();
      const started = performance.now();
      const res = await t.request('GET', '/readyz');
      expect(performance.now() - started).toBeLessThan(READINESS_CHECK_TIMEOUT_MS + 1_000);
      expect(res.status).toBe(503);
      expect(res.body.error).toMatch(/^not ready: database \((pglite|postgres)\): /);
      expect(res.body.checks.database.ok).toBe(false);
      expect(res.body.checks.queue.ok).toBe(true);
      expect(res.body.checks.blobs.ok).toBe(true);
    } finally {
      await t.stop().catch(() => {});
    }
  });
});

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl)('GET /readyz, distributed (Redis queue, S3 blob store)', () => {
  let t: TestApp;
  let s3: Awaited<ReturnType<typeof startS3rver>>;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readyz-s3-'));
    mkdirSync(dir, { recursive: true });
    s3 = await startS3rver(dir, 'readyz');
    t = await startTestApp({
      redisUrl,
      redisPrefix: `test-${randomBytes(4).toString('hex')}`,
      s3: { bucket: 'readyz', endpoint: `http://127.0.0.1:${s3.port}`, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true },
    });
  });
  afterAll(async () => {
    await t.stop();
    await s3.stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it('tests Redis and the bucket, and answers 503 naming the blob store once the bucket server is gone', async () => {
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toMatchObject({ queue: { ok: true, target: 'bullmq' }, blobs: { ok: true, target: 'S3BlobStore' } });
    await s3.stop();
    const res = await t.request('GET', '/readyz');
    expect(res.status).toBe(503);
    expect(res.body.error).toMatch(/^not ready: blobs \(S3BlobStore\): /);
    expect(res.body.checks.queue.ok).toBe(true);
  });
});
