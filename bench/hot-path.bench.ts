// The hot path: what an authenticated request costs next to the bare server, on both databases.
//
// The built service runs as `npm start` runs it, in a process of its own (LOG_LEVEL info, one log
// line per request), once on PGlite (the default) and once on a PostgreSQL cluster the script starts
// and removes (port 5544, never the shared one). Against each, autocannon (a child process of its
// own) loads, one after the other in the same run:
//   - GET /healthz: no key, no database (the bare server);
//   - GET /api/live-editor/status: key, quota and a constant answer;
//   - GET /api/platform/sub-keys: key, quota and a page of 5 sub-keys with usage;
//   - GET /api/media/list?limit=50: key, quota and a page of 50 media items.
// The two lists are answered from the shim's kept answers (rest-shim/answer-cache.ts) after the first
// request, since nothing changes under them: a second service with ANSWER_CACHE_MB=0 measures them
// again as every request that finds nothing kept (the first after a change) is answered.
// The report gives req/s, p50 and p99 of each, and each route's throughput as a share of /healthz's
// in that run (the figure the targets are set in: machines here are shared, ratios travel better).
// It also records the RSS of each idle service, 30 s after start-up and again 30 s after the load.
//
// Run: `npx tsx bench/hot-path.bench.ts` (BENCH_SECONDS per path, default 6; BENCH_CONNECTIONS,
// default 20; BENCH_DATABASES=pglite,postgres). Writes its section of bench/RESULTS.md.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import sharp from 'sharp';
import { autocannon, type LoadResult } from './autocannon.js';
import { api } from './service-api.js';
import { writeResultsSection } from './results.js';
import { withMarker } from './image-markers.js';
import { NO_QUOTA, ROOT, gitState, initialKey, machine, table } from './faults/common.js';
import { buildService, cleanUpAll, sleep, startPostgres, tempDir, type PostgresServer } from './faults/infra.js';
import { startServiceProcess, type ServiceProcess } from '../test/helpers/service-process.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const DATABASES = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',') as Array<'pglite' | 'postgres'>;
const WARMUP_SECONDS = 2;
const SUB_KEYS = 5;
const MEDIA_ITEMS = 50;
// V8's memory reducer shrinks the heap some seconds after the last activity: idle is measured after it.
const IDLE_SETTLE_MS = 30_000;

/** Targets of issue 10, as shares of /healthz's throughput on PostgreSQL. */
const TARGETS: Record<string, number> = {
  'GET /api/live-editor/status': 0.7,
  'GET /api/platform/sub-keys': 0.4,
  'GET /api/media/list?limit=50': 0.3,
};

interface PathResult {
  name: string;
  result: LoadResult;
}

interface DatabaseRun {
  database: 'pglite' | 'postgres';
  /** False for the service with ANSWER_CACHE_MB=0. */
  answersKept: boolean;
  paths: PathResult[];
  idleRssMb?: number;
  afterLoadRssMb?: number;
}

const LISTS = ['GET /api/platform/sub-keys', 'GET /api/media/list?limit=50'];

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Five sub-keys with some usage each, and fifty uploaded images. */
async function seed(base: string, key: string): Promise<void> {
  for (let i = 0; i < SUB_KEYS; i++) {
    const created = (await api(base, key, 'POST', '/api/platform/sub-keys', { label: `bench ${i}`, scopes: 'media', credit_limit: 1_000_000 })) as { sub_key: string };
    await api(base, created.sub_key, 'GET', '/api/media/list?limit=1');
  }
  const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40, g: 90, b: 160 } } }).jpeg().toBuffer();
  for (let i = 0; i < MEDIA_ITEMS; i++) {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(withMarker('jpeg', picture, `hot path ${i}`))], { type: 'image/jpeg' }), `photo-${i}.jpg`);
    form.set('tags', JSON.stringify(['bench', `n${i % 5}`]));
    const response = await fetch(`${base}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
    if (response.status !== 201) throw new Error(`upload ${i}: ${response.status} ${await response.text()}`);
  }
}

async function load(base: string, path: string, key?: string): Promise<LoadResult> {
  const headers = key ? { 'X-API-Key': key } : undefined;
  await autocannon({ url: `${base}${path}`, seconds: WARMUP_SECONDS, connections: CONNECTIONS, headers });
  const result = await autocannon({ url: `${base}${path}`, seconds: SECONDS, connections: CONNECTIONS, headers });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result;
}

async function runOn(database: 'pglite' | 'postgres', distDir: string, pg: PostgresServer | undefined, answersKept: boolean): Promise<DatabaseRun> {
  const dataDir = tempDir(`hot-path-${database}-`);
  const env: Record<string, string> = { NODE_ENV: 'production', LOG_LEVEL: 'info', DATA_DIR: dataDir, TIERS: NO_QUOTA, HOST: '127.0.0.1', PORT: '0' };
  if (!answersKept) env.ANSWER_CACHE_MB = '0';
  if (pg) env.DATABASE_URL = await pg.createDatabase(answersKept ? 'hot_path' : 'hot_path_unkept');
  const { process: service, ready } = await startServiceProcess('main', env, 'service started', distDir);
  try {
    const base = String(ready.url);
    const pid = service.child.pid!;
    if (answersKept) await sleep(IDLE_SETTLE_MS);
    const idleRssMb = answersKept ? rssMb(pid) : undefined;
    const key = initialKey(dataDir);
    await seed(base, key);
    const paths: PathResult[] = [];
    paths.push({ name: 'GET /healthz', result: await load(base, '/healthz') });
    if (answersKept) paths.push({ name: 'GET /api/live-editor/status', result: await load(base, '/api/live-editor/status', key) });
    paths.push({ name: LISTS[0]!, result: await load(base, '/api/platform/sub-keys', key) });
    paths.push({ name: LISTS[1]!, result: await load(base, `/api/media/list?limit=${MEDIA_ITEMS}`, key) });
    if (!answersKept) return { database, answersKept, paths };
    await sleep(IDLE_SETTLE_MS);
    return { database, answersKept, paths, idleRssMb, afterLoadRssMb: rssMb(pid) };
  } finally {
    await stopQuietly(service);
  }
}

async function stopQuietly(service: ServiceProcess): Promise<void> {
  const code = await service.stop();
  if (code !== 0) console.warn(`the service stopped with exit code ${code}; its last lines:\n${service.log.slice(-20).join('\n')}`);
}

function report(runs: DatabaseRun[]): string {
  const lines: string[] = [];
  lines.push(`- Load: autocannon, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s per path, one path after the other; load average at the end ${loadavg().map((n) => n.toFixed(2)).join(' ')}`);
  lines.push(`- Data: ${SUB_KEYS} sub-keys with usage, ${MEDIA_ITEMS} uploaded images; quotas out of reach (TIERS), so every request takes its units and none is refused`);
  lines.push('');
  const rows: Array<Array<string | number>> = [];
  for (const run of runs) {
    const bare = run.paths[0]!.result.rps;
    for (const { name, result } of run.paths) {
      const share = result.rps / bare;
      const target = run.database === 'postgres' && run.answersKept ? TARGETS[name] : undefined;
      const how = LISTS.includes(name) ? (run.answersKept ? ' (answer kept)' : ' (nothing kept: ANSWER_CACHE_MB=0)') : '';
      rows.push([
        run.database,
        `\`${name}\`${how}`,
        Math.round(result.rps).toLocaleString('en-US'),
        result.p50.toFixed(0),
        result.p99.toFixed(0),
        name === 'GET /healthz' ? '100%' : `${(share * 100).toFixed(0)}%`,
        target === undefined ? '' : `≥ ${target * 100}%: ${share >= target ? 'met' : '**not met**'}`,
      ]);
    }
  }
  lines.push(table(['database', 'path', 'req/s', 'p50 ms', 'p99 ms', 'of /healthz', 'target (PostgreSQL)'], rows, ['l', 'l', 'r', 'r', 'r', 'r', 'l']));
  lines.push('');
  lines.push(
    `Idle RSS of the service (${IDLE_SETTLE_MS / 1000} s after start-up, and ${IDLE_SETTLE_MS / 1000} s after the load): ${runs
      .filter((r) => r.answersKept)
      .map((r) => `${r.database} ${r.idleRssMb!.toFixed(0)} MB, then ${r.afterLoadRssMb!.toFixed(0)} MB`)
      .join('; ')}. Target: under 250 MB on PGlite.`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const distDir = buildService(ROOT);
  const runs: DatabaseRun[] = [];
  let pg: PostgresServer | undefined;
  try {
    for (const database of DATABASES) {
      if (database === 'postgres') pg ??= await startPostgres();
      runs.push(await runOn(database, distDir, database === 'postgres' ? pg : undefined, true));
      runs.push(await runOn(database, distDir, database === 'postgres' ? pg : undefined, false));
    }
  } finally {
    pg?.destroy();
  }
  const header = [
    '## Hot path: authenticated requests next to /healthz',
    '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machine()}`,
    `- Service: the built service from ${gitState()}, started as \`npm start\` starts it; PostgreSQL: a cluster of the script's own on port 5544`,
    '- Command: `npx tsx bench/hot-path.bench.ts`',
  ].join('\n');
  const markdown = `${header}\n${report(runs)}`;
  console.log(`\n${markdown}\n`);
  writeResultsSection('hot-path', markdown);
}

try {
  await main();
} finally {
  cleanUpAll();
}
