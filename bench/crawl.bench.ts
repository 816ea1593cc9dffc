// Crawl benchmark: our scrape job against Crawlee's CheerioCrawler on the same generated local site
// (1,000 pages within depth 2, 5,000 distinct images of 5-60 KB), in the same run. Reports pages per
// minute, assets per second and peak memory, and checks the targets: at least Crawlee's throughput,
// peak RSS under 300 MB. Run with `npx tsx bench/crawl.bench.ts`; prints a markdown section and
// writes it into bench/RESULTS.md.
//
// Three kinds of process, all this file (the first argument picks the role):
// - the parent: starts the site, runs the crawlers one after the other, checks and reports;
// - `--serve`: the site server, so its CPU and memory never count against a crawler;
// - `--run <crawler> <options>`: one crawler; ours starts the built service's own processes the way
//   `npm start` and `npm run worker` do (see crawl/ours.ts), Crawlee runs in this child, so every
//   peak RSS is one crawler's own. Our service is built first (`npm run build`).
//
// Environment knobs, all optional:
// - BENCH_ROUNDS (3): each crawler runs once per round, the order rotating; the median round
//   counts, because shared machines are noisy.
// - BENCH_POLL_MS (1000): how often our client polls the job (the API asks for 2-5 s).
// - BENCH_HOST_CONCURRENCY: our per-host limit (default: the config's, SCRAPE_HOST_CONCURRENCY 4).
// - BENCH_DATABASE_URL and BENCH_REDIS_URL: with both set, our service also runs as an API process
//   plus a `npm run worker` process on PostgreSQL and Redis (the "worker" crawler), as on several
//   machines. The database URL must be allowed to create databases (a fresh one per run).
// - BENCH_NODE_ARGS: node flags for our service processes instead of those package.json's start and
//   worker scripts pass (to compare V8 flags; '' for none).
// - BENCH_CRAWLEE_MAX_CONCURRENCY, BENCH_CRAWLEE_DESIRED_CONCURRENCY (16, 16): Crawlee's pool.
// - BENCH_ONLY=embedded,worker,crawlee,in-process: run only these (comma-separated).
// - BENCH_WRITE=0: print only, leave RESULTS.md alone (for the diagnostic runs below).
// Diagnostics:
// - in-process (only when named in BENCH_ONLY): our app built inside the benchmark child under tsx,
//   on in-memory PGlite (or BENCH_DATABASE_URL), with its memory broken down from the inside.
// - BENCH_CPU_PROF=in-process|crawlee|both: V8 CPU profiles in a kept temp folder, and a summary of
//   where the crawl's time went.
// - BENCH_TRACE=1 (in-process): counts and times our job's fetches, blob writes, asset inserts and
//   progress writes, and forces a GC every second to tell live memory from garbage (slows the run).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBenchRole, stopSiteServer, type ChildMessage, type CrawlResult, type SiteManifest, type SiteStats } from './crawl/common.js';
import type { OursOptions } from './crawl/ours.js';
import type { CrawleeOptions } from './crawl/crawlee.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const SELF = fileURLToPath(import.meta.url);
const TARGET_PEAK_RSS_MB = 300;
const CHILD_TIMEOUT_MS = 15 * 60_000;
const ENV_KNOBS = ['BENCH_ROUNDS', 'BENCH_POLL_MS', 'BENCH_HOST_CONCURRENCY', 'BENCH_DATABASE_URL', 'BENCH_REDIS_URL', 'BENCH_NODE_ARGS', 'BENCH_CRAWLEE_MAX_CONCURRENCY', 'BENCH_CRAWLEE_DESIRED_CONCURRENCY', 'BENCH_ONLY', 'BENCH_CPU_PROF', 'BENCH_TRACE'];
const SECRET_KNOBS = new Set(['BENCH_DATABASE_URL', 'BENCH_REDIS_URL']);

const CRAWLERS = ['embedded', 'worker', 'in-process', 'crawlee'] as const;
type CrawlerName = (typeof CRAWLERS)[number];
const isOurs = (name: CrawlerName): name is Exclude<CrawlerName, 'crawlee'> => name !== 'crawlee';

// ---------------------------------------------------------------------------------------------
// Child roles.

async function runChild(name: string, optionsJson: string): Promise<void> {
  let message: ChildMessage;
  try {
    // Each crawler's modules are loaded only in its own child, so neither pays for the other's.
    const result =
      name === 'embedded' || name === 'worker' || name === 'in-process'
        ? await (await import('./crawl/ours.js')).runOurs(JSON.parse(optionsJson) as OursOptions)
        : name === 'crawlee'
          ? await (await import('./crawl/crawlee.js')).runCrawlee(JSON.parse(optionsJson) as CrawleeOptions)
          : undefined;
    if (!result) throw new Error(`unknown crawler ${name}`);
    message = { type: 'result', result };
  } catch (error) {
    message = { type: 'error', message: (error as Error).stack ?? String(error) };
  }
  // Exit once the message is out: libraries may keep timers alive, and --cpu-prof writes on exit.
  process.send!(message, () => process.exit(message.type === 'result' ? 0 : 1));
}

// ---------------------------------------------------------------------------------------------
// Parent: processes.

function forkSelf(args: string[], extraExecArgv: string[] = []): ChildProcess {
  // process.execArgv carries tsx's loader, so the child runs this TypeScript file the same way.
  return fork(SELF, args, { execArgv: [...process.execArgv, ...extraExecArgv], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function nextMessage<T extends { type: string }>(child: ChildProcess, type: T['type'], timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no ${type} message within ${timeoutMs} ms`)), timeoutMs);
    const onMessage = (message: { type: string; message?: string }) => {
      if (message.type === type) done(null, message as T);
      else if (message.type === 'error') done(new Error(message.message));
    };
    const onExit = (code: number | null) => done(new Error(`the child exited with ${code} before sending ${type}`));
    const done = (error: Error | null, value?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value!);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

async function crawl(name: CrawlerName, options: object, profileDir: string | undefined): Promise<CrawlResult> {
  // --expose-gc lets the child collect before taking its baseline.
  // A folder per run: tsx's loader thread writes a profile too (see mainProfile).
  const execArgv = ['--expose-gc', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];
  const child = forkSelf(['--run', name, JSON.stringify(options)], execArgv);
  try {
    const { result } = await nextMessage<{ type: 'result'; result: CrawlResult }>(child, 'result', CHILD_TIMEOUT_MS);
    return result;
  } finally {
    if (child.exitCode === null) {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        // The child exits by itself after sending; this only ends one that hangs.
        setTimeout(() => child.kill(), 10_000).unref();
      });
    }
  }
}

/** Fetches part of the site once, so the server's JIT warm-up is not billed to the first crawler. */
async function warmUp(site: string): Promise<void> {
  const page = await (await fetch(`${site}/section/1/`)).text();
  const images = [...page.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!);
  const links = [...page.matchAll(/<li><a href="([^"]+)"/g)].map((m) => m[1]!);
  for (let round = 0; round < 20; round++) {
    await Promise.all([...links, ...images].map(async (path) => (await fetch(`${site}${path}`)).arrayBuffer()));
  }
}

// ---------------------------------------------------------------------------------------------
// Parent: report.

const f1 = (v: number) => v.toFixed(1);
const verdict = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');

interface Run {
  round: number;
  result: CrawlResult;
  served: Omit<SiteStats, 'cpuSeconds'> & { serverCpuSeconds: number };
  problems: string[];
}

function check(result: CrawlResult, manifest: SiteManifest): string[] {
  const problems: string[] = [];
  if (result.pages !== manifest.pages) problems.push(`fetched ${result.pages} pages, expected ${manifest.pages}`);
  if (result.assets !== manifest.images) problems.push(`stored ${result.assets} assets, expected ${manifest.images}`);
  if (result.filesOnDisk !== manifest.images || result.bytesOnDisk !== manifest.imageBytes) {
    problems.push(`${result.filesOnDisk} files / ${result.bytesOnDisk} bytes on disk, expected ${manifest.images} / ${manifest.imageBytes}`);
  }
  return problems;
}

function commandLine(): string {
  // A database or Redis URL may carry a password: say only that it was set.
  const env = ENV_KNOBS.filter((n) => process.env[n]).map((n) => `${n}=${SECRET_KNOBS.has(n) ? '<set>' : JSON.stringify(process.env[n]).replace(/^"(\S*)"$/, '$1')}`);
  return [...env, 'npx tsx bench/crawl.bench.ts'].join(' ');
}

/** The round with the median time (the lower one of two middles): its figures stand for the crawler. */
function median(rounds: Run[]): Run {
  return [...rounds].sort((a, b) => a.result.seconds - b.result.seconds)[Math.floor((rounds.length - 1) / 2)]!;
}

function report(manifest: SiteManifest, runs: Map<CrawlerName, Run[]>, pollMs: number, loadBefore: number): string {
  const cpu = cpus();
  const roundCount = Math.max(...[...runs.values()].map((r) => r.length));
  const formats = Object.entries(manifest.formats)
    .map(([mime, f]) => `${f.count} ${mime.replace('image/', '')} (${f1(f.minKb)}–${f1(f.maxKb)} KB, mean ${f1(f.meanKb)})`)
    .join(', ');
  const chosen = new Map([...runs].map(([name, rounds]) => [name, median(rounds)]));
  const lines = [
    '## Crawl: our scrape job against Crawlee CheerioCrawler',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 1024 ** 3).toFixed(0)} GB, Node ${process.version}, ${process.platform} ${process.arch}`,
    `- Command: \`${commandLine()}\``,
    // Other work on the machine skews the seconds (the CPU seconds less): say how busy it was.
    `- Load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)}`,
    `- Site: ${manifest.pages} pages (start → ${manifest.hubs} hubs → leaves, all within depth 2, ${f1(manifest.htmlBytes / manifest.pages / 1024)} KB of HTML each), ${manifest.images} distinct images, ${f1(manifest.imageBytes / 1024 / 1024)} MB: ${formats}; node:http on 127.0.0.1 in its own process, robots.txt allows all`,
    `- Ours: the built service (\`npm run build\`, plain node, no tsx) configured through its environment: NODE_ENV production, FETCH_ALLOW_PRIVATE 127.0.0.1, SCRAPE_HOST_DELAY_MS 0, SCRAPE_MAX_PAGES 2000, WORKER_CONCURRENCY 1, quota tiers nobody reaches, files to the local blob store in a temp DATA_DIR. *embedded* = \`npm start\` alone (PGlite on disk, in-process workers), the way one machine runs it; *worker* = \`npm start\` with RUN_WORKERS=false plus \`npm run worker\`, sharing PostgreSQL (a fresh database) and Redis (BullMQ), the way several machines run it. Either way the process that runs the job forks a crawl process for it (SCRAPE_ISOLATION=process, the default): that one crawls and is the crawling process measured; the job's process writes the rows. POST /api/scrape {sniper_mode: false, crawl_depth: 2, max_files: 10000}, then GET /api/jobs/{id} every ${pollMs} ms. Seconds = POST to the job's finished_at. A job holds at most 16 bodies at once (from the request until the file is stored) and makes at most SCRAPE_HOST_CONCURRENCY (default 4) requests at once per host; this site is one host.`,
    '- Crawlee: CheerioCrawler in its own process, one router: pages enqueue their `img[src]` (label IMAGE) and, below depth 2, their same-hostname links; images come through the same crawler (additionalMimeTypes) and are written to a temp folder named by SHA-256. persistStorage false, no session pool, robots.txt respected. Seconds = `crawler.run()`.',
    '- Memory: RSS of the crawling process sampled every 50 ms from just before the crawl until it is done (ours from /proc, outside the process: the crawl process from its first sample, since it starts with the job, and the job’s process and the sum of both alongside; Crawlee from inside, after a forced GC); baseline = RSS then, growth = peak − baseline. VmHWM is the kernel’s peak for the whole process, start-up included. CPU s for ours = crawl process + job process.',
    `- Rounds: ${roundCount}, each crawler once per round in fresh processes, the order rotating every round. The tables show each crawler's median round; the throughput target compares the medians, the memory target takes the highest peak of all rounds.`,
    '',
    '| crawler | pages | assets | seconds | pages/min | assets/s | peak RSS MB | RSS growth MB |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { result: r } of chosen.values()) {
    lines.push(`| ${r.crawler} | ${r.pages} | ${r.assets} | ${r.seconds.toFixed(1)} | ${((r.pages / r.seconds) * 60).toFixed(0)} | ${(r.assets / r.seconds).toFixed(1)} | ${f1(r.peakRssMb)} | ${f1(r.peakRssMb - r.baselineRssMb)} |`);
  }
  lines.push('', 'Every round:', '', '| crawler | round | seconds | CPU s (crawler) | peak RSS MB |', '| --- | ---: | ---: | ---: | ---: |');
  for (const rounds of runs.values()) {
    for (const { result: r, round } of rounds) lines.push(`| ${r.crawler.split(' (')[0]} | ${round} | ${r.seconds.toFixed(1)} | ${f1(r.cpuSeconds)} | ${f1(r.peakRssMb)} |`);
  }
  lines.push(
    '',
    'Diagnostics of the median rounds (same window):',
    '',
    '| crawler | CPU s (crawler) | CPU s (site server) | GC ms | event-loop delay p99 / max ms | peak heap MB | VmHWM MB | requests served: pages / images / robots / 404 |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const { result: r, served: s } of chosen.values()) {
    const known = (v: number | null | undefined, format: (v: number) => string = f1) => (v === null || v === undefined ? 'n/a' : format(v));
    lines.push(
      `| ${r.crawler} | ${f1(r.cpuSeconds)} | ${f1(s.serverCpuSeconds)} | ${known(r.gcMs, (v) => v.toFixed(0))} | ${known(r.loopDelayP99Ms)} / ${known(r.loopDelayMaxMs)} | ${known(r.peakHeapUsedMb)} | ${known(r.vmHwmMb)} | ${s.pages} / ${s.images} / ${s.robots} / ${s.notFound} |`,
    );
  }
  const insideViews = [...chosen.values()].flatMap(({ result: r }) => (r.memoryAt ? [{ r, memoryAt: r.memoryAt }] : []));
  if (insideViews.length) {
    lines.push(
      '',
      'Memory at the baseline → at the peak-RSS sample, for crawlers measured from the inside (MB; external includes Buffers and WebAssembly memories):',
      '',
      '| crawler | RSS | heap total | heap used | external | array buffers |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    );
  }
  for (const { r, memoryAt } of insideViews) {
    const { baseline: b, peak: p } = memoryAt;
    const pair = (k: keyof typeof b) => `${f1(b[k])} → ${f1(p[k])}`;
    lines.push(`| ${r.crawler} | ${pair('rss')} | ${pair('heapTotal')} | ${pair('heapUsed')} | ${pair('external')} | ${pair('arrayBuffers')} |`);
  }
  const notes = [...chosen.values()].map(({ result: r }) => r.notes.map((n) => `- ${r.crawler.split(' (')[0]}: ${n}`));
  const problems = [...runs.values()].flat().flatMap(({ result: r, round, problems: p }) => p.map((text) => `- CHECK FAILED, ${r.crawler.split(' (')[0]} round ${round}: ${text}`));
  if (notes.flat().length || problems.length) lines.push('', ...notes.flat(), ...problems);

  const crawlee = chosen.get('crawlee')?.result;
  const ourNames = [...chosen.keys()].filter(isOurs);
  if (ourNames.length) lines.push('', '| target | value | result |', '| --- | ---: | --- |');
  for (const name of ourNames) {
    const ours = chosen.get(name)!.result;
    if (crawlee) {
      const pagesRatio = ours.pages / ours.seconds / (crawlee.pages / crawlee.seconds);
      const assetsRatio = ours.assets / ours.seconds / (crawlee.assets / crawlee.seconds);
      lines.push(
        `| ${name}: throughput ours / Crawlee, pages per minute (≥ 100%) | ${(pagesRatio * 100).toFixed(0)}% | ${verdict(pagesRatio >= 1)} |`,
        `| ${name}: throughput ours / Crawlee, assets per second (≥ 100%) | ${(assetsRatio * 100).toFixed(0)}% | ${verdict(assetsRatio >= 1)} |`,
        `| ${name}: (for reference) CPU seconds ours / Crawlee | ${((ours.cpuSeconds / crawlee.cpuSeconds) * 100).toFixed(0)}% | |`,
      );
    }
    const peak = Math.max(...runs.get(name)!.map((r) => r.result.peakRssMb));
    lines.push(`| ${name}: peak RSS of the crawling process, highest round (< ${TARGET_PEAK_RSS_MB} MB) | ${f1(peak)} MB | ${verdict(peak < TARGET_PEAK_RSS_MB)} |`);
    const totals = runs.get(name)!.flatMap((r) => (r.result.totalPeakRssMb === undefined ? [] : [r.result.totalPeakRssMb]));
    if (totals.length) {
      const holder = name === 'embedded' ? 'the service process (API, PGlite, job)' : 'the worker process';
      lines.push(`| ${name}: (for reference) peak RSS of ${holder} and the crawl process together, highest round | ${f1(Math.max(...totals))} MB | |`);
    }
  }
  if (crawlee && ourNames.length) lines.push(`| (for reference) Crawlee peak RSS, highest round | ${f1(Math.max(...runs.get('crawlee')!.map((r) => r.result.peakRssMb)))} MB | |`);
  return lines.join('\n');
}

function writeResults(section: string): void {
  writeResultsSection('crawl', section);
}

// ---------------------------------------------------------------------------------------------

/** The crawlers to run: BENCH_ONLY's list, or embedded, worker (when PostgreSQL and Redis are given) and Crawlee. */
function crawlerOrder(only: string | undefined, distributed: boolean): CrawlerName[] {
  if (!only) return distributed ? ['embedded', 'worker', 'crawlee'] : ['embedded', 'crawlee'];
  const names = only.split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !(CRAWLERS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`BENCH_ONLY: ${unknown.join(', ')} unknown; choose from ${CRAWLERS.join(', ')}`);
  if (names.includes('worker') && !distributed) throw new Error('BENCH_ONLY=worker needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
  return names as CrawlerName[];
}

async function main(): Promise<void> {
  const pollMs = positiveIntEnv('BENCH_POLL_MS', 1000);
  const rounds = positiveIntEnv('BENCH_ROUNDS', 3);
  const profile = process.env.BENCH_CPU_PROF;
  const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
  const redisUrl = process.env.BENCH_REDIS_URL || undefined;
  const order = crawlerOrder(process.env.BENCH_ONLY, Boolean(databaseUrl && redisUrl));
  // Our service runs as users run it: built to JavaScript first.
  if (order.some((name) => name === 'embedded' || name === 'worker')) execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { stdio: 'inherit' });
  const tmpRoot = mkdtempSync(join(tmpdir(), 'crawl-bench-'));
  const profileDir = profile ? mkdtempSync(join(tmpdir(), 'crawl-bench-profiles-')) : undefined;
  const loadBefore = loadavg()[0]!;
  const server = forkSelf(['--serve']);
  try {
    const { manifest } = await nextMessage<{ type: 'ready'; manifest: SiteManifest }>(server, 'ready', 120_000);
    console.log(`site: ${manifest.url} — ${manifest.pages} pages, ${manifest.images} images (${f1(manifest.imageBytes / 1024 / 1024)} MB)`);
    await warmUp(manifest.url);
    const stats = async () => {
      server.send({ type: 'stats' });
      return (await nextMessage<{ type: 'stats'; stats: SiteStats }>(server, 'stats', 10_000)).stats;
    };

    const runs = new Map<CrawlerName, Run[]>(order.map((name) => [name, []]));
    for (let round = 1; round <= rounds; round++) {
      // Rotate who goes first: the machine's state drifts, and none should always get the fresher one.
      const shift = (round - 1) % order.length;
      for (const name of [...order.slice(shift), ...order.slice(0, shift)]) {
        const startUrl = `${manifest.url}/`;
        const options: OursOptions | CrawleeOptions = isOurs(name)
            ? {
                topology: name,
                startUrl,
                tmpRoot,
                pollMs,
                hostConcurrency: positiveIntEnv('BENCH_HOST_CONCURRENCY'),
                adminDatabaseUrl: databaseUrl,
                redisUrl,
                trace: process.env.BENCH_TRACE === '1',
              }
            : {
                startUrl,
                tmpRoot,
                maxConcurrency: positiveIntEnv('BENCH_CRAWLEE_MAX_CONCURRENCY', 16),
                desiredConcurrency: positiveIntEnv('BENCH_CRAWLEE_DESIRED_CONCURRENCY', 16),
              };
        console.log(`round ${round}, ${name}: crawling ...`);
        const before = await stats();
        // Profiles only where the crawl runs inside the benchmark child (not our service processes).
        const profiled = (name === 'in-process' || name === 'crawlee') && (profile === 'both' || profile === name);
        const dir = profileDir && profiled ? join(profileDir, `${name}-${round}`) : undefined;
        const result = await crawl(name, options, dir);
        const after = await stats();
        const served = {
          pages: after.pages - before.pages,
          images: after.images - before.images,
          robots: after.robots - before.robots,
          notFound: after.notFound - before.notFound,
          bytes: after.bytes - before.bytes,
          serverCpuSeconds: after.cpuSeconds - before.cpuSeconds,
        };
        if (dir) {
          const { mainProfile, summarizeProfile } = await import('./crawl/profile-summary.js');
          const file = mainProfile(dir);
          if (file && result.windowUs) console.log(summarizeProfile(file, result.windowUs));
        }
        const problems = check(result, manifest);
        runs.get(name)!.push({ round, result, served, problems });
        console.log(
          `  ${result.pages} pages, ${result.assets} assets in ${result.seconds.toFixed(1)} s (${f1(result.cpuSeconds)} CPU s); peak RSS ${f1(result.peakRssMb)} MB (baseline ${f1(result.baselineRssMb)} MB)${problems.length ? `; CHECK FAILED: ${problems.join('; ')}` : ''}`,
        );
        for (const note of result.notes) console.log(`  ${note}`);
      }
    }

    const section = report(manifest, runs, pollMs, loadBefore);
    console.log(`\n${section}\n`);
    writeResults(section);
    if (profileDir) console.log(`CPU profiles kept in ${profileDir}`);
    if ([...runs.values()].flat().some((r) => r.problems.length)) process.exitCode = 1;
  } finally {
    await stopSiteServer(server);
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

runBenchRole(
  () => import('./crawl/site.js').then((site) => site.runSiteServer()),
  runChild,
  main,
);
