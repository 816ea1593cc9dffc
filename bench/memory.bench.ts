// Memory that comes back: the embedded service (`npm start`: PGlite on disk, the in-process queue,
// local files, in a temp DATA_DIR) is driven over HTTP through a session of uploads, OCR and a crawl,
// then left alone; its RSS and its children's (crawl process) are sampled from /proc every second
// for 60 s after the last answer. Targets (issue 22, item 4): back within 50 MB of the idle RSS
// within that minute; during the crawl, service and crawl process together at most Crawlee
// CheerioCrawler's peak RSS on the same site, run in the same round (bench/crawl/crawlee.ts).
//
//   npx tsx bench/memory.bench.ts       (BENCH_ROUNDS, default 3; BENCH_WRITE=0 to only print)
//
// Knobs for comparing variants: BENCH_NODE_ARGS (node flags instead of package.json's start script's,
// see test/helpers/service-process.ts), BENCH_SERVICE_ENV ("NAME=value ..." added to the service's
// environment, e.g. MALLOC_ARENA_MAX=2 or VISION_LOCAL_IDLE_MS=60000), BENCH_STEPS (which of
// uploads,ocr,crawl to run, to tell what holds memory), BENCH_SKIP_CRAWLEE=1.
//
// Roles of this file: the parent (below), `--serve` (the generated site of bench/crawl/site.ts in its
// own process) and `--crawlee` (Crawlee in its own process, so its peak RSS is its own).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import type { CrawlResult, SiteManifest } from './crawl/common.js';
import type { CrawleeOptions } from './crawl/crawlee.js';
import { NO_QUOTA } from './faults/common.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { textImage } from '../test/fixtures/vision/images.js';
import { childProcesses, nodeFlags, procMemoryMb, scriptEnv, sampleProcessTree, startServiceProcess, type ServiceProcess } from '../test/helpers/service-process.js';

const SELF = fileURLToPath(import.meta.url);
const ROUNDS = positiveIntEnv('BENCH_ROUNDS', 3);
const TAIL_SECONDS = 60;
const TARGET_RETURN_MB = 50;
const UPLOAD_CONCURRENCY = 4;
const OCR_CONCURRENCY = 2;

// ---------------------------------------------------------------------------------------------
// The load: real encoded images of varied sizes and formats, and images with words to read.

/** Width, height, format: thumbnails to 12-megapixel photos (noise compresses like a busy photo). */
const UPLOADS: Array<[number, number, 'jpeg' | 'png' | 'webp']> = [];
for (let i = 0; i < 36; i++) {
  const sizes: Array<[number, number]> = [[320, 240], [640, 480], [1024, 768], [1600, 1200], [2400, 1600], [4000, 3000]];
  const [w, h] = sizes[i % sizes.length]!;
  const format = w <= 640 && i % 3 === 0 ? 'png' : i % 4 === 1 ? 'webp' : 'jpeg';
  UPLOADS.push([w, h, format]);
}

async function uploadImage(index: number): Promise<Buffer> {
  const [width, height, format] = UPLOADS[index]!;
  const background = { r: (index * 53) % 256, g: (index * 97) % 256, b: (index * 31) % 256 };
  const image = sharp({ create: { width, height, channels: 3, background, noise: { type: 'gaussian', mean: 110 + index, sigma: 12 + (index % 5) * 6 } } }).blur(0.8);
  return format === 'png' ? image.png().toBuffer() : format === 'webp' ? image.webp({ quality: 80 }).toBuffer() : image.jpeg({ quality: 85 }).toBuffer();
}

const OCR_WORDS = ['OPEN DAILY', 'HARBOUR MARKET', 'NORTH BRIDGE', 'WINTER SALE', 'CITY MUSEUM', 'GARDEN CAFE', 'RIVER ROAD', 'OLD STUDIO', 'CAMERA SHOP', 'LIGHT HOUSE', 'VILLAGE HALL', 'PRINT ROOM'];

// ---------------------------------------------------------------------------------------------
// Child roles.

async function runCrawleeChild(optionsJson: string): Promise<void> {
  const { runCrawlee } = await import('./crawl/crawlee.js');
  const result = await runCrawlee(JSON.parse(optionsJson) as CrawleeOptions);
  process.send!({ type: 'result', result }, () => process.exit(0));
}

function forkSelf(args: string[], extraExecArgv: string[] = []): ChildProcess {
  return fork(SELF, args, { execArgv: [...process.execArgv, ...extraExecArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function nextMessage<T>(child: ChildProcess, type: string, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} message within ${timeoutMs} ms`)), timeoutMs);
    child.on('message', (message: { type: string }) => {
      if (message.type !== type) return;
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the child exited with ${code} before sending ${type}`));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Parent: one session against one fresh service.

interface Round {
  idleMb: number;
  /** Highest RSS of the service and its children together, from the first upload to the end of the tail. */
  peakMb: number;
  /** Service + children, one sample per second after the last answer. */
  tailMb: number[];
  serviceAt60Mb: number;
  childrenAt60: number;
  crawlTotalPeakMb: number;
  crawlProcessPeakMb: number;
  serviceCrawlPeakMb: number;
  crawleePeakMb?: number;
  seconds: { uploads: number; ocr: number; crawl: number; crawlee?: number };
  pages: number;
  assets: number;
  ocrRead: number;
  breakdown: { idle: Breakdown; end: Breakdown };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

function treeRssMb(pid: number): { total: number; service: number; children: number } {
  const service = procMemoryMb(pid).rss;
  let total = service;
  const kids = childProcesses(pid);
  for (const child of kids) {
    try {
      total += procMemoryMb(child.pid).rss || 0; // NaN: exiting
    } catch {
      // gone meanwhile
    }
  }
  return { total, service, children: kids.length };
}

interface Breakdown {
  rss: number;
  heapTotal: number;
  external: number;
}

/** The service's own view (GET /metrics, prom-client's process metrics) in MB: what RSS is made of. */
async function breakdown(base: string, adminToken: string): Promise<Breakdown> {
  const text = await (await fetch(`${base}/metrics`, { headers: { 'X-Admin-Token': adminToken } })).text();
  const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN) / 1024 / 1024;
  return { rss: metric('process_resident_memory_bytes'), heapTotal: metric('nodejs_heap_size_total_bytes'), external: metric('nodejs_external_memory_bytes') };
}

const STEPS = (process.env.BENCH_STEPS ?? 'uploads,ocr,crawl').split(',');

async function pool<T>(items: T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

function serviceEnv(dataDir: string): Record<string, string> {
  const extra = Object.fromEntries(
    (process.env.BENCH_SERVICE_ENV ?? '').split(/\s+/).filter(Boolean).map((pair) => {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`BENCH_SERVICE_ENV: expected NAME=value, got ${pair}`);
      return [pair.slice(0, at), pair.slice(at + 1)];
    }),
  );
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: '0',
    TIERS: NO_QUOTA,
    FETCH_ALLOW_PRIVATE: '127.0.0.1',
    SCRAPE_HOST_DELAY_MS: '0',
    SCRAPE_MAX_PAGES: '2000',
    WORKER_CONCURRENCY: '1',
    ...extra,
  };
}

async function session(manifest: SiteManifest, uploads: Buffer[], ocrImages: Array<{ words: string; body: Buffer }>, tmpRoot: string): Promise<Round> {
  const dataDir = mkdtempSync(join(tmpRoot, 'memory-'));
  let service: ServiceProcess | undefined;
  try {
    const started = await startServiceProcess('main', serviceEnv(dataDir), 'service started');
    service = started.process;
    const pid = service.child.pid!;
    const base = String(started.ready.url);
    const key = (JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { api_key: string }).api_key;
    const headers = { 'X-API-Key': key };
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();

    // Warm-up: the first requests pay GraphQL's and Prisma's first-use costs, as in a running service.
    for (let i = 0; i < 5; i++) {
      await (await fetch(`${base}/healthz`)).arrayBuffer();
      await (await fetch(`${base}/api/media/search?q=x`, { headers })).arrayBuffer();
    }
    await sleep(3000);
    const idleSamples: number[] = [];
    for (let i = 0; i < 5; i++) {
      idleSamples.push(treeRssMb(pid).total);
      await sleep(1000);
    }
    const idleMb = median(idleSamples);
    const idleBreakdown = await breakdown(base, adminToken);
    const whole = sampleProcessTree(pid);

    // Uploads, a few at a time.
    let t0 = performance.now();
    await pool(STEPS.includes('uploads') ? [...uploads.keys()] : [], UPLOAD_CONCURRENCY, async (i) => {
      const [, , format] = UPLOADS[i]!;
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(uploads[i]!)], { type: `image/${format}` }), `upload-${i}.${format === 'jpeg' ? 'jpg' : format}`);
      form.append('name', `upload ${i}`);
      const response = await fetch(`${base}/api/media/upload`, { method: 'POST', headers, body: form });
      if (response.status !== 201) throw new Error(`upload ${i} answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    });
    const uploadSeconds = (performance.now() - t0) / 1000;

    // OCR through the legacy route (provider auto: no external provider is configured, so local).
    t0 = performance.now();
    let ocrRead = 0;
    await pool(STEPS.includes('ocr') ? ocrImages : [], OCR_CONCURRENCY, async ({ words, body }) => {
      const response = await fetch(`${base}/api/ocr`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ image_data: body.toString('base64') }) });
      const answer = (await response.json()) as { text?: string; provider_used?: string };
      if (response.status !== 200) throw new Error(`OCR answered ${response.status}: ${JSON.stringify(answer)}`);
      if (answer.text?.toUpperCase().includes(words)) ocrRead++;
    });
    const ocrSeconds = (performance.now() - t0) / 1000;

    // The crawl: POST /api/scrape, then GET /api/jobs/{id} every second until it is done.
    t0 = performance.now();
    const crawled = STEPS.includes('crawl') ? await crawlSite(base, headers, manifest, pid) : undefined;
    const crawlSeconds = (performance.now() - t0) / 1000;

    // The tail: nothing asked, one sample a second for a minute.
    const tail: Array<ReturnType<typeof treeRssMb>> = [];
    const tailStart = performance.now();
    for (let s = 1; s <= TAIL_SECONDS; s++) {
      await sleep(tailStart + s * 1000 - performance.now());
      tail.push(treeRssMb(pid));
    }
    const overall = whole.stop();
    const last = tail[tail.length - 1]!;
    const endBreakdown = await breakdown(base, adminToken);
    return {
      idleMb,
      peakMb: overall.peakTotalRssMb,
      tailMb: tail.map((t) => t.total),
      serviceAt60Mb: last.service,
      childrenAt60: last.children,
      crawlTotalPeakMb: crawled?.totalPeakMb ?? NaN,
      crawlProcessPeakMb: crawled?.crawlProcessPeakMb ?? NaN,
      serviceCrawlPeakMb: crawled?.servicePeakMb ?? NaN,
      seconds: { uploads: uploadSeconds, ocr: ocrSeconds, crawl: crawlSeconds },
      pages: crawled?.pages ?? 0,
      assets: crawled?.assets ?? 0,
      ocrRead,
      breakdown: { idle: idleBreakdown, end: endBreakdown },
    };
  } catch (error) {
    if (service) throw new Error(`${(error as Error).message}\nlast log lines:\n${service.log.slice(-20).join('\n')}`);
    throw error;
  } finally {
    await service?.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 500 });
  }
}

async function crawlSite(base: string, headers: Record<string, string>, manifest: SiteManifest, pid: number) {
  const crawlSampler = sampleProcessTree(pid);
  const posted = await fetch(`${base}/api/scrape`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: `${manifest.url}/`, sniper_mode: false, crawl_depth: 2, max_files: 10_000 }),
  });
  const { job_id: jobId } = (await posted.json()) as { job_id?: number };
  if (posted.status !== 202 || !jobId) throw new Error(`POST /api/scrape answered ${posted.status}`);
  let job: { status: string; error?: string; progress: { pages_fetched: number; assets_stored: number } };
  for (;;) {
    await sleep(1000);
    job = (await (await fetch(`${base}/api/jobs/${jobId}`, { headers })).json()) as typeof job;
    if (job.status === 'completed' || job.status === 'failed') break;
  }
  const crawl = crawlSampler.stop();
  if (job.status !== 'completed') throw new Error(`the crawl failed: ${job.error}`);
  const crawlProcess = crawl.children.find((c) => c.args.some((a) => a.endsWith('crawl-process.js')));
  return {
    totalPeakMb: crawl.peakTotalRssMb,
    servicePeakMb: crawl.root.peakRssMb,
    crawlProcessPeakMb: crawlProcess?.peakRssMb ?? NaN,
    pages: job.progress.pages_fetched,
    assets: job.progress.assets_stored,
  };
}

async function crawlee(manifest: SiteManifest, tmpRoot: string): Promise<CrawlResult> {
  const options: CrawleeOptions = { startUrl: `${manifest.url}/`, tmpRoot, maxConcurrency: 16, desiredConcurrency: 16 };
  const child = forkSelf(['--crawlee', JSON.stringify(options)], ['--expose-gc']);
  const { result } = await nextMessage<{ result: CrawlResult }>(child, 'result', 15 * 60_000);
  if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
  return result;
}

// ---------------------------------------------------------------------------------------------
// Parent: report.

const f0 = (v: number) => v.toFixed(0);
const spread = (values: number[], format = f0) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${format(sorted[0]!)} / ${format(median(sorted))} / ${format(sorted[sorted.length - 1]!)}`;
};

function report(rounds: Round[], loadBefore: number, uploads: Buffer[]): string {
  const skipCrawlee = rounds.some((r) => r.crawleePeakMb === undefined);
  const env = ['BENCH_ROUNDS', 'BENCH_NODE_ARGS', 'BENCH_SERVICE_ENV', 'BENCH_STEPS', 'BENCH_SKIP_CRAWLEE'].filter((n) => process.env[n] !== undefined).map((n) => `${n}=${JSON.stringify(process.env[n])}`);
  const mb = uploads.reduce((s, b) => s + b.length, 0) / 1024 / 1024;
  const back = rounds.map((r) => r.tailMb[TAIL_SECONDS - 1]! - r.idleMb);
  const firstWithin = rounds.map((r) => r.tailMb.findIndex((v) => v - r.idleMb <= TARGET_RETURN_MB) + 1);
  const lines = [
    '## Memory that comes back: the embedded service after uploads, OCR and a crawl',
    '',
    `- Date: ${new Date().toISOString()}; command: \`${[...env, 'npx tsx bench/memory.bench.ts'].join(' ')}\``,
    `- Load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}`,
    `- Service: the build started as \`npm start\` starts it (${Object.entries(scriptEnv('start')).map(([k, v]) => `${k}=${v} `).join('')}node flags: ${nodeFlags('start').join(' ') || 'none'}${process.env.BENCH_SERVICE_ENV ? `; added environment ${process.env.BENCH_SERVICE_ENV}` : ''}), embedded PGlite, in-process queue, local files in a temp DATA_DIR; a fresh service each round.`,
    `- Session over HTTP: ${uploads.length} uploads (POST /api/media/upload, ${UPLOAD_CONCURRENCY} at a time; JPEG, WebP and PNG from 320×240 to 4000×3000, ${mb.toFixed(1)} MB), ${OCR_WORDS.length} OCR requests (POST /api/ocr, local tesseract.js, ${OCR_CONCURRENCY} at a time), then a crawl of bench/crawl/site.ts's site (1,000 pages, 5,000 images; POST /api/scrape depth 2, polled every second).`,
    `- Memory: RSS from /proc of the service process plus its children (the crawl process). Idle = median of 5 samples a second apart after a warm-up of 10 small requests; peak = highest sample (every 50 ms) from the first upload to the end; then one sample a second for ${TAIL_SECONDS} s after the crawl's last poll. Crawlee: CheerioCrawler alone in its own process on the same site after the service has stopped (bench/crawl/crawlee.ts), its peak RSS sampled from inside.`,
    '',
    '| round | idle MB | peak MB | at 60 s MB (service alone, children) | at 60 s − idle | first second within 50 MB | crawl: service + crawl process peak MB (service, crawl process) | Crawlee peak MB | ratio | uploads s | OCR s (read) | crawl s (pages, assets) |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  rounds.forEach((r, i) => {
    lines.push(
      `| ${i + 1} | ${f0(r.idleMb)} | ${f0(r.peakMb)} | ${f0(r.tailMb[TAIL_SECONDS - 1]!)} (${f0(r.serviceAt60Mb)}, ${r.childrenAt60}) | ${f0(back[i]!)} | ${firstWithin[i] || 'never'} | ${f0(r.crawlTotalPeakMb)} (${f0(r.serviceCrawlPeakMb)}, ${f0(r.crawlProcessPeakMb)}) | ${r.crawleePeakMb === undefined ? 'n/a' : f0(r.crawleePeakMb)} | ${r.crawleePeakMb === undefined ? 'n/a' : (r.crawlTotalPeakMb / r.crawleePeakMb).toFixed(2)} | ${r.seconds.uploads.toFixed(1)} | ${r.seconds.ocr.toFixed(1)} (${r.ocrRead}/${OCR_WORDS.length}) | ${r.seconds.crawl.toFixed(1)} (${r.pages}, ${r.assets}) |`,
    );
  });
  lines.push(
    '',
    "The service process's own view at idle → 60 s after (GET /metrics; MB; external holds Buffers and WebAssembly memories, PGlite's among them; the rest of RSS is native memory: malloc, libvips, code):",
    '',
    '| round | RSS | V8 heap total | external | rest |',
    '| ---: | ---: | ---: | ---: | ---: |',
    ...rounds.map((r, i) => {
      const { idle: a, end: b } = r.breakdown;
      return `| ${i + 1} | ${f0(a.rss)} → ${f0(b.rss)} | ${f0(a.heapTotal)} → ${f0(b.heapTotal)} | ${f0(a.external)} → ${f0(b.external)} | ${f0(a.rss - a.heapTotal - a.external)} → ${f0(b.rss - b.heapTotal - b.external)} |`;
    }),
  );
  const ratios = skipCrawlee ? [] : rounds.map((r) => r.crawlTotalPeakMb / r.crawleePeakMb!);
  lines.push(
    '',
    'Min / median / max of the rounds:',
    '',
    '| measure | min / median / max | target | result |',
    '| --- | ---: | --- | --- |',
    `| idle RSS MB | ${spread(rounds.map((r) => r.idleMb))} | | |`,
    `| peak RSS MB | ${spread(rounds.map((r) => r.peakMb))} | | |`,
    `| RSS ${TAIL_SECONDS} s after the last answer, MB | ${spread(rounds.map((r) => r.tailMb[TAIL_SECONDS - 1]!))} | | |`,
    `| at ${TAIL_SECONDS} s − idle, MB | ${spread(back)} | ≤ ${TARGET_RETURN_MB} MB, every round | ${back.every((b) => b <= TARGET_RETURN_MB) ? '**PASS**' : '**FAIL**'} |`,
    ...(skipCrawlee ? [] : [`| crawl peak, service + crawl process / Crawlee | ${spread(ratios, (v) => `${v.toFixed(2)}x`)} | ≤ 1.0x, median | ${median(ratios) <= 1 ? '**PASS**' : '**FAIL**'} |`]),
    '',
    `Every second of the tail, median round (MB, service + children): ${rounds.length ? rounds[Math.floor((rounds.length - 1) / 2)]!.tailMb.map(f0).join(' ') : ''}`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
  const uploads = await Promise.all(UPLOADS.map((_u, i) => uploadImage(i)));
  const ocrImages = await Promise.all(OCR_WORDS.map(async (words, i) => ({ words, body: await textImage(words, { width: 700 + (i % 3) * 200, fontSize: 48 + (i % 4) * 8, format: i % 2 ? 'jpeg' : 'png' }) })));
  const tmpRoot = mkdtempSync(join(tmpdir(), 'memory-bench-'));
  const loadBefore = loadavg()[0]!;
  const server = forkSelf(['--serve']);
  try {
    const { manifest } = await nextMessage<{ manifest: SiteManifest }>(server, 'ready', 120_000);
    const rounds: Round[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`round ${round}: session ...`);
      const r = await session(manifest, uploads, ocrImages, tmpRoot);
      if (process.env.BENCH_SKIP_CRAWLEE !== '1') {
        console.log(`round ${round}: Crawlee ...`);
        const c = await crawlee(manifest, tmpRoot);
        r.crawleePeakMb = c.peakRssMb;
        r.seconds.crawlee = c.seconds;
      }
      console.log(`  idle ${f0(r.idleMb)} MB, peak ${f0(r.peakMb)} MB, at ${TAIL_SECONDS} s ${f0(r.tailMb[TAIL_SECONDS - 1]!)} MB (service ${f0(r.serviceAt60Mb)}); crawl peak ${f0(r.crawlTotalPeakMb)} MB (service ${f0(r.serviceCrawlPeakMb)}, crawl process ${f0(r.crawlProcessPeakMb)}) vs Crawlee ${r.crawleePeakMb ? f0(r.crawleePeakMb) : 'n/a'} MB; service idle → end: heap ${f0(r.breakdown.idle.heapTotal)} → ${f0(r.breakdown.end.heapTotal)}, external ${f0(r.breakdown.idle.external)} → ${f0(r.breakdown.end.external)} MB; tail ${r.tailMb.map(f0).join(' ')}`);
      rounds.push(r);
    }
    const section = report(rounds, loadBefore, uploads);
    console.log(`\n${section}\n`);
    writeResultsSection('memory', section);
  } finally {
    if (server.connected) server.disconnect();
    if (server.exitCode === null) await new Promise((resolve) => server.once('exit', resolve));
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

const [role, arg] = process.argv.slice(2);
const entry = role === '--serve' ? import('./crawl/site.js').then((site) => site.runSiteServer()) : role === '--crawlee' ? runCrawleeChild(arg ?? '{}') : main();
entry.catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
  if (role) process.exit(1);
});
