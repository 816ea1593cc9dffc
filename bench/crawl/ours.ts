// Our service, used the way a client uses it: the whole app (in-memory PGlite, files in a local
// blob store under a temp DATA_DIR), POST /api/scrape in crawl mode, then GET /api/jobs/{id} until
// the job is done.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { filesUnder, kernelPeakRssMb, MB, settle, startMonitor, type CrawlResult } from './common.js';

const HUGE = 1_000_000_000; // quota limits nobody reaches: the benchmark polls a lot
const DEPTH = 2;
const MAX_FILES = 10_000;

interface JobAnswer {
  status: string;
  error?: string;
  progress: { pages_fetched: number; assets_found: number; assets_stored: number };
  assets?: { count: number };
  started_at: string | null;
  finished_at: string | null;
}

export interface OursOptions {
  startUrl: string;
  /** Temp folders go under this one (the parent removes it even if this process dies). */
  tmpRoot: string;
  /** How often the client polls the job; the API suggests 2 to 5 s, tests use 50 ms. */
  pollMs: number;
  /** Leave undefined for the configured default (SCRAPE_HOST_CONCURRENCY, 4). */
  hostConcurrency?: number;
  /**
   * A PostgreSQL server to use instead of in-memory PGlite (a diagnostic: the crawler's memory
   * without the embedded database). A fresh database is created on it and dropped afterwards.
   */
  adminDatabaseUrl?: string;
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

export async function runOurs(options: OursOptions): Promise<CrawlResult> {
  if (options.adminDatabaseUrl) return withFreshDatabase(options.adminDatabaseUrl, (databaseUrl) => crawl(options, databaseUrl));
  return crawl(options, undefined);
}

async function crawl(options: OursOptions, databaseUrl: string | undefined): Promise<CrawlResult> {
  const dataDir = mkdtempSync(join(options.tmpRoot, 'ours-'));
  try {
    const defaults = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir });
    const tier = { daily: HUGE, perMinute: HUGE };
    const config = loadConfig(
      { NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir },
      {
        inMemoryDatabase: !databaseUrl,
        databaseUrl,
        tiers: { standard: tier, pro: tier, enterprise: tier },
        fetch: { ...defaults.fetch, allowPrivateAddresses: ['127.0.0.1'] },
        // No politeness delay against our own server; maxPages above the site's 1,000 pages.
        scrape: { ...defaults.scrape, hostDelayMs: 0, maxPages: 2000, hostConcurrency: options.hostConcurrency ?? defaults.scrape.hostConcurrency },
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
      const base = await app.start(0, '127.0.0.1');
      const key = app.initialAccount!.apiKey;
      const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
      // One small request first, so the first-request costs (GraphQL and Prisma warm-up) are paid
      // before the baseline, as they would be in a running service.
      await (await fetch(`${base}/api/jobs/999999`, { headers })).text();
      await settle();

      // With tracing, a forced GC every second tells live memory from garbage not yet collected.
      const live = { heapUsed: 0, external: 0, arrayBuffers: 0, rss: 0 };
      const gc = (globalThis as { gc?: () => void }).gc;
      const liveTimer = options.trace && gc ? setInterval(() => {
        gc();
        const usage = process.memoryUsage();
        for (const k of Object.keys(live) as Array<keyof typeof live>) live[k] = Math.max(live[k], usage[k] / MB);
      }, 1000) : undefined;
      const monitor = startMonitor();
      const posted = Date.now();
      const started = await fetch(`${base}/api/scrape`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ url: options.startUrl, sniper_mode: false, crawl_depth: DEPTH, max_files: MAX_FILES }),
      });
      const startBody = (await started.json()) as { job_id?: number };
      if (started.status !== 202 || !startBody.job_id) throw new Error(`POST /api/scrape answered ${started.status}: ${JSON.stringify(startBody)}`);
      let job: JobAnswer;
      const pollMs: number[] = []; // how long each poll took to answer, while the job ran
      const poll = async () => {
        const sent = performance.now();
        const response = await fetch(`${base}/api/jobs/${startBody.job_id}`, { headers });
        const answer = (await response.json()) as JobAnswer;
        if (response.status !== 200) throw new Error(`GET /api/jobs answered ${response.status}: ${JSON.stringify(answer)}`);
        return { answer, ms: performance.now() - sent };
      };
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, options.pollMs));
        const { answer, ms } = await poll();
        job = answer;
        if (job.status === 'completed' || job.status === 'failed') break;
        pollMs.push(ms);
      }
      const seen = Date.now();
      const measured = monitor.stop();
      clearInterval(liveTimer);
      if (job.status !== 'completed') throw new Error(`the scrape job failed: ${job.error}`);

      // The job's own finish time, not the poll that noticed it, ends the crawl.
      const finished = Date.parse(job.finished_at!);
      // Outside the measured window: what one poll of the finished job (5,000 assets listed) costs.
      const donePollMs: number[] = [];
      for (let i = 0; i < 3; i++) donePollMs.push((await poll()).ms);
      const onDisk = filesUnder(join(dataDir, 'files'), (name) => name.includes('~'));
      return {
        crawler: `ours (host concurrency ${config.scrape.hostConcurrency}${databaseUrl ? ', PostgreSQL out of process' : ''})`,
        pages: job.progress.pages_fetched,
        assets: job.progress.assets_stored,
        filesOnDisk: onDisk.files,
        bytesOnDisk: onDisk.bytes,
        seconds: (finished - posted) / 1000,
        ...measured,
        vmHwmMb: kernelPeakRssMb(),
        notes: [
          `job queued→started ${((Date.parse(job.started_at!) - posted) / 1000).toFixed(2)} s; the poll that saw it completed came ${((seen - finished) / 1000).toFixed(2)} s after finished_at`,
          `${pollMs.length} polls while running (every ${options.pollMs} ms) answered in ${msSummary(pollMs)}; a poll of the completed job answers in ${msSummary(donePollMs)}`,
          `assets listed in the completed answer: ${job.assets?.count}; assets found: ${job.progress.assets_found}`,
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
