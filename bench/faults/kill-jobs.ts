// Fault: kill -9 of the process that runs scrape jobs, at random moments, while 20 jobs run.
//
// Two set-ups, each with the built service (a build of its own, from the working tree):
// - distributed: an API process (RUN_WORKERS=false) and a `npm run worker` process on a PostgreSQL
//   cluster and a Redis server of this script's own (bench/faults/infra.ts; ports 5544 and 6390);
//   the worker is SIGKILLed and started again, as on a machine that dies;
// - embedded: `npm start` alone (PGlite on disk, in-process workers); that one process is SIGKILLed
//   and started again on the same port and DATA_DIR.
//
// The jobs crawl the crawl benchmark's generated site (bench/crawl/site.ts, in a process of its
// own): job i starts at hub /section/<i>/ with crawl_depth 1, so it fetches 63 pages and stores
// their 315 images, all of distinct bytes; SCRAPE_HOST_DELAY_MS (10 ms here) spreads a job over a
// few seconds so kills land inside crawls. After the kills every job must be completed and hold
// exactly the images the site serves on those pages: one row per image URL, the sha256 of the
// site's bytes, a file on disk with those bytes, nothing else under the job's folder. The expected
// images are read from the site directly (a plain BFS over its HTML), not from another crawl.
// A job interrupted twice is failed by design (MAX_ATTEMPTS = 2 in src/modules/jobs/jobs.service.ts);
// such a job must hold no rows and no files.
//
// Run: `npm run bench:faults -- kill` or `npx tsx bench/faults/kill-jobs.ts`. Knobs (env):
// FAULTS_TOPOLOGY (distributed,embedded), FAULTS_JOBS (20), FAULTS_KILLS (6), FAULTS_KILL_MIN_MS
// (1500) and FAULTS_KILL_MAX_MS (5000): the random wait before each kill, FAULTS_SEED (random, printed),
// FAULTS_LEASE_MS (3000: JOB_LEASE_MS, so an interrupted job is taken back within seconds; the
// default of 60 s would only make the run longer), FAULTS_WORKER_CONCURRENCY (2),
// FAULTS_HOST_DELAY_MS (10), FAULTS_PG_PORT / FAULTS_REDIS_PORT, BENCH_WRITE=0 (print only).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { childProcesses } from '../../test/helpers/service-process.js';
import { buildService, startPostgres, startRedis, tempDir, cleanUpAll, sleep, type PostgresServer, type RedisServer } from './infra.js';
import {
  alive,
  initialKey,
  intEnv,
  NO_QUOTA,
  ROOT,
  request,
  seededRandom,
  seedFromEnv,
  startCrawlSite,
  startService,
  table,
  type CrawlSite,
  type LogRecord,
  type Started,
} from './common.js';
import { byCount, publishFaultSection, verdict } from './report.js';

const JOBS = intEnv('FAULTS_JOBS', 20);
const KILLS = intEnv('FAULTS_KILLS', 6);
const KILL_MIN_MS = intEnv('FAULTS_KILL_MIN_MS', 1500);
const KILL_MAX_MS = intEnv('FAULTS_KILL_MAX_MS', 5000);
const LEASE_MS = intEnv('FAULTS_LEASE_MS', 3000);
const WORKER_CONCURRENCY = intEnv('FAULTS_WORKER_CONCURRENCY', 2);
const HOST_DELAY_MS = intEnv('FAULTS_HOST_DELAY_MS', 10);
const DEPTH = 1;
const DEADLINE_MS = 5 * 60_000;
const SEED = seedFromEnv();
const TOPOLOGIES = (process.env.FAULTS_TOPOLOGY ?? 'distributed,embedded').split(',').map((t) => t.trim()) as Array<'distributed' | 'embedded'>;

interface Expected {
  /** Image URL → sha256 of the bytes the site serves. */
  images: Map<string, string>;
  pages: number;
}

/** What a crawl of `start` to `depth` should store: every <img src> of every page within depth. */
async function expectedFor(start: string, depth: number): Promise<Expected> {
  const seen = new Set([start]);
  let level = [start];
  const imageUrls = new Set<string>();
  let pages = 0;
  for (let d = 0; d <= depth; d++) {
    const next: string[] = [];
    for (const page of level) {
      const html = await (await fetch(page)).text();
      pages++;
      for (const m of html.matchAll(/<img\s[^>]*?src="([^"]+)"/g)) imageUrls.add(new URL(m[1]!, page).href);
      if (d < depth) {
        for (const m of html.matchAll(/<a\s[^>]*?href="([^"]+)"/g)) {
          const link = new URL(m[1]!, page).href;
          if (new URL(link).host === new URL(start).host && !seen.has(link)) {
            seen.add(link);
            next.push(link);
          }
        }
      }
    }
    level = next;
  }
  const images = new Map<string, string>();
  for (const url of imageUrls) images.set(url, createHash('sha256').update(Buffer.from(await (await fetch(url)).arrayBuffer())).digest('hex'));
  return { images, pages };
}

interface Track {
  id: number;
  url: string;
  status: string;
  /** Kills that found this job in processing (per the last poll before the kill). */
  hitBy: number[];
}

interface Kill {
  n: number;
  atMs: number;
  processing: number[];
  crawlProcesses: number;
  orphansAfter5s: number;
  restartMs: number;
}

interface Row {
  jobId: number;
  url: string;
  sha256: string;
  filename: string;
  storageKey: string;
  size: number;
}

interface JobRow {
  id: number;
  state: string;
  attempts: number;
  error: string | null;
}

interface Verdict {
  job: Track;
  row: JobRow;
  rows: number;
  distinctUrls: number;
  expected: number;
  missing: number;
  unexpected: number;
  shaMismatch: number;
  duplicates: number;
  filesOnDisk: number;
  fileProblems: number;
  strayFiles: number;
  tempFiles: number;
  lonelySidecars: number;
  apiCount: number | null;
}

interface TopologyResult {
  topology: string;
  seconds: number;
  kills: Kill[];
  verdicts: Verdict[];
  problems: Map<string, number>;
  startFailures: string[];
  cleanStop: string;
  notes: string[];
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

async function readRows(topology: string, databaseUrl: string | undefined, dataDir: string): Promise<{ jobs: JobRow[]; assets: Row[] }> {
  const jobsSql = `SELECT id, state::text AS state, attempts, error FROM "Job" ORDER BY id`;
  const assetsSql = `SELECT "jobId", url, sha256, filename, "storageKey", size FROM "Asset" ORDER BY id`;
  if (topology === 'distributed') {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return { jobs: (await client.query<JobRow>(jobsSql)).rows, assets: (await client.query<Row>(assetsSql)).rows };
    } finally {
      await client.end();
    }
  }
  // The embedded database, opened once the service has stopped (PGlite is one process's).
  const db = await PGlite.create(join(dataDir, 'db'));
  try {
    return { jobs: (await db.query<JobRow>(jobsSql)).rows, assets: (await db.query<Row>(assetsSql)).rows };
  } finally {
    await db.close();
  }
}

/** Jobs whose lease is held by the process with this pid (JobRunner.owner is host:pid:random). */
async function leasedBy(databaseUrl: string, pid: number): Promise<number[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: number }>(`SELECT id FROM "Job" WHERE state = 'processing' AND "leaseOwner" LIKE $1 ORDER BY id`, [`%:${pid}:%`]);
    return rows.map((r) => r.id);
  } finally {
    await client.end();
  }
}

async function runTopology(topology: 'distributed' | 'embedded', distDir: string, site: CrawlSite, expected: Map<string, Expected>, infra: { pg?: PostgresServer; redis?: RedisServer }): Promise<TopologyResult> {
  const random = seededRandom(SEED + (topology === 'embedded' ? 1 : 0));
  const dataDir = tempDir(`faults-kill-${topology}-`);
  const databaseUrl = topology === 'distributed' ? await infra.pg!.createDatabase('faults_kill') : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    TIERS: NO_QUOTA,
    FETCH_ALLOW_PRIVATE: '127.0.0.1',
    SCRAPE_HOST_DELAY_MS: String(HOST_DELAY_MS),
    SCRAPE_MAX_PAGES: '2000',
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    JOB_LEASE_MS: String(LEASE_MS),
    JOB_POLL_MS: '500',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REDIS_URL: infra.redis!.url, REDIS_PREFIX: `faults-kill-${process.pid}` } : {}),
  };
  const problems = new Map<string, number>();
  const startFailures: string[] = [];
  const notes: string[] = [];
  const collect = (list: LogRecord[]) => {
    for (const p of list) problems.set(`${p.level >= 50 ? 'error' : 'warn'}: ${p.msg}`, (problems.get(`${p.level >= 50 ? 'error' : 'warn'}: ${p.msg}`) ?? 0) + 1);
  };
  const started = Date.now();
  const t = () => Date.now() - started;

  let api = await startService('main', { ...env, HOST: '127.0.0.1', PORT: '0', RUN_WORKERS: topology === 'distributed' ? 'false' : 'true' }, distDir);
  const base = api.url;
  const port = new URL(base).port;
  let runner: Started = topology === 'distributed' ? await startService('worker', env, distDir) : api;
  const key = initialKey(dataDir);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };

  const jobs: Track[] = [];
  const urls = [...expected.keys()];
  for (let i = 0; i < JOBS; i++) {
    const url = urls[i % urls.length]!;
    const answer = await request(`${base}/api/scrape`, { method: 'POST', headers, body: JSON.stringify({ url, sniper_mode: false, crawl_depth: DEPTH, max_files: 10_000, force: true }) });
    const id = (answer.body as { job_id?: number } | null)?.job_id;
    if (answer.status !== 202 || !id) throw new Error(`POST /api/scrape answered ${answer.status}: ${answer.text}`);
    jobs.push({ id, url, status: 'queued', hitBy: [] });
  }

  // Polls every unfinished job through the API (failing quietly while the API process is down).
  let polling = true;
  const poller = (async () => {
    while (polling) {
      await Promise.all(
        jobs
          .filter((j) => j.status === 'queued' || j.status === 'processing')
          .map(async (job) => {
            const answer = await request(`${base}/api/jobs/${job.id}`, { headers: { 'X-API-Key': key } }, 5000);
            const status = (answer.body as { status?: string } | null)?.status;
            if (answer.status === 200 && status) job.status = status;
          }),
      );
      await sleep(200);
    }
  })();
  const unfinished = () => jobs.filter((j) => j.status === 'queued' || j.status === 'processing');

  const kills: Kill[] = [];
  for (let n = 1; n <= KILLS && unfinished().length > 0; n++) {
    await sleep(KILL_MIN_MS + random() * (KILL_MAX_MS - KILL_MIN_MS));
    if (unfinished().length === 0) break;
    // The jobs the process runs now: exactly, from their leases, on PostgreSQL; on PGlite (one
    // process's database) the API's view, which also lists jobs still waiting to be taken back.
    const processing = databaseUrl ? await leasedBy(databaseUrl, runner.pid) : jobs.filter((j) => j.status === 'processing').map((j) => j.id);
    for (const id of processing) jobs.find((j) => j.id === id)!.hitBy.push(n);
    const crawlKids = childProcesses(runner.pid).filter((c) => c.args.some((a) => a.endsWith('crawl-process.js')));
    const atMs = t();
    process.kill(runner.pid, 'SIGKILL');
    await runner.exited;
    collect(runner.problems);
    const restartedAt = Date.now();
    try {
      runner = topology === 'distributed' ? await startService('worker', env, distDir) : await startService('main', { ...env, HOST: '127.0.0.1', PORT: port }, distDir);
    } catch (error) {
      startFailures.push(`after kill ${n}: ${(error as Error).message.slice(0, 2000)}`);
      break;
    }
    if (topology === 'embedded') api = runner;
    const restartMs = Date.now() - restartedAt;
    // The crawl processes of the killed process notice the lost IPC channel and exit.
    const deadline = Date.now() + 5000;
    while (crawlKids.some((c) => alive(c.pid)) && Date.now() < deadline) await sleep(100);
    kills.push({ n, atMs, processing, crawlProcesses: crawlKids.length, orphansAfter5s: crawlKids.filter((c) => alive(c.pid)).length, restartMs });
    console.log(`[${topology}] kill ${n} at ${(atMs / 1000).toFixed(1)} s: jobs in processing ${processing.join(', ') || 'none'}, ${crawlKids.length} crawl process(es); back in ${restartMs} ms`);
  }

  const lastKillAt = t();
  if (startFailures.length === 0) {
    while (unfinished().length > 0 && t() < DEADLINE_MS) await sleep(250);
  }
  polling = false;
  await poller;
  const settledMs = t();
  notes.push(`all jobs finished ${((settledMs - lastKillAt) / 1000).toFixed(1)} s after the last kill; whole run ${(settledMs / 1000).toFixed(1)} s`);
  if (unfinished().length > 0) notes.push(`**${unfinished().length} job(s) never finished** within ${DEADLINE_MS / 1000} s: ${unfinished().map((j) => `${j.id} (${j.status})`).join(', ')}`);

  // The completed answers as a client sees them.
  const apiCounts = new Map<number, number>();
  if (startFailures.length === 0) {
    for (const job of jobs) {
      const answer = await request(`${base}/api/jobs/${job.id}`, { headers: { 'X-API-Key': key } });
      const body = answer.body as { status?: string; assets?: { count: number } } | null;
      if (body?.status) job.status = body.status;
      if (body?.assets) apiCounts.set(job.id, body.assets.count);
    }
  }

  // Stop the processes (SIGTERM): they must stop cleanly after all that.
  const codes: string[] = [];
  for (const proc of topology === 'distributed' ? [runner, api] : [api]) {
    if (proc.process.child.exitCode !== null || proc.process.child.signalCode !== null) continue;
    const code = await proc.process.stop();
    codes.push(String(code));
    collect(proc.problems);
  }
  const cleanStop = codes.every((c) => c === '0') ? 'yes (exit code 0)' : `exit codes ${codes.join(', ')}`;

  const { jobs: jobRows, assets } = await readRows(topology, databaseUrl, dataDir);
  const filesRoot = join(dataDir, 'files');
  const verdicts: Verdict[] = jobs.map((job) => {
    const row = jobRows.find((r) => r.id === job.id)!;
    const rows = assets.filter((a) => a.jobId === job.id);
    const exp = row.state === 'completed' ? expected.get(job.url)!.images : new Map<string, string>();
    const urlsStored = new Set(rows.map((r) => r.url));
    const onDisk = filesUnder(join(filesRoot, 'jobs', String(job.id)));
    const blobs = onDisk.filter((f) => !f.includes('~'));
    const temps = onDisk.filter((f) => f.endsWith('.tmp'));
    const lonelySidecars = onDisk.filter((f) => f.endsWith('~meta.json') && !existsSync(f.slice(0, -'~meta.json'.length)));
    const referenced = new Set(rows.map((r) => join(filesRoot, r.storageKey)));
    let fileProblems = 0;
    for (const r of rows) {
      const path = join(filesRoot, r.storageKey);
      if (!existsSync(path) || createHash('sha256').update(readFileSync(path)).digest('hex') !== r.sha256) fileProblems++;
    }
    return {
      job,
      row,
      rows: rows.length,
      distinctUrls: urlsStored.size,
      expected: exp.size,
      missing: [...exp.keys()].filter((u) => !urlsStored.has(u)).length,
      unexpected: rows.filter((r) => !exp.has(r.url)).length,
      shaMismatch: rows.filter((r) => exp.has(r.url) && exp.get(r.url) !== r.sha256).length,
      duplicates: rows.length - urlsStored.size,
      filesOnDisk: blobs.length,
      fileProblems,
      strayFiles: blobs.filter((f) => !referenced.has(f)).length,
      tempFiles: temps.length,
      lonelySidecars: lonelySidecars.length,
      apiCount: apiCounts.get(job.id) ?? null,
    };
  });
  // Files under jobs/ of no job at all.
  const knownDirs = new Set(jobs.map((j) => String(j.id)));
  const strangers = filesUnder(join(filesRoot, 'jobs')).filter((f) => !knownDirs.has(relative(join(filesRoot, 'jobs'), f).split('/')[0]!));
  if (strangers.length > 0) notes.push(`**${strangers.length} file(s) under jobs/ belong to no job of the run**`);

  return { topology, seconds: settledMs / 1000, kills, verdicts, problems, startFailures, cleanStop, notes };
}

function report(results: TopologyResult[], expected: Map<string, Expected>, site: string): { markdown: string; defects: string[] } {
  const defects: string[] = [];
  const lines: string[] = [];
  const exp = [...expected.values()];
  lines.push(`### kill -9 of the job process during 20 scrape jobs`);
  lines.push('');
  lines.push(`- Jobs: ${JOBS} scrape jobs posted at once, job i at hub /section/i/ of the generated crawl site (bench/crawl/site.ts) with crawl_depth ${DEPTH}, force true: ${Math.min(...exp.map((e) => e.pages))}–${Math.max(...exp.map((e) => e.pages))} pages and ${Math.min(...exp.map((e) => e.images.size))}–${Math.max(...exp.map((e) => e.images.size))} distinct images (5–60 KB) per job; SCRAPE_HOST_DELAY_MS ${HOST_DELAY_MS}, WORKER_CONCURRENCY ${WORKER_CONCURRENCY}, JOB_LEASE_MS ${LEASE_MS} (recovery checks every ${Math.max(1000, LEASE_MS / 2)} ms)`);
  lines.push(`- Kills: up to ${KILLS} SIGKILLs of the job process, each after a random ${KILL_MIN_MS}–${KILL_MAX_MS} ms (from the previous restart), the process started again at once; seed ${SEED} (FAULTS_SEED replays the waits)`);
  lines.push(`- Expected files: read from the site itself (a BFS over its HTML to the same depth, the sha256 of every image it serves), not from another crawl`);
  lines.push('');
  lines.push(
    table(
      ['set-up', 'kills', 'jobs interrupted (Job.attempts 2)', 'completed', 'failed', 'asset rows / expected', 'missing', 'unexpected', 'duplicate rows', 'sha256 ≠ site', 'files bad or missing', 'stray files', 'temp files left', 'sidecars without file', 'orphan crawl processes', 'restart to ready (max)', 'SIGTERM stop at the end'],
      results.map((r) => {
        const sum = (f: (v: Verdict) => number) => r.verdicts.reduce((s, v) => s + f(v), 0);
        const completed = r.verdicts.filter((v) => v.row.state === 'completed');
        return [
          r.topology,
          r.kills.length,
          r.verdicts.filter((v) => v.row.attempts > 1).length,
          `${completed.length} / ${r.verdicts.length}`,
          r.verdicts.filter((v) => v.row.state === 'failed').length,
          `${sum((v) => v.rows)} / ${completed.reduce((s, v) => s + v.expected, 0)}`,
          sum((v) => v.missing),
          sum((v) => v.unexpected),
          sum((v) => v.duplicates),
          sum((v) => v.shaMismatch),
          sum((v) => v.fileProblems),
          sum((v) => v.strayFiles),
          sum((v) => v.tempFiles),
          sum((v) => v.lonelySidecars),
          r.kills.reduce((s, k) => s + k.orphansAfter5s, 0),
          r.kills.length ? `${Math.max(...r.kills.map((k) => k.restartMs))} ms` : '-',
          r.cleanStop,
        ];
      }),
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
  );
  lines.push('');
  for (const r of results) {
    lines.push(`**${r.topology}**: ${r.notes.join('; ')}.`);
    lines.push('');
    lines.push(
      table(
        ['kill', 'at', r.topology === 'distributed' ? 'jobs it ran (their leases)' : 'jobs in processing (API view: includes jobs awaiting recovery)', 'its crawl processes', 'restart to ready'],
        r.kills.map((k) => [k.n, `${(k.atMs / 1000).toFixed(1)} s`, k.processing.join(', ') || 'none', k.crawlProcesses, `${k.restartMs} ms`]),
        ['r', 'r', 'l', 'r', 'r'],
      ),
    );
    lines.push('');
    const failed = r.verdicts.filter((v) => v.row.state !== 'completed');
    if (failed.length > 0) {
      lines.push(`Jobs not completed: ${failed.map((v) => `${v.job.id} (${v.row.state}, ${v.row.attempts} attempts, listed at kill ${v.job.hitBy.join(' and ') || 'none'}: "${v.row.error}"; ${v.rows} rows, ${v.filesOnDisk} files and ${v.tempFiles} temp files left)`).join('; ')}.`);
      lines.push('');
    }
    const attempts = new Map<number, number>();
    for (const v of r.verdicts) attempts.set(v.row.attempts, (attempts.get(v.row.attempts) ?? 0) + 1);
    lines.push(`Attempts per job (Job.attempts): ${[...attempts].sort((a, b) => a[0] - b[0]).map(([a, c]) => `${c} job(s) ${a}`).join(', ')}. Completed answers list as many assets as the rows: ${r.verdicts.every((v) => v.row.state !== 'completed' || v.apiCount === v.rows) ? 'yes' : 'no'}.`);
    lines.push('');
    if (r.problems.size > 0) {
      lines.push(`Warnings and errors the service logged: ${byCount(r.problems)}.`);
      lines.push('');
    }
    for (const failure of r.startFailures) lines.push(`**Did not start again** ${failure.split('\n').slice(0, 6).join(' / ')}`);

    // Defects: anything but "completed with exactly the site's files", except a job failed by design after two interruptions with nothing left.
    for (const v of r.verdicts) {
      const bad = v.missing + v.unexpected + v.shaMismatch + v.duplicates + v.fileProblems + v.strayFiles;
      if (v.row.state === 'completed' && v.apiCount !== v.rows) defects.push(`${r.topology}: job ${v.job.id}'s completed answer lists ${v.apiCount} assets for ${v.rows} rows`);
      if (v.row.state === 'completed' && bad > 0) defects.push(`${r.topology}: job ${v.job.id} completed with ${v.missing} missing, ${v.unexpected} unexpected, ${v.duplicates} duplicate rows, ${v.shaMismatch} sha mismatches, ${v.fileProblems} bad files, ${v.strayFiles} stray files`);
      if (v.row.state === 'failed' && (v.rows > 0 || v.filesOnDisk > 0)) defects.push(`${r.topology}: failed job ${v.job.id} kept ${v.rows} rows and ${v.filesOnDisk} files`);
      // Failed by design: interrupted MAX_ATTEMPTS (2) times; anything else failing is a defect.
      if (v.row.state === 'failed' && !(v.row.attempts >= 2 && /interrupted/.test(v.row.error ?? ''))) defects.push(`${r.topology}: job ${v.job.id} failed (${v.row.attempts} attempts): "${v.row.error}"`);
      if (v.row.state !== 'completed' && v.row.state !== 'failed') defects.push(`${r.topology}: job ${v.job.id} never finished (${v.row.state})`);
    }
    const temps = r.verdicts.reduce((s, v) => s + v.tempFiles, 0);
    const sidecars = r.verdicts.reduce((s, v) => s + v.lonelySidecars, 0);
    // A rerun starts from an empty prefix and a failed job's deletePrefix takes leftovers too: none may stay.
    if (sidecars > 0) defects.push(`${r.topology}: ${sidecars} sidecar(s) (\`<name>~meta.json\`) without their file (a kill between the two renames of a put) stay behind, in job(s) ${r.verdicts.filter((v) => v.lonelySidecars > 0).map((v) => `${v.job.id} (${v.row.state})`).join(', ')}`);
    if (temps > 0) defects.push(`${r.topology}: ${temps} temp file(s) (\`<name>~<random>.tmp\`, writes the kill cut short) stay in ${r.verdicts.filter((v) => v.tempFiles > 0).length} job folder(s)`);
    if (r.startFailures.length > 0) defects.push(`${r.topology}: the process did not start again after a kill`);
    if (r.kills.some((k) => k.orphansAfter5s > 0)) defects.push(`${r.topology}: crawl processes outlived their killed parent by 5 s`);
    if (!r.cleanStop.startsWith('yes')) defects.push(`${r.topology}: SIGTERM stop at the end gave ${r.cleanStop}`);
  }
  const byDesign = results.map((r) => `${r.topology} ${r.verdicts.filter((v) => v.row.state === 'completed').length} completed, ${r.verdicts.filter((v) => v.row.state === 'failed').length} failed after two interruptions`).join('; ');
  lines.push(`Site: ${site.replace(/:\d+$/, ':<port>')} (process of its own). ${verdict(defects, 'no lost, duplicated or stray asset; every job finished', ` (${byDesign}, as MAX_ATTEMPTS = 2 intends, with nothing of theirs left)`)}`);
  return { markdown: lines.join('\n'), defects };
}

async function main(): Promise<void> {
  console.log(`kill -9 fault run, seed ${SEED}; set-ups: ${TOPOLOGIES.join(', ')}`);
  const distDir = buildService(ROOT);
  const site = await startCrawlSite();
  try {
    const expected = new Map<string, Expected>();
    for (let i = 1; i <= Math.min(JOBS, 32); i++) {
      const url = `${site.url}/section/${i}/`;
      expected.set(url, await expectedFor(url, DEPTH));
    }
    const results: TopologyResult[] = [];
    for (const topology of TOPOLOGIES) {
      const infra: { pg?: PostgresServer; redis?: RedisServer } = {};
      if (topology === 'distributed') {
        infra.pg = await startPostgres();
        infra.redis = await startRedis();
      }
      try {
        results.push(await runTopology(topology, distDir, site, expected, infra));
      } finally {
        infra.redis?.destroy();
        infra.pg?.destroy();
      }
    }
    const { markdown, defects } = report(results, expected, site.url);
    publishFaultSection('kill', markdown, `FAULTS_SEED=${SEED} npx tsx bench/faults/kill-jobs.ts`, defects);
  } finally {
    await site.close();
    cleanUpAll();
  }
}

await main();
