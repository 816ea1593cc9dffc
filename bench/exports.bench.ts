// Exports: how long a job takes to send N library items, and how many requests it makes per item,
// against the local fakes of WordPress and the Shopify Admin GraphQL API (test/automation/fake-*.ts),
// each answering after BENCH_LATENCY_MS (a far site's round trip). One item at a time against
// EXPORT_CONCURRENCY items at once, so the figure that matters is the ratio.
// Run: npx tsx bench/exports.bench.ts
// Knobs: BENCH_ITEMS (30), BENCH_LATENCY_MS (40), BENCH_WRITE=0.
import { cpus } from 'node:os';
import { startTestApp, LOCAL_FETCH, type TestApp } from '../test/helpers/app.js';
import { waitForJob } from '../test/helpers/jobs.js';
import { form, photo } from '../test/helpers/images.js';
import { startFakeWordPress } from '../test/automation/fake-wordpress.js';
import { startFakeShopify } from '../test/automation/fake-shopify.js';
import { loadConfig } from '../src/config.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';

const ITEMS = positiveIntEnv('BENCH_ITEMS', 30);
const LATENCY_MS = positiveIntEnv('BENCH_LATENCY_MS', 40);
const TOKEN = 'shpat_bench';
const defaults = loadConfig({});

const wp = await startFakeWordPress();
wp.users.set('bench', 'pass word');
const shop = await startFakeShopify(TOKEN);
const delay = () => new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
const realFetch = shop.fetchExternal;
shop.fetchExternal = async (url) => (await delay(), realFetch(url));

async function run(concurrency: number): Promise<Array<{ destination: string; concurrency: number; ms: number; requests: number }>> {
  const t: TestApp = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 2, leaseMs: 30_000, pollMs: 20 },
    exports: { ...defaults.exports, allowHttp: true, concurrency, shopify: { ...defaults.exports.shopify, apiBaseUrl: shop.url, pollMs: LATENCY_MS, pollTimeoutMs: 60_000 } },
  });
  // Latency on the way in: the fetcher of this app waits before each request (a far site's round trip).
  const fetcher = t.app.services.fetcher;
  const original = fetcher.fetch.bind(fetcher);
  fetcher.fetch = async (url, request) => (await delay(), original(url, request));
  try {
    const ids: number[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const res = await t.request('POST', '/api/media/upload', { key: t.ownerKey, form: form({ body: await photo('#336699', { seed: i + 1, width: 800, height: 600 }), name: `bench-${i}.jpg`, type: 'image/jpeg' }) });
      ids.push(res.body.media_id as number);
    }
    const out = [];
    for (const [destination, path, body, requests] of [
      ['wordpress', '/api/automation/export/wordpress', { wp_url: wp.url, wp_user: 'bench', wp_password: 'pass word', media_ids: ids }, () => wp.requests.length],
      ['shopify (staged)', '/api/automation/export/shopify', { shop: 'bench.myshopify.com', access_token: TOKEN, media_ids: ids }, () => shop.requests.length],
    ] as const) {
      const before = requests();
      const started = Date.now();
      const res = await t.request('POST', path, { key: t.ownerKey, body });
      const done = await waitForJob(t, t.ownerKey, res.body.job_id, 600_000);
      if (done.body.status !== 'completed' || done.body.export.exported !== ITEMS) throw new Error(`bench export failed: ${done.text.slice(0, 500)}`);
      out.push({ destination, concurrency, ms: Date.now() - started, requests: requests() - before });
    }
    return out;
  } finally {
    await t.stop();
  }
}

const rows = [...(await run(1)), ...(await run(defaults.exports.concurrency))];
await wp.close();
await shop.close();

const lines = [
  '## Exports: items sent per second, WordPress and Shopify',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}`,
  '- Command: `npx tsx bench/exports.bench.ts`',
  `- Load: one export job of ${ITEMS} JPEG items (800×600) per row, against the local fakes of test/automation, every request delayed ${LATENCY_MS} ms (a far site); Shopify by staged upload, files READY after 2 polls; in-memory PGlite`,
  '',
  '| destination | items at once | job time (s) | items/s | requests per item |',
  '| --- | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.destination} | ${r.concurrency} | ${(r.ms / 1000).toFixed(2)} | ${((ITEMS * 1000) / r.ms).toFixed(1)} | ${(r.requests / ITEMS).toFixed(2)} |`),
];
console.log(lines.join('\n'));
writeResultsSection('exports', lines.join('\n'));
