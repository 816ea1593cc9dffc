// Transformation endpoint benchmark: requests per second of GET /media/<id>/t/<w>x<q>.<fmt> when the
// variant is already in the blob store (cached: autocannon in a child process, as
// bench/api-overhead.bench.ts does, so the load generator does not share the service's event loop)
// and when every request renders a new variant (uncached: a sequential loop over distinct widths,
// one format at a time), from a 2-megapixel JPEG in the library. Also: POST
// /api/media/{id}/optimize under load, the 304 revalidation path, and a check that concurrent first
// requests render once. Run with `npx tsx bench/transform.bench.ts` (BENCH_SECONDS, default 10, sets
// each load run; BENCH_WARMUP_SECONDS its warm-up). Prints a markdown section and writes it into
// bench/RESULTS.md between the transform markers.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logger.js';
import { writeResultsSection } from './results.js';
import { autocannon, type LoadRequest, type LoadResult } from './autocannon.js';

const SECONDS = positiveNumber('BENCH_SECONDS', 10);
const WARMUP_SECONDS = positiveNumber('BENCH_WARMUP_SECONDS', Math.min(3, SECONDS));
const CONNECTIONS = 50;
const SOURCE = { width: 1732, height: 1155 }; // 2.0 megapixels
const HUGE = 1_000_000_000;
/** Uncached widths: FIRST_WIDTH + WIDTH_STEP, + 2 × WIDTH_STEP ... (all below the source width). */
const FIRST_WIDTH = 320;
const WIDTH_STEP = 17;
const UNCACHED: Array<{ format: 'webp' | 'jpg' | 'png' | 'avif'; count: number }> = [
  { format: 'webp', count: 30 },
  { format: 'jpg', count: 30 },
  { format: 'png', count: 12 },
  { format: 'avif', count: 12 },
];



function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------------------------------------

/** A photo-like source: smooth gradients, soft shapes and a little grain (not flat, not pure noise). */
async function photo(): Promise<Buffer> {
  const { width, height } = SOURCE;
  const raw = Buffer.alloc(width * height * 3);
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const grain = (random() - 0.5) * 18;
      const wave = Math.sin(x / 57) * Math.cos(y / 43) * 40;
      raw[i] = clamp(90 + (x / width) * 120 + wave + grain);
      raw[i + 1] = clamp(60 + (y / height) * 140 - wave + grain);
      raw[i + 2] = clamp(150 + Math.sin((x + y) / 90) * 70 + grain);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

function clamp(v: number): number {
  return Math.max(0, Math.min(255, Math.round(v)));
}

/** Load on one URL at this benchmark's connection count. */
function load(url: string, seconds: number, options: Pick<LoadRequest, 'method' | 'headers' | 'body'> = {}): Promise<LoadResult> {
  return autocannon({ url, seconds, connections: CONNECTIONS, ...options });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

function writeResults(section: string): void {
  writeResultsSection('transform', section);
}

const f1 = (v: number) => v.toFixed(1);
const f0 = (v: number) => v.toFixed(0);

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'image-service-bench-'));
  const tier = { daily: HUGE, perMinute: HUGE };
  const config = loadConfig(
    { NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir },
    { inMemoryDatabase: true, databaseUrl: undefined, tiers: { standard: tier, pro: tier, enterprise: tier } },
  );
  const app = await buildApp(config, { logger: createLogger('silent') });
  const load1 = loadavg()[0]!;
  try {
    const base = await app.start(0, '127.0.0.1');
    if (!app.initialAccount) throw new Error('a fresh in-memory database should have created the first account');
    const key = app.initialAccount.apiKey;
    const actor = await app.services.auth.authenticate(key);
    const source = await photo();
    const { media } = await app.services.media.ingest(actor, { body: source, filename: 'bench.jpg' });
    console.log(`source: ${SOURCE.width}x${SOURCE.height} JPEG, ${(source.length / 1024).toFixed(0)} KB, media ${media.id}`);
    const transforms = app.services.transforms;

    const optimize = async (body: Record<string, unknown>): Promise<string> => {
      const response = await fetch(`${base}/api/media/${media.id}/optimize`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as { url?: string; error?: string };
      if (response.status !== 200 || !json.url) throw new Error(`optimize answered ${response.status}: ${json.error}`);
      return json.url;
    };

    // Uncached: each request a new width, so each one renders (sequential: one render at a time).
    const uncached: Array<{ format: string; count: number; mean: number; p50: number; p95: number; rps: number; kb: number }> = [];
    await fetch(await optimize({ width: 333, format: 'webp' })); // warm sharp and the route
    for (const { format, count } of UNCACHED) {
      let width = FIRST_WIDTH;
      const urls: string[] = [];
      for (let i = 0; i < count; i++) urls.push(await optimize({ width: (width += WIDTH_STEP), format }));
      const samples: number[] = [];
      let bytes = 0;
      const rendersBefore = transforms.renders;
      const started = process.hrtime.bigint();
      for (const url of urls) {
        const t0 = process.hrtime.bigint();
        const response = await fetch(url);
        const body = Buffer.from(await response.arrayBuffer());
        samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
        if (response.status !== 200 || response.headers.get('x-transform-cache') !== 'miss') throw new Error(`uncached ${format}: ${response.status} ${response.headers.get('x-transform-cache')}`);
        bytes += body.length;
      }
      const totalMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (transforms.renders - rendersBefore !== count) throw new Error(`uncached ${format}: ${transforms.renders - rendersBefore} renders for ${count} requests`);
      const sorted = [...samples].sort((a, b) => a - b);
      const row = { format, count, mean: totalMs / count, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), rps: (count * 1000) / totalMs, kb: bytes / count / 1024 };
      uncached.push(row);
      console.log(`uncached ${format}: ${row.rps.toFixed(1)} req/s, p50 ${row.p50.toFixed(0)} ms, p95 ${row.p95.toFixed(0)} ms, ${row.kb.toFixed(0)} KB`);
    }

    // Concurrent first requests of one new variant: one render.
    const fresh = await optimize({ width: 1234, format: 'webp' });
    const before = transforms.renders;
    const t0 = process.hrtime.bigint();
    const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(fresh).then(async (r) => ({ status: r.status, etag: r.headers.get('etag'), size: (await r.arrayBuffer()).byteLength }))));
    const burstMs = Number(process.hrtime.bigint() - t0) / 1e6;
    const rendersForBurst = transforms.renders - before;
    if (answers.some((a) => a.status !== 200) || new Set(answers.map((a) => a.etag)).size !== 1) throw new Error('concurrent first requests answered differently');

    // Cached: the default variant (1200 px webp, quality auto), rendered once before the runs.
    const cachedUrl = await optimize({});
    const first = await fetch(cachedUrl);
    const cachedBytes = (await first.arrayBuffer()).byteLength;
    const etag = first.headers.get('etag')!;
    const rendersBeforeCached = transforms.renders;
    console.log(`cached: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s at ${CONNECTIONS} connections`);
    await load(cachedUrl, WARMUP_SECONDS);
    const cached = await load(cachedUrl, SECONDS);
    if (cached.non2xx || cached.errors || cached.timeouts) throw new Error(`cached: ${cached.non2xx} non-2xx, ${cached.errors} errors, ${cached.timeouts} timeouts`);
    console.log(`  ${f0(cached.rps)} req/s, p50 ${cached.p50} ms, p99 ${cached.p99} ms`);
    const revalidate = await load(cachedUrl, SECONDS, { headers: { 'If-None-Match': etag } });
    if (revalidate.errors || revalidate.timeouts) throw new Error(`304 run: ${revalidate.errors} errors, ${revalidate.timeouts} timeouts`);
    console.log(`  304: ${f0(revalidate.rps)} req/s, p50 ${revalidate.p50} ms, p99 ${revalidate.p99} ms`);
    if (transforms.renders !== rendersBeforeCached) throw new Error('the cached runs rendered');

    // POST /api/media/{id}/optimize itself (auth, quota, GraphQL, one SELECT, signing).
    const optimizeRun = await load(`${base}/api/media/${media.id}/optimize`, SECONDS, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({ width: 800, quality: 75, format: 'jpg' }),
    });
    if (optimizeRun.non2xx || optimizeRun.errors) throw new Error(`optimize run: ${optimizeRun.non2xx} non-2xx, ${optimizeRun.errors} errors`);
    console.log(`optimize: ${f0(optimizeRun.rps)} req/s`);
    // Floor on this machine at this moment: Express, the request log and one SQL query, no file.
    const floor = await load(`${base}/healthz`, SECONDS);
    console.log(`healthz: ${f0(floor.rps)} req/s`);
    const load2 = loadavg()[0]!;

    const cpu = cpus();
    const section = `## Transformation endpoint: cached and uncached requests per second

- Date: ${new Date().toISOString()}
- Machine: ${cpu[0]?.model.trim()} × ${cpu.length}, ${Math.round(totalmem() / 1024 ** 3)} GB, Node ${process.version}, ${process.platform} ${process.arch}; sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}), TRANSFORM_CONCURRENCY ${config.transform.concurrency}
- Command: \`${[...['BENCH_SECONDS', 'BENCH_WARMUP_SECONDS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`), 'npx tsx bench/transform.bench.ts'].join(' ')}\`
- Source: a ${SOURCE.width}x${SOURCE.height} (2.0 MP) photo-like JPEG (${(source.length / 1024).toFixed(0)} KB, quality 85) in the library of the first account; in-memory PGlite, local blob store in a temp DATA_DIR, LOG_LEVEL silent, NODE_ENV production
- Uncached: sequential GETs of signed URLs with distinct widths (${uncached.map((u) => `${u.count} ${u.format}`).join(', ')}; widths ${FIRST_WIDTH + WIDTH_STEP} px upwards in ${WIDTH_STEP} px steps, quality auto), each one a render (decode, resize, encode, store) checked by \`X-Transform-Cache: miss\` and the render counter; one request at a time, so req/s = 1000 / mean ms
- Cached: the default variant (1200 px, auto, webp, ${(cachedBytes / 1024).toFixed(1)} KB) rendered once, then autocannon (child process) at ${CONNECTIONS} connections for ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up: a SELECT of the item, a blob-store read streamed out; no render during the runs (checked)
- Machine load (1-minute load average, 2 cores shared with other work): ${load1.toFixed(2)} at the start, ${load2.toFixed(2)} at the end

| uncached (render + store + answer) | requests | req/s | mean ms | p50 ms | p95 ms | mean KB |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${uncached.map((u) => `| ${u.format} | ${u.count} | ${u.rps.toFixed(1)} | ${f0(u.mean)} | ${f0(u.p50)} | ${f0(u.p95)} | ${f1(u.kb)} |`).join('\n')}

| cached (autocannon, ${CONNECTIONS} connections) | req/s | p50 ms | p99 ms | MB/s | requests |
| --- | ---: | ---: | ---: | ---: | ---: |
| 200 from the blob store | ${f0(cached.rps)} | ${cached.p50} | ${cached.p99} | ${f1(cached.mbPerSecond)} | ${cached.requests} |
| 304 (If-None-Match) | ${f0(revalidate.rps)} | ${revalidate.p50} | ${revalidate.p99} | ${f1(revalidate.mbPerSecond)} | ${revalidate.requests} |
| POST /api/media/{id}/optimize (for comparison) | ${f0(optimizeRun.rps)} | ${optimizeRun.p50} | ${optimizeRun.p99} | ${f1(optimizeRun.mbPerSecond)} | ${optimizeRun.requests} |
| GET /healthz (floor: Express + one SQL query) | ${f0(floor.rps)} | ${floor.p50} | ${floor.p99} | ${f1(floor.mbPerSecond)} | ${floor.requests} |

Cached over uncached webp: ${f0(cached.rps / uncached[0]!.rps)}×. Concurrent first requests: 20 at once for one new 1234 px webp variant took ${f0(burstMs)} ms and caused ${rendersForBurst} render${rendersForBurst === 1 ? '' : 's'}, every answer with the same ETag.
`;
    console.log(`\n${section}`);
    writeResults(section);
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
