// Render benchmark: our scrape job with render: true against Crawlee's PlaywrightCrawler on the same
// local script-built gallery site (bench/render/site.ts: 100 pages whose images appear only after
// script runs: JSON image lists, lazy loading, infinite scroll, CSS backgrounds set by script; the
// stories are linked by script too), in the same run. Reports images found (the target: at least
// Crawlee's), pages+images per second (the target: at least 1.0x Crawlee's) and the peak RSS of
// everything each runs (the sum over its whole process tree: service or crawler process, a crawl
// process if any, Chromium and all its children, sampled every 200 ms from this parent process).
// Our plain mode (render: false) runs on the same site beside them, for its count. Run with
// `npx tsx bench/render.bench.ts` (it builds the service first, `npm run build`); prints a
// markdown section and writes it into bench/RESULTS.md.
//
// Three kinds of process, all this file (the first argument picks the role), as in crawl.bench.ts:
// - the parent: starts the site, runs the crawlers one after the other, samples them, reports;
// - `--serve`: the site server, so its CPU and memory never count against a crawler;
// - `--run <crawler> <options>`: one crawler. Ours starts the built service the way `npm start`
//   does and drives it over HTTP (bench/render/ours.ts); Crawlee runs in this child (render/crawlee.ts).
//
// Environment knobs, all optional:
// - BENCH_ROUNDS (3): each crawler runs once per round, the order rotating; min/median/max reported.
// - BENCH_RENDER_CONCURRENCY: our RENDER_CONCURRENCY (default: the config's, 2).
// - BENCH_CRAWLEE_MAX_CONCURRENCY (2): Crawlee's maxConcurrency in the "crawlee" run, like ours.
// - BENCH_CRAWLEE_WAIT_SECS (1): infiniteScroll's waitForSecs (Crawlee's default is 4; 1 is its
//   quickest, so Crawlee's speed is not held back by its own default).
// - BENCH_ONLY=ours,plain,crawlee,crawlee-auto: run only these; crawlee-auto is Crawlee at its
//   autoscaled default concurrency (not run unless named).
// - BENCH_POLL_MS (1000): how often our client polls the job.
// - BENCH_WRITE=0: print only, leave RESULTS.md alone.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBenchRole, stopSiteServer } from './crawl/common.js';
import { sampleTree, type RenderChildMessage, type RenderCrawlResult, type TreeSample } from './render/common.js';
import type { RenderSiteManifest, RenderSiteStats } from './render/site.js';
import type { OursOptions } from './render/ours.js';
import type { CrawleeOptions } from './render/crawlee.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const SELF = fileURLToPath(import.meta.url);
const CHROMIUM = '/usr/bin/chromium';
const CHILD_TIMEOUT_MS = 15 * 60_000;
const ENV_KNOBS = ['BENCH_ROUNDS', 'BENCH_RENDER_CONCURRENCY', 'BENCH_CRAWLEE_MAX_CONCURRENCY', 'BENCH_CRAWLEE_WAIT_SECS', 'BENCH_ONLY', 'BENCH_POLL_MS'];
const CRAWLERS = ['ours', 'plain', 'crawlee', 'crawlee-auto'] as const;
type CrawlerName = (typeof CRAWLERS)[number];

// ---------------------------------------------------------------------------------------------
// Child role: one crawler. It says when it is ready (the process tree to sample), waits for the
// parent's go, crawls, and sends its result.

async function runChild(name: string, optionsJson: string): Promise<void> {
  const started = (rootPid: number) =>
    new Promise<void>((resolve) => {
      process.once('message', () => resolve());
      process.send!({ type: 'started', rootPid } satisfies RenderChildMessage);
    });
  let message: RenderChildMessage;
  try {
    const result =
      name === 'ours' || name === 'plain'
        ? await (await import('./render/ours.js')).runOurs(JSON.parse(optionsJson) as OursOptions, started)
        : await (await import('./render/crawlee.js')).runCrawlee(JSON.parse(optionsJson) as CrawleeOptions, started);
    message = { type: 'result', result };
  } catch (error) {
    message = { type: 'error', message: (error as Error).stack ?? String(error) };
  }
  // Exit once the message is out: libraries may keep timers alive.
  process.send!(message, () => process.exit(message.type === 'result' ? 0 : 1));
}

// ---------------------------------------------------------------------------------------------
// Parent.

function forkSelf(args: string[]): ChildProcess {
  // process.execArgv carries tsx's loader, so the child runs this TypeScript file the same way.
  return fork(SELF, args, { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Runs one crawler in a child, sampling its process tree from its `started` message to its result. */
function crawl(name: CrawlerName, options: object): Promise<{ result: RenderCrawlResult; tree: TreeSample }> {
  const child = forkSelf(['--run', name, JSON.stringify(options)]);
  let sampler: ReturnType<typeof sampleTree> | undefined;
  return new Promise<{ result: RenderCrawlResult; tree: TreeSample }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} took over ${CHILD_TIMEOUT_MS} ms`)), CHILD_TIMEOUT_MS);
    child.on('message', (message: RenderChildMessage) => {
      if (message.type === 'started') {
        sampler = sampleTree(message.rootPid);
        child.send({ type: 'go' });
      } else {
        clearTimeout(timer);
        const tree = sampler?.stop();
        if (message.type === 'result' && tree) resolve({ result: message.result, tree });
        else reject(new Error(message.type === 'error' ? message.message : 'no sample'));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before its result`));
    });
  }).finally(async () => {
    if (child.exitCode === null) {
      await new Promise((resolve) => {
        child.once('exit', resolve);
        setTimeout(() => child.kill(), 10_000).unref(); // only a child that hangs
      });
    }
  });
}

interface Run {
  round: number;
  result: RenderCrawlResult;
  tree: TreeSample;
  served: Omit<RenderSiteStats, 'cpuSeconds'>;
}

const cpuByName = (t: TreeSample) =>
  Object.entries(t.cpuByName)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(1)}`)
    .join(', ');
const rate = (r: RenderCrawlResult) => (r.pages + r.images) / r.seconds;
const f1 = (v: number) => v.toFixed(1);
const verdict = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');

function spread(values: number[], format = f1): string {
  const sorted = [...values].sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  return `${format(sorted[0]!)} / **${format(median)}** / ${format(sorted.at(-1)!)}`;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)]!;
}

function commandLine(): string {
  const env = ENV_KNOBS.filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  return [...env, 'npx tsx bench/render.bench.ts'].join(' ');
}

function report(manifest: RenderSiteManifest, runs: Map<CrawlerName, Run[]>, settings: string[], loadBefore: number): string {
  const cpu = cpus();
  const lines = [
    '## Render: our scrape job with render: true against Crawlee PlaywrightCrawler',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, ${(totalmem() / 1024 ** 3).toFixed(0)} GB, Node ${process.version}; Debian's Chromium (${CHROMIUM}) for both`,
    `- Command: \`${commandLine()}\``,
    `- Load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadavg()[0]!.toFixed(2)} (the machine is shared: other sessions run tests beside it)`,
    `- Site (bench/render/site.ts): ${manifest.pages} pages (home → 9 hubs in a static nav → 90 stories linked only by script), ${manifest.images} distinct images (${f1(manifest.imageBytes / 1024 / 1024)} MB), none named in any page's HTML as served; galleries by page: ${Object.entries(manifest.kinds).map(([k, n]) => `${n} ${k}`).join(', ')}; the logo a script-set CSS background on every page. node:http on 127.0.0.1 in its own process.`,
    ...settings.map((s) => `- ${s}`),
    `- Peak RSS: the highest sum of RSS over the whole process tree in one sample (every 200 ms, from /proc, by the parent): ours = the service process, its crawl process if any, Chromium and its children; Crawlee = its process, Chromium and its children. Shared pages count once per process (RSS, not PSS).`,
    `- Rate: (pages + images stored) / seconds. Rounds: ${Math.max(...[...runs.values()].map((r) => r.length))}, the order rotating; figures are min / **median** / max over the rounds.`,
    '',
    '| crawler | pages | images (of ' + manifest.images + ') | seconds | pages+images/s | peak RSS MB (tree) | processes at peak | CPU s (tree) |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const rounds of runs.values()) {
    const r = rounds.map((x) => x.result);
    lines.push(
      `| ${r[0]!.crawler} | ${spread(r.map((x) => x.pages), String)} | ${spread(r.map((x) => x.images), String)} | ${spread(r.map((x) => x.seconds))} | ${spread(r.map(rate), (v) => v.toFixed(2))} | ${spread(rounds.map((x) => x.tree.peakRssMb), (v) => v.toFixed(0))} | ${spread(rounds.map((x) => x.tree.processesAtPeak), String)} | ${spread(rounds.map((x) => x.tree.cpuSeconds))} |`,
    );
  }
  const ours = runs.get('ours');
  const targets: string[] = [];
  for (const name of ['crawlee', 'crawlee-auto'] as const) {
    const theirs = runs.get(name);
    if (!ours || !theirs) continue;
    const oursImages = Math.min(...ours.map((x) => x.result.images));
    const theirImages = Math.max(...theirs.map((x) => x.result.images));
    const ratio = medianOf(ours.map((x) => rate(x.result))) / medianOf(theirs.map((x) => rate(x.result)));
    const rss = medianOf(ours.map((x) => x.tree.peakRssMb)) / medianOf(theirs.map((x) => x.tree.peakRssMb));
    const cpuRatio = medianOf(ours.map((x) => x.tree.cpuSeconds)) / medianOf(theirs.map((x) => x.tree.cpuSeconds));
    targets.push(
      `- Against ${theirs[0]!.result.crawler}: images, our fewest ${oursImages} vs their most ${theirImages}: ${verdict(oursImages >= theirImages)}; pages+images/s, median ours / median theirs = ${ratio.toFixed(2)}x (target ≥ 1.0x): ${verdict(ratio >= 1)}; peak RSS, median ours / theirs = ${rss.toFixed(2)}x; CPU s, median ours / theirs = ${cpuRatio.toFixed(2)}x.`,
    );
  }
  if (targets.length) lines.push('', ...targets);
  lines.push('', 'Every round:', '', '| crawler | round | pages | images | seconds | peak RSS MB | max processes | CPU s | CPU s by process | site served: pages / JSON / images |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |');
  for (const rounds of runs.values()) {
    for (const { round, result: r, tree: t, served: s } of rounds) {
      lines.push(`| ${r.crawler.split(' (')[0]}${r.crawler.includes('plain') ? ' plain' : ''} | ${round} | ${r.pages} | ${r.images} | ${f1(r.seconds)} | ${t.peakRssMb.toFixed(0)} | ${t.maxProcesses} | ${f1(t.cpuSeconds)} | ${cpuByName(t)} | ${s.pages} / ${s.json} / ${s.images} |`);
    }
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const rounds = positiveIntEnv('BENCH_ROUNDS', 3);
  const pollMs = positiveIntEnv('BENCH_POLL_MS', 1000);
  const renderConcurrency = positiveIntEnv('BENCH_RENDER_CONCURRENCY');
  const crawleeConcurrency = positiveIntEnv('BENCH_CRAWLEE_MAX_CONCURRENCY', 2);
  const waitForSecs = positiveIntEnv('BENCH_CRAWLEE_WAIT_SECS', 1);
  const only = (process.env.BENCH_ONLY ?? 'ours,plain,crawlee').split(',').map((s) => s.trim());
  for (const name of only) if (!(CRAWLERS as readonly string[]).includes(name)) throw new Error(`BENCH_ONLY: unknown crawler ${name} (${CRAWLERS.join(', ')})`);
  const order = CRAWLERS.filter((c) => only.includes(c));

  console.log('building the service (npm run build) ...');
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
  const loadBefore = loadavg()[0]!;
  const tmpRoot = mkdtempSync(join(tmpdir(), 'render-bench-'));
  const server = forkSelf(['--serve']);
  try {
    const manifest = await new Promise<RenderSiteManifest>((resolve, reject) => {
      server.once('message', (m: { manifest: RenderSiteManifest }) => resolve(m.manifest));
      server.once('exit', (code) => reject(new Error(`the site server exited with ${code}`)));
    });
    console.log(`site: ${manifest.pages} pages, ${manifest.images} images at ${manifest.url}`);
    const stats = () =>
      new Promise<RenderSiteStats>((resolve) => {
        server.once('message', (m: { stats: RenderSiteStats }) => resolve(m.stats));
        server.send({ type: 'stats' });
      });
    const startUrl = `${manifest.url}/`;
    const optionsOf = (name: CrawlerName): OursOptions | CrawleeOptions =>
      name === 'ours' || name === 'plain'
        ? { render: name === 'ours', startUrl, tmpRoot, pollMs, chromiumPath: CHROMIUM, renderConcurrency }
        : { startUrl, tmpRoot, chromiumPath: CHROMIUM, maxConcurrency: name === 'crawlee' ? crawleeConcurrency : undefined, waitForSecs };

    const runs = new Map<CrawlerName, Run[]>(order.map((name) => [name, []]));
    for (let round = 1; round <= rounds; round++) {
      const shift = (round - 1) % order.length;
      for (const name of [...order.slice(shift), ...order.slice(0, shift)]) {
        console.log(`round ${round}, ${name}: crawling ...`);
        const before = await stats();
        const { result, tree } = await crawl(name, optionsOf(name));
        const after = await stats();
        const served = { pages: after.pages - before.pages, json: after.json - before.json, images: after.images - before.images, notFound: after.notFound - before.notFound };
        runs.get(name)!.push({ round, result, tree, served });
        console.log(
          `  ${result.pages} pages, ${result.images} images in ${f1(result.seconds)} s (${rate(result).toFixed(2)}/s); tree peak RSS ${tree.peakRssMb.toFixed(0)} MB over ${tree.processesAtPeak} processes, ${f1(tree.cpuSeconds)} CPU s; served ${served.pages} pages / ${served.json} JSON / ${served.images} images / ${served.notFound} 404`,
        );
        console.log(`  CPU s by process name: ${cpuByName(tree)}`);
        for (const note of result.notes) console.log(`  ${note}`);
      }
    }
    const settings = [
      `Ours: the built service started as \`npm start\` starts it (NODE_ENV production, PGlite on disk, FETCH_ALLOW_PRIVATE 127.0.0.1, SCRAPE_HOST_DELAY_MS 0, RENDER_CONCURRENCY ${renderConcurrency ?? '2 (default)'}, other settings default); POST /api/scrape {render: true, crawl_depth: 2, sniper_mode: false, max_files: 10000}, then GET /api/jobs/{id} every ${pollMs} ms; seconds = POST to finished_at. *plain* is the same with render: false.`,
      `Crawlee: PlaywrightCrawler (@crawlee/playwright 3) in its own process, launcher playwright-core's chromium with executablePath ${CHROMIUM}, infiniteScroll waitForSecs ${waitForSecs} (Crawlee's default: 4), images from the page's image responses and the final DOM (currentSrc, srcset, CSS backgrounds; the unloaded ones by sendRequest), enqueueLinks same-hostname, robots.txt respected, no fingerprints, no session pool, storage in memory. *crawlee* runs maxConcurrency ${crawleeConcurrency}; *crawlee-auto* Crawlee's autoscaled default. Seconds = crawler.run(), browser launch included (ours launches its browser in the job too).`,
    ];
    const section = report(manifest, runs, settings, loadBefore);
    console.log(`\n${section}\n`);
    writeResultsSection('render', section);
  } finally {
    await stopSiteServer(server);
    rmSync(tmpRoot, { recursive: true, force: true });
  }
}

runBenchRole(
  () => import('./render/site.js').then((site) => site.runRenderSiteServer()),
  runChild,
  main,
);
