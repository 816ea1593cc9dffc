// Crawls run in crawl processes of their own (SCRAPE_ISOLATION=process, the default): a separate
// process that holds none of the service's secrets, is reused for the next crawl, fails only its
// job when it dies, stops when its job is stopped, exits when idle, and runs out of memory alone.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_SCRAPES, LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { until } from '../helpers/until.js';
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { CrawlProcessPool } from '../../src/modules/scrape/crawl-process-pool.js';
import type { CrawledAsset, CrawlHooks } from '../../src/modules/scrape/scrape.crawler.js';
import { scrapeInputSchema } from '../../src/modules/scrape/scrape.input.js';

const defaults = loadConfig({});
const IMAGES = 6;

/** A page of IMAGES images; image requests hang while the site is held. */
interface Site {
  url: string;
  server: Server;
  imageRequests: number;
  hold(): void;
  release(): void;
}

async function startSite(): Promise<Site> {
  const images = await Promise.all(
    Array.from({ length: IMAGES }, (_, i) => sharp({ create: { width: 16, height: 16, channels: 3, background: { r: i * 30, g: 80, b: 20 } } }).png().toBuffer()),
  );
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const site = {
    url: '',
    imageRequests: 0,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: () => open(),
  } as Site;
  site.server = createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<html><body>${images.map((_, i) => `<img src="/img/${i}.png">`).join('')}</body></html>`);
    if (req.url === '/huge') {
      // About 4 MB of HTML holding 80,000 distinct image URLs: parsed, it needs far more than 64 MB of heap.
      return res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<html><body>${Array.from({ length: 80_000 }, (_, i) => `<img src="/many/${i}-abcdefghij.png" alt="n${i}">`).join('')}</body></html>`);
    }
    const match = /^\/img\/(\d+)\.png$/.exec(req.url ?? '');
    if (!match) return res.writeHead(404).end();
    site.imageRequests++;
    void gate.then(() => res.writeHead(200, { 'Content-Type': 'image/png' }).end(images[Number(match[1])]));
  });
  await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site.server.close());
afterEach(() => site.release());

describe('configuration', () => {
  it('runs crawls in crawl processes unless SCRAPE_ISOLATION=inline, and refuses anything else by name', () => {
    expect(defaults.scrape).toMatchObject({ isolation: 'process', processMaxHeapMb: 1024, processIdleMs: 30_000 });
    expect(loadConfig({ SCRAPE_ISOLATION: 'inline', SCRAPE_PROCESS_MAX_HEAP_MB: '300', SCRAPE_PROCESS_IDLE_MS: '0' }).scrape).toMatchObject({ isolation: 'inline', processMaxHeapMb: 300, processIdleMs: 0 });
    expect(() => loadConfig({ SCRAPE_ISOLATION: 'thread' })).toThrow(/SCRAPE_ISOLATION must be process or inline/);
    expect(() => loadConfig({ SCRAPE_PROCESS_MAX_HEAP_MB: '10' })).toThrow(/SCRAPE_PROCESS_MAX_HEAP_MB/);
    expect(() => loadConfig({ SCRAPE_PROCESS_IDLE_MS: '-1' })).toThrow(/SCRAPE_PROCESS_IDLE_MS/);
    expect(() => loadConfig({ SCRAPE_PROCESS_IDLE_MS: 'soon' })).toThrow(/SCRAPE_PROCESS_IDLE_MS/);
  });
});

describe('scrape jobs in crawl processes', () => {
  let t: TestApp;
  const pool = () => t.app.services.crawler as CrawlProcessPool;
  beforeAll(async () => {
    t = await startTestApp(LOCAL_SCRAPES);
  });
  afterAll(() => t.stop());

  const start = async () => {
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/`, force: true } });
    expect(started.status, started.text).toBe(202);
    return started.body.job_id as number;
  };

  it('crawls in another process, which holds none of the service secrets, and reuses it for the next crawl', async () => {
    expect(pool()).toBeInstanceOf(CrawlProcessPool);
    const secret = 'a-signing-key-the-crawl-process-must-not-see-0123456789';
    process.env.URL_SIGNING_KEY = secret;
    site.hold();
    const requestsBefore = site.imageRequests;
    const first = await start();
    try {
      await until(() => site.imageRequests > requestsBefore, 'the first image request');
    } finally {
      delete process.env.URL_SIGNING_KEY;
    }
    const [pid, ...others] = pool().pids;
    expect(others).toEqual([]);
    expect(pid).not.toBe(process.pid);
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    expect(cmdline.some((arg) => arg.endsWith('crawl-process.ts'))).toBe(true);
    expect(cmdline).toContain(`--max-old-space-size=${defaults.scrape.processMaxHeapMb}`);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(environ).toContain('PATH=');
    expect(environ).not.toContain(secret);

    site.release();
    const done = await waitForJob(t, t.ownerKey, first);
    expect(done.body).toMatchObject({ status: 'completed', progress: { pages_fetched: 1, assets_found: IMAGES, assets_stored: IMAGES }, assets: { count: IMAGES } });
    const file = await fetch(done.body.assets.items[0].download_url, { headers: { 'X-API-Key': t.ownerKey } });
    expect(file.status).toBe(200);

    const second = await waitForJob(t, t.ownerKey, await start());
    expect(second.body.status).toBe('completed');
    expect(pool().pids).toEqual([pid]);
  });

  it('fails the job with the reason when its crawl process dies, and the next job gets a new process', async () => {
    site.hold();
    const requestsBefore = site.imageRequests;
    const jobId = await start();
    await until(() => site.imageRequests > requestsBefore, 'an image request');
    const [pid] = pool().pids;
    process.kill(pid!, 'SIGKILL');
    const failed = await waitForJob(t, t.ownerKey, jobId);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toMatch(/^the crawl process stopped unexpectedly \(signal SIGKILL\)/);
    site.release();

    const next = await waitForJob(t, t.ownerKey, await start());
    expect(next.body).toMatchObject({ status: 'completed', assets: { count: IMAGES } });
    expect(pool().pids).toHaveLength(1);
    expect(pool().pids[0]).not.toBe(pid);
  });
});

describe('the crawl process pool', () => {
  let dataDir: string;
  const pools: CrawlProcessPool[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'crawl-pool-'));
  });
  afterAll(async () => {
    await Promise.all(pools.map((p) => p.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  function newPool(options: { idleMs?: number; maxHeapMb?: number; hostConcurrency?: number } = {}): CrawlProcessPool {
    const pool = new CrawlProcessPool({
      settings: {
        fetch: LOCAL_FETCH,
        scrape: { ...defaults.scrape, hostDelayMs: 0, hostConcurrency: options.hostConcurrency ?? 4, maxPageBytes: 20 * 1024 * 1024 },
        dataDir,
        logLevel: 'silent',
      },
      withheldEnv: CONFIG_VARIABLES,
      maxHeapMb: options.maxHeapMb ?? 256,
      idleMs: options.idleMs ?? 60_000,
      logger: createLogger('silent'),
    });
    pools.push(pool);
    return pool;
  }

  function hooks(signal = new AbortController().signal) {
    const saved: CrawledAsset[] = [];
    const progress: number[] = [];
    const value: CrawlHooks = {
      signal,
      progress: (counts) => progress.push(counts.assetsStored),
      saveAssets: async (assets) => {
        saved.push(...assets);
      },
      label: async () => [],
    };
    return { saved, progress, hooks: value };
  }

  const input = (path: string) => scrapeInputSchema.parse({ url: `${site.url}${path}`, force: true });

  it('sends the stored files and the counts back to the job, and the files are in the blob store', async () => {
    const pool = newPool();
    const { saved, hooks: h } = hooks();
    const counts = await pool.crawl(7001, input('/'), h);
    expect(counts).toEqual({ pagesFetched: 1, assetsFound: IMAGES, assetsStored: IMAGES });
    expect(saved).toHaveLength(IMAGES);
    for (const asset of saved) {
      expect(asset.storageKey).toBe(`jobs/7001/${asset.filename}`);
      expect(readFileSync(join(dataDir, 'files', asset.storageKey)).length).toBe(asset.size);
    }
  });

  it('stops the crawl when the job is stopped: nothing more is requested or stored', async () => {
    const pool = newPool({ hostConcurrency: 2 });
    const abort = new AbortController();
    site.hold();
    const requestsBefore = site.imageRequests;
    const { saved, hooks: h } = hooks(abort.signal);
    const crawling = pool.crawl(7002, input('/'), h);
    await until(() => site.imageRequests === requestsBefore + 2, 'two image requests (the host limit)');
    abort.abort();
    // The two in flight are cancelled: the crawl ends without waiting for their answers.
    await expect(crawling).rejects.toThrow('the job was stopped');
    site.release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Neither was stored, and the other four were never asked for.
    expect(site.imageRequests - requestsBefore).toBe(2);
    expect(saved).toEqual([]);
  });

  it('lets an idle crawl process exit after the idle time, and starts another for the next crawl', async () => {
    const pool = newPool({ idleMs: 200 });
    await pool.crawl(7003, input('/'), hooks().hooks);
    const [pid] = pool.pids;
    expect(pid).toBeDefined();
    await until(() => pool.pids.length === 0, 'the idle crawl process to exit', 5_000);
    await pool.crawl(7004, input('/'), hooks().hooks);
    expect(pool.pids).toHaveLength(1);
    expect(pool.pids[0]).not.toBe(pid);
  });

  it('fails only the crawl whose process runs out of its heap', async () => {
    const pool = newPool({ maxHeapMb: 64 });
    await expect(pool.crawl(7005, scrapeInputSchema.parse({ url: `${site.url}/huge`, force: true, max_files: 10_000 }), hooks().hooks)).rejects.toThrow(
      /^the crawl process stopped unexpectedly \(.+\); if it ran out of memory, SCRAPE_PROCESS_MAX_HEAP_MB \(64\) may be too low/,
    );
    const { saved, hooks: h } = hooks();
    await pool.crawl(7006, input('/'), h);
    expect(saved).toHaveLength(IMAGES);
  });
});
