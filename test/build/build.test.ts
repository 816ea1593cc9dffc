// The production build (scripts/build.mjs) and the processes `npm start` and `npm run worker` run
// from it: plain node with package.json's flags, no tsx. A real scrape goes through the built API
// process; on PostgreSQL with Redis (the postgres project, REDIS_URL set) through an API process
// that runs no jobs and a separate built worker process, as on several machines.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { createTestDatabase, usePostgres } from '../helpers/database.js';
import { childProcesses, sampleProcessTree, startServiceProcess, type ServiceProcess } from '../helpers/service-process.js';
import WebSocket from 'ws';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ADMIN_TOKEN = `build-test-admin-${randomBytes(12).toString('hex')}`;
const redisUrl = process.env.REDIS_URL;
const distributed = usePostgres && Boolean(redisUrl);

// Each project builds into a folder of its own: the pglite and postgres projects run at once.
const distDir = join(ROOT, `dist-test-${randomBytes(4).toString('hex')}`);
const dataDir = mkdtempSync(join(tmpdir(), 'build-test-'));
const processes: ServiceProcess[] = [];
let site: FixtureSite;
let dropDatabase = async () => {};
let base: string;
let key: string;
let apiEnv: Record<string, string>;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

beforeAll(async () => {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', distDir], { cwd: ROOT });
  site = await startFixtureSite();
  const database = await createTestDatabase();
  dropDatabase = database.drop;
  const env: Record<string, string> = {
    NODE_ENV: 'development', // GraphiQL is served outside production
    LOG_LEVEL: 'info',
    ADMIN_TOKEN,
    TIERS: JSON.stringify({ standard: { daily: 10_000, perMinute: 10_000 } }), // the default 60 a minute is too few for these tests
    DATA_DIR: dataDir,
    FETCH_ALLOW_PRIVATE: '127.0.0.1',
    SCRAPE_HOST_DELAY_MS: '0',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...(distributed ? { REDIS_URL: redisUrl!, REDIS_PREFIX: `build-test-${randomBytes(4).toString('hex')}` } : {}),
  };
  apiEnv = { ...env, HOST: '127.0.0.1', PORT: '0', ...(distributed ? { RUN_WORKERS: 'false' } : {}) };
  const api = await startServiceProcess('main', apiEnv, 'service started', distDir);
  processes.push(api.process);
  if (distributed) processes.push((await startServiceProcess('worker', env, 'worker started', distDir)).process);
  base = String(api.ready.url);
  key = (JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { api_key: string }).api_key;
}, 120_000);

afterAll(async () => {
  for (const p of processes.reverse()) await p.stop();
  await site?.close();
  await dropDatabase();
  rmSync(distDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the build', () => {
  it('holds JavaScript for every source file, the migrations and the worker-thread entry, and no TypeScript', () => {
    const files = filesUnder(distDir).map((f) => f.slice(distDir.length + 1));
    expect(files).toContain('src/main.js');
    expect(files).toContain('src/worker.js');
    expect(files).toContain('src/generated/prisma/client.js');
    expect(files).toContain('rest-shim/routes.js');
    // The local vision worker threads start from this plain module, which loads the transpiled worker.
    expect(files).toContain('src/modules/vision/local/worker-entry.mjs');
    expect(files).toContain('src/modules/vision/local/local.worker.js');
    // Crawls run in child processes forked from this entry with plain node.
    expect(files).toContain('src/modules/scrape/crawl-process.js');
    expect(files.filter((f) => f.endsWith('.ts'))).toEqual([]);
    const migrations = readdirSync(join(ROOT, 'prisma/migrations'));
    expect(readdirSync(join(distDir, 'prisma/migrations')).sort()).toEqual(migrations.sort());
  });

  it('bundles the two process entries: they import shared chunks beside them and packages, no per-file module', () => {
    for (const entry of ['main', 'worker']) {
      const text = readFileSync(join(distDir, 'src', `${entry}.js`), 'utf8');
      const specifiers = [...text.matchAll(/(?:\bfrom|\bimport\(?)\s*["']([^"']+)["']/g)].map((m) => m[1]!);
      const relative = specifiers.filter((s) => s.startsWith('.'));
      expect(relative.length).toBeGreaterThan(0);
      expect(relative.filter((s) => !/^\.\/bundle-[A-Z0-9]+\.js$/.test(s))).toEqual([]);
      // The bundle holds the service's own code (its loadConfig), not an import of ./config.js.
      expect(readdirSync(join(distDir, 'src')).filter((f) => f.startsWith('bundle-')).some((f) => readFileSync(join(distDir, 'src', f), 'utf8').includes('function loadConfig('))).toBe(true);
    }
  });

  it('swaps a finished tree in whole: builds running at once leave one complete tree and no leftovers', async () => {
    const build = () => promisify(execFile)(process.execPath, ['scripts/build.mjs', distDir], { cwd: ROOT });
    await Promise.all([build(), build(), build()]);
    expect(existsSync(join(distDir, 'src/main.js'))).toBe(true);
    expect(existsSync(join(distDir, 'src/modules/vision/local/local.worker.js'))).toBe(true);
    expect(readdirSync(ROOT).filter((name) => name.startsWith(`${basename(distDir)}.`))).toEqual([]);
  });

  it('refuses an output folder outside the project', async () => {
    const outside = join(tmpdir(), `dist-outside-${randomBytes(4).toString('hex')}`);
    await expect(promisify(execFile)(process.execPath, ['scripts/build.mjs', outside], { cwd: ROOT })).rejects.toThrow(/must be inside/);
    expect(existsSync(outside)).toBe(false);
  });
});

describe(`the built service${distributed ? ' (API process + worker process, PostgreSQL + Redis)' : ''}`, () => {
  it('answers REST with the key the first start created', async () => {
    const res = await fetch(`${base}/api/jobs/999999`, { headers: { 'X-API-Key': key } });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ success: false });
  });

  it('renders GraphiQL, whose bundle is imported on the first page view', async () => {
    const res = await fetch(`${base}/graphql`, { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/graphiql/i);
  });

  it('serves the OpenAPI document and the /docs page with every asset it references', async () => {
    const document = await fetch(`${base}/openapi.json`);
    expect(document.status).toBe(200);
    expect(((await document.json()) as { openapi: string }).openapi).toBe('3.1.0');
    const page = await (await fetch(`${base}/docs`)).text();
    const assets = [...page.matchAll(/\s(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toContain('/docs/swagger-ui-bundle.js');
    for (const asset of assets) {
      const res = await fetch(base + asset);
      expect(res.status, asset).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('reads nothing large before authentication: keyless 200 MB bodies and 50 MB socket messages leave RSS within 100 MB of where it was', async () => {
    const api = processes[0]!.child.pid!;
    const sampling = sampleProcessTree(api);
    // The sockets first: each is refused for its size (1009), or, when a loaded machine delays the
    // frame past the 3 s a socket has to send connection_init, by that timeout (4408; seen in CI at
    // load 8 on this commit and the one before it). Either way the message is never read whole: the
    // RSS bound below is what proves it (three 50 MB messages read whole would exceed it).
    const messages = await Promise.all([1, 2, 3].map(async () => {
      const socket = new WebSocket(base.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
      await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.send(Buffer.alloc(50 * 1024 * 1024, 0x20));
      return closed;
    }));
    for (const code of messages) expect([1009, 4408]).toContain(code);
    const offers = ['/api/media/upload', '/api/vision/analyze', '/graphql'].map(async (path) => {
      let sent = 0;
      const upload = new AbortController();
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 200 * 1024 * 1024) return controller.close();
          sent += 1024 * 1024;
          controller.enqueue(new Uint8Array(1024 * 1024));
        },
      });
      const res = await fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=B' }, body, duplex: 'half', signal: upload.signal } as RequestInit);
      const status = res.status;
      await res.arrayBuffer();
      upload.abort();
      return { path, status };
    });
    expect(await Promise.all(offers)).toEqual([
      { path: '/api/media/upload', status: 401 },
      { path: '/api/vision/analyze', status: 401 },
      { path: '/graphql', status: 401 },
    ]);
    const { root } = sampling.stop();
    expect(root.peakRssMb - root.baselineRssMb).toBeLessThan(100);
  });

  it('fetches a page in its own process through the guarded fetcher (the featured image of a local page)', async () => {
    // The API process's own fetches (featured image, ReplaceFlow, exports, webhooks) go through
    // undici, imported lazily: a bundle once gave that import no named exports, and every one failed.
    const res = await fetch(`${base}/api/featured-image?url=${encodeURIComponent(`${site.url}/`)}`, { headers: { 'X-API-Key': key } });
    const body = (await res.json()) as { url?: string; source?: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ url: `${site.url}/img/og.jpg`, source: 'og_meta' });
  });

  it('runs a scrape job to completion and serves its files', async () => {
    const started = await fetch(`${base}/api/scrape`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: `${site.url}/`, sniper_mode: true }),
    });
    expect(started.status).toBe(202);
    const { job_id: jobId } = (await started.json()) as { job_id: number };
    let job: { status: string; assets?: { items: Array<{ download_url: string }> }; error?: string };
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await (await fetch(`${base}/api/jobs/${jobId}`, { headers: { 'X-API-Key': key } })).json()) as typeof job;
    } while (job.status !== 'completed' && job.status !== 'failed' && Date.now() < deadline);
    expect(job, job.error).toMatchObject({ status: 'completed' });
    // The process that ran the job crawled in a child: the built crawl process, under plain node.
    const crawling = processes.at(-1)!.child.pid!;
    const crawlProcesses = childProcesses(crawling).filter((p) => p.args.some((arg) => arg.endsWith('crawl-process.js')));
    expect(crawlProcesses).toHaveLength(1);
    expect(crawlProcesses[0]!.args).toContain(join(distDir, 'src/modules/scrape/crawl-process.js'));
    expect(crawlProcesses[0]!.args.join(' ')).not.toMatch(/tsx/);
    const files = job.assets!.items;
    expect(files.length).toBeGreaterThan(3);
    const file = await fetch(files[0]!.download_url, { headers: { 'X-API-Key': key } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toMatch(/^(image|video|application)\//);
  });

  // Each process remembers the keys it verified; the key's state is read again with every request,
  // with the data versions that say whether a kept answer of a list still holds.
  it.runIf(usePostgres)('refuses a sub-key revoked in another API process at once, and a rotated master key too; lists kept by the other process change at once', async () => {
    const other = await startServiceProcess('main', { ...apiEnv, RUN_WORKERS: 'false' }, 'service started', distDir);
    processes.push(other.process);
    const otherBase = String(other.ready.url);
    const call = (at: string, path: string, apiKey: string, method = 'GET') => fetch(`${at}${path}`, { method, headers: { 'X-API-Key': apiKey } });
    const listedIn = async (at: string) => ((await (await call(at, '/api/platform/sub-keys', key)).json()) as { sub_keys: Array<{ label: string; status: string }> }).sub_keys[0];
    for (let round = 0; round < 10; round++) {
      // The other process keeps its answer of the list (asked twice), and still sees the new key at once.
      await listedIn(otherBase);
      await listedIn(otherBase);
      const created = await fetch(`${base}/api/platform/sub-keys`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify({ label: `round ${round}`, scopes: 'media' }) });
      expect(created.status).toBe(201);
      expect(await listedIn(otherBase)).toMatchObject({ label: `round ${round}`, status: 'active' });
      const subKey = ((await created.json()) as { sub_key: string }).sub_key;
      // Both processes have verified and remembered it.
      expect((await call(otherBase, '/api/media/list', subKey)).status).toBe(200);
      expect((await call(base, '/api/media/list', subKey)).status).toBe(200);
      expect((await call(base, `/api/platform/sub-keys/${subKey.slice(0, 12)}/revoke`, key, 'POST')).status).toBe(200);
      const refused = await call(otherBase, '/api/media/list', subKey);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'this sub-key has been revoked' });
      expect(await listedIn(otherBase)).toMatchObject({ label: `round ${round}`, status: 'revoked' });
    }
    // A master key rotated through one process no longer works in the other.
    const account = await fetch(`${otherBase}/api/media/list`, { headers: { 'X-API-Key': key } });
    expect(account.status).toBe(200);
    const { handle } = JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { handle: string };
    const rotated = await fetch(`${base}/api/admin/accounts/${handle}/rotate-key`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN } });
    expect(rotated.status, await rotated.clone().text()).toBe(200);
    const refused = await call(otherBase, '/api/media/list', key);
    expect(refused.status).toBe(401);
    key = ((await rotated.json()) as { api_key: string }).api_key;
    expect((await call(otherBase, '/api/media/list', key)).status).toBe(200);
  });

  it('stops cleanly on SIGTERM', async () => {
    const codes = [];
    for (const p of [...processes].reverse()) codes.push(await p.stop());
    expect(codes.every((code) => code === 0)).toBe(true);
  });
});
