// Politeness toward the scraped site: never more requests at once to a host than
// SCRAPE_HOST_CONCURRENCY, and a delay between request starts when SCRAPE_HOST_DELAY_MS asks for
// one. A host's slot covers only the request; the job's body slots (JOB_BODY_SLOTS) cover the
// request and the storing of its body, so when storing falls behind, requests wait and the bodies
// held in memory stay bounded.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_JOBS, LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { until } from '../helpers/until.js';
import { loadConfig } from '../../src/config.js';
import { JOB_BODY_SLOTS } from '../../src/modules/scrape/scrape.crawler.js';

const defaults = loadConfig({});
const IMAGES = 24; // more than the job's body slots
const HOST_CONCURRENCY = 2;

interface Site {
  url: string;
  server: Server;
  /** Start times (ms) of image requests, in arrival order. */
  imageStarts: number[];
  maxImagesInFlight: number;
}

async function startSite(imageDelayMs: number): Promise<Site> {
  const images = await Promise.all(
    Array.from({ length: IMAGES }, (_, i) => sharp({ create: { width: 8, height: 8, channels: 3, background: { r: i * 10, g: 40, b: 90 } } }).png().toBuffer()),
  );
  const page = `<html><body>${images.map((_, i) => `<img src="/img/${i}.png">`).join('')}</body></html>`;
  let inFlight = 0;
  const site = { url: '', imageStarts: [] as number[], maxImagesInFlight: 0 } as Site;
  site.server = createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/') return res.writeHead(200, { 'Content-Type': 'text/html' }).end(page);
    const match = /^\/img\/(\d+)\.png$/.exec(req.url ?? '');
    if (!match) return res.writeHead(404).end();
    site.imageStarts.push(performance.now());
    site.maxImagesInFlight = Math.max(site.maxImagesInFlight, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'Content-Type': 'image/png' }).end(images[Number(match[1])]);
    }, imageDelayMs);
  });
  await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
  site.url = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

/** The site and an app scraping it with the given per-host settings, for one describe block. */
function useSiteAndApp(imageDelayMs: number, politeness: { hostConcurrency: number; hostDelayMs: number }) {
  const env = {} as { t: TestApp; site: Site };
  beforeAll(async () => {
    env.site = await startSite(imageDelayMs);
    env.t = await startTestApp({
      fetch: LOCAL_FETCH,
      // Inline: the tests watch the crawl through this process's fetcher and blob store. The crawl
      // code is the same one a crawl process runs (test/scrape/crawl-process.test.ts).
      scrape: { ...defaults.scrape, ...politeness, isolation: 'inline' },
      jobs: QUICK_JOBS,
    });
  });
  afterAll(async () => {
    await env.t.stop();
    env.site.server.close();
  });
  return env;
}

describe('per-host concurrency', () => {
  const env = useSiteAndApp(20, { hostConcurrency: HOST_CONCURRENCY, hostDelayMs: 0 });

  it('keeps to the host limit, frees a host slot once the response is in, and stops requesting when the bodies waiting to be stored fill the job slots', async () => {
    // Storage that does not finish until released: every fetched body is held meanwhile.
    const { blobs } = env.t.app.services;
    const put = blobs.put.bind(blobs);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let putsWaiting = 0;
    blobs.put = async (...args) => {
      putsWaiting++;
      await gate;
      return put(...args);
    };
    try {
      const started = await env.t.request('POST', '/api/scrape', { key: env.t.ownerKey, body: { url: `${env.site.url}/`, sniper_mode: true } });
      expect(started.status, started.text).toBe(202);
      // More than the host's limit get fetched while storing is stuck: the host's slots are free again.
      await until(() => putsWaiting >= JOB_BODY_SLOTS, `${JOB_BODY_SLOTS} files waiting to be stored`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Backpressure: no more requests than body slots while storing is stuck, so no more bodies in memory.
      expect(env.site.imageStarts).toHaveLength(JOB_BODY_SLOTS);
      expect(putsWaiting).toBe(JOB_BODY_SLOTS);

      release();
      const done = await waitForJob(env.t, env.t.ownerKey, started.body.job_id);
      expect(done.body).toMatchObject({ status: 'completed', assets: { count: IMAGES } });
      expect(env.site.imageStarts).toHaveLength(IMAGES);
      expect(env.site.maxImagesInFlight).toBe(HOST_CONCURRENCY); // the limit was used, and never passed
    } finally {
      release();
      blobs.put = put;
    }
  });
});

describe('per-host delay', () => {
  const env = useSiteAndApp(0, { hostConcurrency: 4, hostDelayMs: 100 });

  it('starts requests to a host at least the delay apart, even with several allowed at once', async () => {
    // Start times taken where the job calls the fetcher: what reaches the server may be delayed by
    // a busy test process, which could make arrivals look closer than the starts were.
    const { fetcher } = env.t.app.services;
    const fetch = fetcher.fetch.bind(fetcher);
    const starts: number[] = [];
    fetcher.fetch = async (...args) => {
      starts.push(performance.now());
      return fetch(...args);
    };
    try {
      const started = await env.t.request('POST', '/api/scrape', { key: env.t.ownerKey, body: { url: `${env.site.url}/`, sniper_mode: true, max_files: 6 } });
      const done = await waitForJob(env.t, env.t.ownerKey, started.body.job_id);
      expect(done.body.status).toBe('completed');
    } finally {
      fetcher.fetch = fetch;
    }
    // robots.txt is read first, outside the host's lane; the page and the images follow in it.
    const gaps = starts.slice(2).map((at, i) => at - starts[i + 1]!);
    expect(gaps.length).toBeGreaterThanOrEqual(5);
    // A lower bound only: a busy machine makes gaps longer, never shorter. The lane marks a start in
    // the step that calls the fetcher, so a start seen here is the mark plus a few microseconds, not
    // the same few each time (CI once saw 99.91 when the mark came microtasks earlier); without the
    // delay the gaps are a few milliseconds, so 99 still proves it.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(99);
  });
});
