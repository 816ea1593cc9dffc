// Our service, used the way a client uses it: POST /api/scrape in crawl mode, then GET
// /api/jobs/{id} until the job is done. Three ways to run it (OursOptions.topology):
// - embedded: `npm start`, one process (PGlite on disk, in-process workers), started by
//   test/helpers/service-process.ts exactly as the npm script starts it;
// - worker: an API process plus a `npm run worker` process on PostgreSQL and Redis; the worker crawls;
// - in-process: the app built inside this benchmark child (in-memory PGlite, under tsx), a diagnostic
//   that can trace the job's calls (BENCH_TRACE) and break its memory down.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { NO_QUOTA } from '../faults/common.js';
import { filesUnder, kernelPeakRssMb, MB, settle, startMonitor, type CrawlResult } from './common.js';
import { nodeFlags, sampleProcessTree, startServiceProcess, type ServiceProcess } from '../../test/helpers/service-process.js';

const DEPTH = 2;
const MAX_FILES = 10_000;

export interface JobAnswer {
  job_id: number;
  status: string;
  error?: string;
  progress: { pages_fetched: number; assets_found: number; assets_stored: number };
  assets?: { count: number };
  started_at: string | null;
  finished_at: string | null;
}

export type Topology = 'embedded' | 'worker' | 'in-process';

export interface OursOptions {
  topology: Topology;
  startUrl: string;
  /** Temp folders go under this one (the parent removes it even if this process dies). */
  tmpRoot: string;
  /** How often the client polls the job; the API suggests 2 to 5 s, tests use 50 ms. */
  pollMs: number;
  /** Leave undefined for the configured default (SCRAPE_HOST_CONCURRENCY, 4). */
  hostConcurrency?: number;
  /**
   * A PostgreSQL server: required by the worker topology, optional for in-process (instead of
   * in-memory PGlite). A fresh database is created on it and dropped afterwards.
   */
  adminDatabaseUrl?: string;
  /** Redis for the worker topology (a fresh key prefix per run). */
  redisUrl?: string;

  /** Count and time the job's fetches, blob writes and asset inserts (a diagnostic; BENCH_TRACE). */
  trace?: boolean;
}

interface Stage {
  calls: number;
  inFlight: number;
  maxInFlight: number;
  totalMs: number;
}

/**
 * Wraps `object[method]` to count calls, time them and track how many are in flight at once. The
 * service's own instances are wrapped (src/ is untouched): the scrape job calls these same objects.
 */
function traceMethod(stages: Map<string, Stage>, label: string, object: object, method: string): void {
  const target = object as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const original = target[method]!;
  const stage: Stage = { calls: 0, inFlight: 0, maxInFlight: 0, totalMs: 0 };
  stages.set(label, stage);
  target[method] = async function (this: unknown, ...args: unknown[]) {
    stage.calls++;
    stage.maxInFlight = Math.max(stage.maxInFlight, ++stage.inFlight);
    const started = performance.now();
    try {
      return await original.apply(this, args);
    } finally {
      stage.totalMs += performance.now() - started;
      stage.inFlight--;
    }
  };
}

/** Runs `fn` with the URL of a new, empty database on the server, dropping it afterwards. */
async function withFreshDatabase<T>(adminUrl: string, fn: (url: string) => Promise<T>): Promise<T> {
  const name = `crawl_bench_${randomBytes(4).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

function msSummary(values: number[]): string {
  if (values.length === 0) return 'n/a';
  const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
  return `mean ${mean.toFixed(0)} ms, max ${Math.max(...values).toFixed(0)} ms`;
}

const crawlBody = (url: string) => ({ url, sniper_mode: false, crawl_depth: DEPTH, max_files: MAX_FILES });

export async function runOurs(options: OursOptions): Promise<CrawlResult> {
  if (options.topology === 'embedded') return crawlWithProcesses(options, undefined);
  if (options.topology === 'worker') {
    if (!options.adminDatabaseUrl || !options.redisUrl) throw new Error('the worker topology needs BENCH_DATABASE_URL and BENCH_REDIS_URL');
    return withFreshDatabase(options.adminDatabaseUrl, (databaseUrl) => crawlWithProcesses(options, databaseUrl));
  }
  if (options.adminDatabaseUrl) return withFreshDatabase(options.adminDatabaseUrl, (databaseUrl) => crawlInProcess(options, databaseUrl));
  return crawlInProcess(options, undefined);
}

export interface Client {
  base: string;
  key: string;
  pollMs: number;
}

export interface ScrapeRun {
  job: JobAnswer;
  posted: number;
  seen: number;
  pollMs: number[];
}

/** POST /api/scrape with `body`, then polls until the job has finished; the caller measures around it. */
export async function scrapeAndWait(client: Client, body: Record<string, unknown>, onStarted: () => void): Promise<ScrapeRun> {
  const headers = { 'X-API-Key': client.key, 'Content-Type': 'application/json' };
  onStarted();
  const posted = Date.now();
  const started = await fetch(`${client.base}/api/scrape`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  const startBody = (await started.json()) as { job_id?: number };
  if (started.status !== 202 || !startBody.job_id) throw new Error(`POST /api/scrape answered ${started.status}: ${JSON.stringify(startBody)}`);
  const pollMs: number[] = []; // how long each poll took to answer, while the job ran
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, client.pollMs));
    const { answer, ms } = await pollJob(client, startBody.job_id);
    if (answer.status === 'completed' || answer.status === 'failed') {
      const seen = Date.now();
      if (answer.status !== 'completed') throw new Error(`the scrape job failed: ${answer.error}`);
      return { job: answer, posted, seen, pollMs };
    }
    pollMs.push(ms);
  }
}

export async function pollJob(client: Client, jobId: number): Promise<{ answer: JobAnswer; ms: number }> {
  const sent = performance.now();
  const response = await fetch(`${client.base}/api/jobs/${jobId}`, { headers: { 'X-API-Key': client.key } });
  const answer = (await response.json()) as JobAnswer;
  if (response.status !== 200) throw new Error(`GET /api/jobs answered ${response.status}: ${JSON.stringify(answer)}`);
  return { answer, ms: performance.now() - sent };
}

export function runNotes(run: ScrapeRun, pollMs: number): string[] {
  return [
    `job queued→started ${((Date.parse(run.job.started_at!) - run.posted) / 1000).toFixed(2)} s; the poll that saw it completed came ${((run.seen - Date.parse(run.job.finished_at!)) / 1000).toFixed(2)} s after finished_at`,
    `${run.pollMs.length} polls while running (every ${pollMs} ms) answered in ${msSummary(run.pollMs)}`,
    `assets listed in the completed answer: ${run.job.assets?.count}; assets found: ${run.job.progress.assets_found}`,
  ];
}

async function crawlWithProcesses(options: OursOptions, databaseUrl: string | undefined): Promise<CrawlResult> {
  const dataDir = mkdtempSync(join(options.tmpRoot, `ours-${options.topology}-`));
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info', // the start-up lines say when a process is ready; request lines are not printed at info
    DATA_DIR: dataDir,
    TIERS: NO_QUOTA,
    FETCH_ALLOW_PRIVATE: '127.0.0.1',
    SCRAPE_HOST_DELAY_MS: '0',
    SCRAPE_MAX_PAGES: '2000',
    WORKER_CONCURRENCY: '1',
    ...(options.hostConcurrency ? { SCRAPE_HOST_CONCURRENCY: String(options.hostConcurrency) } : {}),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REDIS_URL: options.redisUrl!, REDIS_PREFIX: `crawl-bench-${randomBytes(4).toString('hex')}` } : {}),
  };
  const processes: ServiceProcess[] = [];
  try {
    const api = await startServiceProcess('main', { ...env, HOST: '127.0.0.1', PORT: '0', ...(databaseUrl ? { RUN_WORKERS: 'false' } : {}) }, 'service started');
    processes.push(api.process);
    const worker = databaseUrl ? await startServiceProcess('worker', env, 'worker started') : undefined;
    if (worker) processes.push(worker.process);
    // The process that runs the job; the crawl itself runs in a crawl process it forks for the job.
    const jobProcess = (worker ?? api).process.child.pid!;
    const client: Client = {
      base: String(api.ready.url),
      key: (JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { api_key: string }).api_key,
      pollMs: options.pollMs,
    };
    // One small request first, so first-request costs are paid before the baseline, as in a running
    // service; then a second for the processes to settle.
    await pollJob(client, 999_999).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1000));

    let sampler: ReturnType<typeof sampleProcessTree> | undefined;
    let apiSampler: ReturnType<typeof sampleProcessTree> | undefined;
    const run = await scrapeAndWait(client, crawlBody(options.startUrl), () => {
      sampler = sampleProcessTree(jobProcess);
      if (worker) apiSampler = sampleProcessTree(api.process.child.pid!);
    });
    const tree = sampler!.stop();
    const apiMeasured = apiSampler?.stop().root;
    const crawlProcesses = tree.children.filter((c) => c.args.some((arg) => arg.endsWith('crawl-process.js')));
    if (crawlProcesses.length !== 1) throw new Error(`expected the job to crawl in one crawl process, saw ${crawlProcesses.length}`);
    const crawl = crawlProcesses[0]!;
    const finished = Date.parse(run.job.finished_at!);
    const onDisk = filesUnder(join(dataDir, 'files'), (name) => name.includes('~'));
    const jobProcessName = worker ? 'worker process' : 'service process';
    return {
      crawler: worker
        ? `ours, worker (host concurrency ${options.hostConcurrency ?? 'default'}, PostgreSQL + Redis): crawl process`
        : `ours, embedded (host concurrency ${options.hostConcurrency ?? 'default'}, PGlite): crawl process`,
      pages: run.job.progress.pages_fetched,
      assets: run.job.progress.assets_stored,
      filesOnDisk: onDisk.files,
      bytesOnDisk: onDisk.bytes,
      seconds: (finished - run.posted) / 1000,
      // The crawling process is the crawl process; it starts with the job, so its first sample is its baseline.
      baselineRssMb: crawl.firstRssMb,
      peakRssMb: crawl.peakRssMb,
      vmHwmMb: crawl.vmHwmMb,
      // Our work is the crawl and the job's bookkeeping (rows, progress): both processes' CPU.
      cpuSeconds: crawl.cpuSeconds + tree.root.cpuSeconds,
      jobProcessPeakRssMb: tree.root.peakRssMb,
      totalPeakRssMb: tree.peakTotalRssMb,
      notes: [
        ...runNotes(run, options.pollMs),
        `the crawl process: RSS ${crawl.firstRssMb.toFixed(0)} MB at its first sample → peak ${crawl.peakRssMb.toFixed(0)} MB, ${crawl.cpuSeconds.toFixed(1)} CPU s`,
        `the ${jobProcessName} (runs the job, writes its rows${worker ? '' : ', serves the API, holds PGlite'}): RSS ${tree.root.baselineRssMb.toFixed(0)} → peak ${tree.root.peakRssMb.toFixed(0)} MB, ${tree.root.cpuSeconds.toFixed(1)} CPU s; with the crawl process, peak ${tree.peakTotalRssMb.toFixed(0)} MB together`,
        ...(apiMeasured
          ? [`the API process (serving the POST and the polls, no workers): RSS ${apiMeasured.baselineRssMb.toFixed(0)} → peak ${apiMeasured.peakRssMb.toFixed(0)} MB, ${apiMeasured.cpuSeconds.toFixed(1)} CPU s`]
          : []),
        `node flags: ${nodeFlags(worker ? 'worker' : 'start').join(' ') || 'none'} (the crawl process: ${crawl.args.filter((a) => a.startsWith('--')).join(' ')})`,
      ],
    };
  } catch (error) {
    for (const p of processes) if (p.child.exitCode !== null) throw new Error(`${(error as Error).message}\nlast log lines:\n${p.log.slice(-20).join('\n')}`);
    throw error;
  } finally {
    for (const p of processes.reverse()) await p.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function crawlInProcess(options: OursOptions, databaseUrl: string | undefined): Promise<CrawlResult> {
  const dataDir = mkdtempSync(join(options.tmpRoot, 'ours-'));
  try {
    const defaults = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const config = loadConfig(
      { NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir },
      {
        inMemoryDatabase: !databaseUrl,
        databaseUrl,
        tiers: JSON.parse(NO_QUOTA),
        fetch: { ...defaults.fetch, allowPrivateAddresses: ['127.0.0.1'] },
        // No politeness delay against our own server; maxPages above the site's 1,000 pages.
        // Inline: this diagnostic traces and breaks down the crawl inside this one process.
        scrape: { ...defaults.scrape, isolation: 'inline', hostDelayMs: 0, maxPages: 2000, hostConcurrency: options.hostConcurrency ?? defaults.scrape.hostConcurrency },
        jobs: { ...defaults.jobs, concurrency: 1 },
      },
    );
    const app = await buildApp(config, { logger: createLogger('silent') });
    try {
      const stages = new Map<string, Stage>();
      if (options.trace) {
        traceMethod(stages, 'fetcher.fetch (pages + images)', app.services.fetcher, 'fetch');
        traceMethod(stages, 'blobs.put', app.services.blobs, 'put');
        traceMethod(stages, 'prisma.asset.create', app.services.db.prisma.asset, 'create');
        traceMethod(stages, 'jobs.progress (throttled progress writes)', app.services.jobs, 'progress');
      }
      const client: Client = { base: await app.start(0, '127.0.0.1'), key: app.initialAccount!.apiKey, pollMs: options.pollMs };
      // One small request first, so the first-request costs (GraphQL and Prisma warm-up) are paid
      // before the baseline, as they would be in a running service.
      await pollJob(client, 999_999).catch(() => undefined);
      await settle();

      // With tracing, a forced GC every second tells live memory from garbage not yet collected.
      const live = { heapUsed: 0, external: 0, arrayBuffers: 0, rss: 0 };
      const gc = (globalThis as { gc?: () => void }).gc;
      const liveTimer = options.trace && gc ? setInterval(() => {
        gc();
        const usage = process.memoryUsage();
        for (const k of Object.keys(live) as Array<keyof typeof live>) live[k] = Math.max(live[k], usage[k] / MB);
      }, 1000) : undefined;
      let monitor: ReturnType<typeof startMonitor> | undefined;
      const run = await scrapeAndWait(client, crawlBody(options.startUrl), () => (monitor = startMonitor())).finally(() => clearInterval(liveTimer));
      const measured = monitor!.stop();
      const { job, posted } = run;
      // The job's own finish time, not the poll that noticed it, ends the crawl.
      const finished = Date.parse(job.finished_at!);
      // Outside the measured window: what one poll of the finished job (5,000 assets listed) costs.
      const donePollMs: number[] = [];
      for (let i = 0; i < 3; i++) donePollMs.push((await pollJob(client, job.job_id)).ms);
      const onDisk = filesUnder(join(dataDir, 'files'), (name) => name.includes('~'));
      return {
        crawler: `ours, in-process diagnostic (host concurrency ${config.scrape.hostConcurrency}, ${databaseUrl ? 'PostgreSQL' : 'in-memory PGlite'}, crawl inline, under tsx)`,
        pages: job.progress.pages_fetched,
        assets: job.progress.assets_stored,
        filesOnDisk: onDisk.files,
        bytesOnDisk: onDisk.bytes,
        seconds: (finished - posted) / 1000,
        ...measured,
        vmHwmMb: kernelPeakRssMb(),
        notes: [
          ...runNotes(run, options.pollMs),
          `a poll of the completed job answers in ${msSummary(donePollMs)}`,
          ...(liveTimer
            ? [`trace: after a forced GC every second, at most ${live.heapUsed.toFixed(0)} MB heap used, ${live.external.toFixed(0)} MB external, ${live.arrayBuffers.toFixed(0)} MB array buffers, ${live.rss.toFixed(0)} MB RSS`]
            : []),
          ...[...stages].map(
            ([label, st]) => `trace ${label}: ${st.calls} calls, ${(st.totalMs / 1000).toFixed(1)} s in total (mean ${(st.totalMs / st.calls).toFixed(1)} ms), up to ${st.maxInFlight} at once`,
          ),
        ],
      };
    } finally {
      await app.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
