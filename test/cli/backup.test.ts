// `cli backup` while the service runs and `cli restore` into an empty folder give back the first
// state exactly: every row of every table and every stored file's bytes (src/platform/backup.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { LocalBlobStore } from '../../src/platform/storage/index.js';
import { ADMIN_TOKEN, TEST_TIERS } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { usePostgres } from '../helpers/database.js';
import { form, photo, scene } from '../helpers/images.js';

const work = mkdtempSync(join(tmpdir(), 'backup-test-'));

interface Running {
  app: App;
  url: string;
  dataDir: string;
}

/** The service on an embedded database in `dataDir`, as `npm start` runs it. */
async function start(dataDir: string): Promise<Running> {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ADMIN_TOKEN }, { tiers: TEST_TIERS });
  const app = await buildApp(config, { logger: createLogger('silent') });
  return { app, url: await app.start(0, '127.0.0.1'), dataDir };
}

const cli = runCli;

/** Every row of every table (as JSON text, in a fixed order) and every blob's content type and SHA-256. */
async function state(s: Running) {
  const db = s.app.services.db;
  const tables = await db.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1");
  const rows: Record<string, string> = {};
  for (const { name } of tables) {
    const [result] = await db.query<{ rows: string }>(`SELECT coalesce(json_agg(t ORDER BY t::text), '[]')::text AS rows FROM "${name}" t`);
    rows[name] = result!.rows;
  }
  const store = new LocalBlobStore(join(s.dataDir, 'files'));
  const files: Record<string, string> = {};
  for await (const info of store.list('')) {
    const blob = await store.get(info.key);
    const hash = createHash('sha256');
    for await (const chunk of blob!.body) hash.update(chunk as Buffer);
    files[info.key] = `${info.contentType} ${hash.digest('hex')}`;
  }
  return { rows, files };
}

async function upload(s: Running, key: string, body: Buffer, name: string) {
  const response = await fetch(`${s.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form({ body, name: `${name}.jpg`, type: 'image/jpeg' }, { name }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { media_id: number; url: string };
}

const admin = (s: Running, method: string, path: string, body?: unknown) =>
  fetch(`${s.url}${path}`, { method, headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

// The embedded store only: PostgreSQL and S3 are backed up with their own tools (docs/operations.md).
describe.skipIf(usePostgres)('cli backup and restore (embedded store)', () => {
  let first: Running;
  let restored: Running | undefined;

  beforeAll(async () => {
    first = await start(join(work, 'first'));
  });
  afterAll(async () => {
    await first?.app.stop();
    await restored?.app.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('restores the state at backup time, rows and file bytes, after later changes', { timeout: 180_000 }, async () => {
    const created = (await (await admin(first, 'POST', '/api/admin/accounts', { handle: 'keeper' })).json()) as { api_key: string };
    const key = created.api_key;
    const kept = await upload(first, key, await scene(11), 'kept');
    const doomed = await upload(first, key, await photo('#aa3300', { seed: 12 }), 'doomed');
    const community = await fetch(`${first.url}/api/community/contribute`, { method: 'POST', headers: { 'X-API-Key': key }, body: form({ body: await scene(13), name: 'c.jpg', type: 'image/jpeg' }, { name: 'harbour', tags: '["harbour"]' }) });
    expect(community.status, await community.clone().text()).toBe(201);
    const keptBytes = Buffer.from(await (await fetch(kept.url)).arrayBuffer());
    const before = await state(first);
    expect(Object.keys(before.files).length).toBeGreaterThanOrEqual(3);

    const archive = join(work, 'backup.zip');
    const env = { SERVICE_URL: first.url, ADMIN_TOKEN };
    const backup = await cli(['backup', archive], env);
    expect(backup, backup.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(backup.stdout)).toMatchObject({ file: archive, bytes: expect.any(Number) });
    expect((await cli(['backup', archive], env)).stderr).toContain('exists; give a new file name');

    // Changes after the backup: a new upload, a purged item (its file deleted), a new account.
    await upload(first, key, await scene(14), 'later');
    expect((await fetch(`${first.url}/api/media/${doomed.media_id}`, { method: 'DELETE', headers: { 'X-API-Key': key } })).status).toBe(200);
    expect((await fetch(`${first.url}/api/media/${doomed.media_id}/purge`, { method: 'DELETE', headers: { 'X-API-Key': key } })).status).toBe(200);
    expect((await admin(first, 'POST', '/api/admin/accounts', { handle: 'later' })).status).toBe(201);
    const after = await state(first);
    expect(after.rows).not.toEqual(before.rows);
    expect(after.files).not.toEqual(before.files);

    // Refused: a non-empty folder.
    const busy = join(work, 'busy');
    mkdirSync(busy);
    writeFileSync(join(busy, 'note'), 'x');
    const refused = await cli(['restore', archive, '--data-dir', busy], {});
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`restore: ${busy} is not empty`);
    expect(readdirSync(busy)).toEqual(['note']);

    const target = join(work, 'restored');
    const done = await cli(['restore', archive, '--data-dir', target], {});
    expect(done, done.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(done.stdout)).toEqual({ data_dir: target, files: Object.keys(before.files).length });

    restored = await start(target);
    const again = await state(restored);
    expect(again.files).toEqual(before.files);
    expect(again.rows).toEqual(before.rows);
    // Through the API as well: the old key works and the kept item's file is the same bytes.
    const item = await fetch(`${restored.url}/api/media/${kept.media_id}`, { headers: { 'X-API-Key': key } });
    expect(item.status).toBe(200);
    const url = ((await item.json()) as { media: { url: string } }).media.url;
    expect(Buffer.from(await (await fetch(url)).arrayBuffer()).equals(keptBytes)).toBe(true);
    expect((await fetch(`${restored.url}/api/media/${doomed.media_id}`, { headers: { 'X-API-Key': key } })).status).toBe(200);
  });

  it('a backup taken during uploads and purges has a file for every row', { timeout: 240_000 }, async () => {
    const key = ((await (await admin(first, 'POST', '/api/admin/accounts', { handle: 'busy' })).json()) as { api_key: string }).api_key;
    const seeded = [];
    for (let i = 0; i < 4; i++) seeded.push(await upload(first, key, await photo('#2255aa', { seed: 100 + i }), `seed-${i}`));
    // Uploads and purges keep running while the backup is taken.
    let stop = false;
    const changedAt: number[] = [];
    const churn = (async () => {
      for (let i = 0; !stop; i++) {
        const made = await upload(first, key, await photo('#55aa22', { seed: 200 + i }), `churn-${i}`);
        changedAt.push(Date.now());
        const victim = seeded.shift() ?? made;
        await fetch(`${first.url}/api/media/${victim.media_id}`, { method: 'DELETE', headers: { 'X-API-Key': key } });
        await fetch(`${first.url}/api/media/${victim.media_id}/purge`, { method: 'DELETE', headers: { 'X-API-Key': key } });
        changedAt.push(Date.now());
        seeded.push(made);
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const archive = join(work, 'busy.zip');
    const began = Date.now();
    const backup = await cli(['backup', archive], { SERVICE_URL: first.url, ADMIN_TOKEN });
    const ended = Date.now();
    stop = true;
    await churn;
    expect(backup, backup.stderr).toMatchObject({ code: 0 });
    // The changes did overlap the backup (the CLI's start included), or this test proves nothing.
    expect(changedAt.filter((at) => at > began && at < ended).length).toBeGreaterThan(0);

    const target = join(work, 'busy-restored');
    expect((await cli(['restore', archive, '--data-dir', target], {})).code).toBe(0);
    const copy = await start(target);
    try {
      const items = await copy.app.services.db.prisma.mediaItem.findMany({ select: { id: true, storageKey: true, thumbnailKey: true } });
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        for (const blobKey of [item.storageKey, item.thumbnailKey].filter((k): k is string => k !== null)) {
          expect(await copy.app.services.blobs.head(blobKey), `media ${item.id}: ${blobKey}`).not.toBeNull();
        }
      }
    } finally {
      await copy.app.stop();
    }
  });

  it('refuses without the admin token', async () => {
    const res = await fetch(`${first.url}/api/admin/backup`);
    expect(res.status).toBe(401);
    const wrong = await fetch(`${first.url}/api/admin/backup`, { headers: { 'X-Admin-Token': 'nope' } });
    expect(wrong.status).toBe(401);
  });
});
