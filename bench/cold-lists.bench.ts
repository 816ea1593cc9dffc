// Lists read with nothing kept (ANSWER_CACHE_MB=0: every request is answered as the first one after a
// change is), builds side by side: each build's service runs on a scratch database of one PostgreSQL
// server, seeded the same way, and autocannon loads four list routes, each right after /healthz (the
// anchor) on the same service, the builds taking turns list by list, round after round, so the builds
// share the machine's noise. Besides req/s it reports the service process's CPU time per request,
// which other work on a shared machine moves less than throughput.
//
// Run: `BENCH_BUILDS=before:dist-before,after:dist-after npx tsx bench/cold-lists.bench.ts`
// (each dist folder made by `node scripts/build.mjs <folder>` from the build to compare; default: the
// working tree, built now). BENCH_PG_SERVER (default postgresql://postgres@127.0.0.1:5432/postgres),
// BENCH_ROUNDS (3), BENCH_SECONDS (3), BENCH_WARMUP_SECONDS (1), BENCH_CONNECTIONS (20), BENCH_PATHS (path prefixes); BENCH_CPU_PROF=<folder> starts the
// services with --cpu-prof there (profiles are written when they stop).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import sharp from 'sharp';
import { autocannon, type LoadResult } from './autocannon.js';
import { api } from './service-api.js';
import { withMarker } from './image-markers.js';
import { NO_QUOTA, ROOT, gitState, initialKey, machine, table } from './faults/common.js';
import { buildService, cleanUpAll, tempDir } from './faults/infra.js';
import { nodeFlags, procCpuSeconds, startServiceProcess, type ServiceProcess } from '../test/helpers/service-process.js';

const SERVER = process.env.BENCH_PG_SERVER ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const CPU_PROF = process.env.BENCH_CPU_PROF;
const ADMIN_TOKEN = randomBytes(16).toString('hex');
const ONLY = process.env.BENCH_PATHS?.split(',');

const HEALTHZ = { name: 'GET /healthz', path: '/healthz', key: false };
const LIST_PATHS: Array<{ name: string; path: string; key: boolean }> = [
  { name: 'GET /api/platform/sub-keys', path: '/api/platform/sub-keys', key: true },
  { name: 'GET /api/media/list?limit=50', path: '/api/media/list?limit=50', key: true },
  { name: 'GET /api/community/search', path: '/api/community/search', key: false },
  { name: 'GET /api/economy/bounties', path: '/api/economy/bounties', key: true },
].filter((p) => !ONLY || ONLY.some((o) => p.path.startsWith(o)));

interface Build {
  name: string;
  service: ServiceProcess;
  base: string;
  key: string;
  database: string;
}

async function upload(base: string, key: string, path: string, picture: Buffer, marker: string, fields: Record<string, string>): Promise<void> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(withMarker('jpeg', picture, marker))], { type: 'image/jpeg' }), `${marker}.jpg`);
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const response = await fetch(`${base}${path}`, { method: 'POST', headers: { 'X-API-Key': key }, body: form });
  if (response.status !== 201 && response.status !== 200) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

/** Five sub-keys with usage, fifty library images, twenty community items and twenty bounties paid by them. */
async function seed(base: string, key: string, handle: string): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const created = (await api(base, key, 'POST', '/api/platform/sub-keys', { label: `bench ${i}`, scopes: 'media', credit_limit: 1_000_000 })) as { sub_key: string };
    await api(base, created.sub_key, 'GET', '/api/media/list?limit=1');
  }
  for (let i = 0; i < 50; i++) {
    const picture = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 40, g: 90, b: (i * 5) % 255 } } }).jpeg().toBuffer();
    await upload(base, key, '/api/media/upload', picture, `cold ${i}`, { tags: JSON.stringify(['bench', `n${i % 5}`]) });
  }
  for (let i = 0; i < 20; i++) {
    const picture = await sharp({ create: { width: 80, height: 60, channels: 3, background: { r: (i * 12) % 255, g: 30, b: 200 } } }).jpeg().toBuffer();
    await upload(base, key, '/api/community/contribute', picture, `community ${i}`, { name: `item ${i}`, tags: JSON.stringify(['harbour', `t${i % 4}`]) });
  }
  const granted = await fetch(`${base}/api/admin/accounts/${handle}/coins`, { method: 'POST', headers: { 'X-Admin-Token': ADMIN_TOKEN, 'Content-Type': 'application/json' }, body: JSON.stringify({ amount: 100 }) });
  if (!granted.ok) throw new Error(`coin grant: ${granted.status} ${await granted.text()}`);
  for (let i = 0; i < 20; i++) {
    await api(base, key, 'POST', '/api/economy/bounties', { subject_name: `subject ${i}`, reward_per_photo: 1, photos_needed: 1, description: `bounty ${i}` });
  }
}

async function start(name: string, distDir: string, admin: pg.Client): Promise<Build> {
  const database = `cold_${name.replace(/\W/g, '_')}_${randomBytes(3).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(SERVER);
  url.pathname = `/${database}`;
  const dataDir = tempDir(`cold-${name}-`);
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    TIERS: NO_QUOTA,
    HOST: '127.0.0.1',
    PORT: '0',
    ANSWER_CACHE_MB: '0',
    DATABASE_URL: url.toString(),
    ADMIN_TOKEN,
  };
  if (CPU_PROF) process.env.BENCH_NODE_ARGS = [...nodeFlags('start'), '--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, name.replace(/\W+/g, '-'))}`].join(' ');
  const { process: service, ready } = await startServiceProcess('main', env, 'service started', distDir);
  delete process.env.BENCH_NODE_ARGS;
  const base = String(ready.url);
  const key = initialKey(dataDir);
  const { handle } = JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')) as { handle: string };
  await seed(base, key, handle);
  return { name, service, base, key, database };
}

/** The load's result, and the service process's own CPU time per request (user + system, ms): what other work on the machine moves least. */
async function load(build: Build, path: typeof HEALTHZ): Promise<LoadResult & { cpuMs: number }> {
  const request = { url: `${build.base}${path.path}`, connections: CONNECTIONS, headers: path.key ? { 'X-API-Key': build.key } : undefined };
  await autocannon({ ...request, seconds: WARMUP_SECONDS });
  const cpuBefore = procCpuSeconds(build.service.child.pid!);
  const result = await autocannon({ ...request, seconds: SECONDS });
  const cpuMs = ((procCpuSeconds(build.service.child.pid!) - cpuBefore) * 1000) / result.requests;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) throw new Error(`${build.name} ${path.path}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return { ...result, cpuMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const spread = (values: number[], format: (n: number) => string) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `${format(sorted[0]!)} / ${format(median(sorted))} / ${format(sorted.at(-1)!)}`;
};

async function main(): Promise<void> {
  const builds = (process.env.BENCH_BUILDS ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => {
      const [name, dir] = entry.split(':') as [string, string];
      return { name, dir: join(ROOT, dir) };
    });
  if (builds.length === 0) builds.push({ name: 'working tree', dir: buildService(ROOT) });
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  const started: Build[] = [];
  const loadAtStart = (await import('node:os')).loadavg();
  // Per build and list: each round's result, and /healthz's measured just before it on the same
  // service (the anchor), builds taking turns list by list, so a pair shares the machine's moment.
  const runs = new Map<string, Array<{ anchor: LoadResult & { cpuMs: number }; list: LoadResult & { cpuMs: number } }>>();
  try {
    for (const build of builds) started.push(await start(build.name, build.dir, admin));
    for (let round = 0; round < ROUNDS; round++) {
      for (const path of LIST_PATHS) {
        for (const build of round % 2 === 0 ? started : [...started].reverse()) {
          const anchor = await load(build, HEALTHZ);
          const list = await load(build, path);
          const key = `${build.name}\n${path.name}`;
          runs.set(key, [...(runs.get(key) ?? []), { anchor, list }]);
          const line = (r: LoadResult & { cpuMs: number }) => `${Math.round(r.rps)}/s, ${r.cpuMs.toFixed(3)} CPU ms per request`;
          console.log(`round ${round + 1} ${build.name} ${path.name}: ${line(list)}; /healthz ${line(anchor)}`);
        }
      }
    }
  } finally {
    for (const build of started) await build.service.stop();
    for (const build of started) await admin.query(`DROP DATABASE IF EXISTS ${build.database} WITH (FORCE)`);
    await admin.end();
  }
  const rows: Array<Array<string>> = [];
  for (const build of builds) {
    for (const path of LIST_PATHS) {
      const pairs = runs.get(`${build.name}\n${path.name}`)!;
      rows.push([
        build.name,
        `\`${path.name}\``,
        spread(pairs.map((p) => p.list.rps), (n) => Math.round(n).toLocaleString('en-US')),
        spread(pairs.map((p) => p.list.rps / p.anchor.rps), (n) => `${(n * 100).toFixed(1)}%`),
        spread(pairs.map((p) => p.list.cpuMs), (n) => n.toFixed(2)),
        spread(pairs.map((p) => p.anchor.cpuMs / p.list.cpuMs), (n) => `${(n * 100).toFixed(1)}%`),
      ]);
    }
  }
  const os = await import('node:os');
  console.log(
    [
      `- Date: ${new Date().toISOString()}`,
      `- Machine: ${machine()}`,
      `- Code: ${gitState()}; builds ${builds.map((b) => `${b.name} (${b.dir.replace(ROOT, '')})`).join(', ')}`,
      `- Command: \`BENCH_BUILDS=${process.env.BENCH_BUILDS ?? ''} npx tsx bench/cold-lists.bench.ts\``,
      `- Load: autocannon, ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${SECONDS} s per path, ${ROUNDS} rounds interleaved; load average ${loadAtStart.map((n) => n.toFixed(2)).join(' ')} at the start, ${os.loadavg().map((n) => n.toFixed(2)).join(' ')} at the end`,
      '',
      table(
        ['build', 'path (ANSWER_CACHE_MB=0)', 'req/s min / median / max', 'of /healthz req/s just before', 'service CPU ms per request', "/healthz's CPU per request over this one's"],
        rows,
        ['l', 'l', 'r', 'r', 'r', 'r'],
      ),
    ].join('\n'),
  );
}

try {
  await main();
} finally {
  cleanUpAll();
}
