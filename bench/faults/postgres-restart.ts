// Fault: PostgreSQL restarted while a steady REST load runs against one API process.
//
// The built service (`npm start`, a build of its own) on a PostgreSQL cluster of this script's own
// (bench/faults/infra.ts, port 5544; never the shared 5432), no Redis (in-process job workers, so
// the process's background loops meet the outage too). Six clients loop over list, search, upload,
// a job poll and /healthz with an API key, each request with a 15 s client timeout. Two outages:
//   A. `pg_ctl stop -m fast` (an administrator's restart: clients disconnected), down 8 s, start;
//   B. `pg_ctl stop -m immediate` (a crash: no shutdown, WAL recovery at start), down 3 s, start;
//   C. every process of the cluster SIGSTOPped for 20 s, then SIGCONT: the port still accepts
//      connections but nothing answers, as in a network partition (FAULTS_PG_FREEZE_MS=0 skips it).
// Expected: during an outage every request ends within the timeout with a JSON error envelope
// (5xx, a clear message, no stack or driver text); the process never exits; once PostgreSQL is back
// the same process answers normally again without a restart. Reported: statuses and messages
// during each outage, hangs, the slowest answer, and the time from PostgreSQL ready to the first
// success and to the last failure.
//
// Run: `npm run bench:faults -- postgres` or `npx tsx bench/faults/postgres-restart.ts`. Knobs:
// FAULTS_PG_DOWN_MS (8000), FAULTS_PG_FREEZE_MS (20000), FAULTS_CLIENTS (6), FAULTS_PG_PORT,
// BENCH_WRITE=0 (print only).
import { buildService, cleanUpAll, sleep, startPostgres, tempDir } from './infra.js';
import { alive, initialKey, intEnv, NO_QUOTA, percentile, request, ROOT, startService, table, type LogRecord } from './common.js';
import { describeAnswer, leaksInternals, restOps, startLoad, type Sample } from './load.js';
import { byCount, publishFaultSection, verdict } from './report.js';

const DOWN_MS = intEnv('FAULTS_PG_DOWN_MS', 8000);
const CLIENTS = intEnv('FAULTS_CLIENTS', 6);
const TIMEOUT_MS = 15_000;
const CALM_MS = 12_000;
/** Longer than this from PostgreSQL ready to the first success counts as a slow recovery. */
const RECOVERY_LIMIT_MS = 5000;
const FREEZE_MS = intEnv('FAULTS_PG_FREEZE_MS', 20_000);

interface Outage {
  name: string;
  how: string;
  stopAt: number;
  stoppedAt: number;
  startAt: number;
  readyAt: number;
}

interface OutageFigures {
  outage: Outage;
  during: Sample[];
  failures: Sample[];
  hangs: number;
  leaks: number;
  statuses: Map<string, number>;
  messages: Map<string, number>;
  maxMs: number;
  firstOkAfterMs: number | null;
  lastFailureAfterMs: number | null;
  failuresAfterReady: number;
}

function analyse(outage: Outage, until: number, samples: Sample[], okOf: Map<string, number>): OutageFigures {
  // Requests in flight at any moment from the stop until PostgreSQL was ready again.
  const during = samples.filter((s) => s.endAt >= outage.stopAt && s.sentAt <= outage.readyAt);
  // Until the next outage begins (answers ending after that belong to it).
  const after = samples.filter((s) => s.sentAt > outage.readyAt && s.endAt < until);
  const failed = (s: Sample) => s.status !== okOf.get(s.op);
  const statuses = new Map<string, number>();
  const messages = new Map<string, number>();
  for (const s of during) {
    const label = s.status === 0 ? `no answer (${s.error})` : String(s.status);
    statuses.set(label, (statuses.get(label) ?? 0) + 1);
    if (failed(s)) {
      const message = `${s.status || '-'} ${s.op} → ${describeAnswer(s)}`;
      messages.set(message, (messages.get(message) ?? 0) + 1);
    }
  }
  const firstOk = after.filter((s) => !failed(s)).sort((a, b) => a.endAt - b.endAt)[0];
  const afterFailures = after.filter(failed);
  const lastFailure = afterFailures.sort((a, b) => b.endAt - a.endAt)[0];
  return {
    outage,
    during,
    failures: during.filter(failed),
    hangs: during.filter((s) => s.error === 'timeout').length,
    leaks: during.filter(leaksInternals).length,
    statuses,
    messages,
    maxMs: Math.max(0, ...during.map((s) => s.ms)),
    firstOkAfterMs: firstOk ? firstOk.endAt - outage.readyAt : null,
    lastFailureAfterMs: lastFailure ? lastFailure.endAt - outage.readyAt : null,
    failuresAfterReady: afterFailures.length,
  };
}

async function main(): Promise<void> {
  const distDir = buildService(ROOT);
  const postgres = await startPostgres();
  const databaseUrl = await postgres.createDatabase('faults_pg');
  const dataDir = tempDir('faults-pg-service-');
  const api = await startService(
    'main',
    { NODE_ENV: 'production', LOG_LEVEL: 'info', DATA_DIR: dataDir, TIERS: NO_QUOTA, DATABASE_URL: databaseUrl, HOST: '127.0.0.1', PORT: '0', VISION_LOCAL_ENABLED: 'false' },
    distDir,
  );
  const base = api.url;
  const key = initialKey(dataDir);
  const ops = await restOps(TIMEOUT_MS);
  const okOf = new Map(ops.map((o) => [o.name, o.ok]));
  // Something to list and search.
  for (let i = 0; i < 10; i++) await ops.find((o) => o.name.includes('upload'))!.run(base, key);

  const started = Date.now();
  const load = startLoad(base, key, ops, CLIENTS);
  const outages: Outage[] = [];
  const outage = async (name: string, how: string, before: number, stop: () => void, downMs: number, start: () => void) => {
    await sleep(before);
    const stopAt = Date.now();
    stop();
    const stoppedAt = Date.now();
    await sleep(downMs);
    const startAt = Date.now();
    start();
    outages.push({ name, how, stopAt, stoppedAt, startAt, readyAt: Date.now() });
    console.log(`outage ${name} (${how}): stop took ${stoppedAt - stopAt} ms, down ${startAt - stoppedAt} ms, start took ${Date.now() - startAt} ms`);
  };
  try {
    await outage('A', `pg_ctl stop -m fast (clients disconnected), ${DOWN_MS / 1000} s down, pg_ctl start`, 5000, () => postgres.stop('fast'), DOWN_MS, () => postgres.start());
    await outage('B', 'pg_ctl stop -m immediate (a crash), 3 s down, pg_ctl start (WAL recovery)', CALM_MS, () => postgres.stop('immediate'), 3000, () => postgres.start());
    if (FREEZE_MS > 0) {
      await outage('C', `every PostgreSQL process SIGSTOPped for ${FREEZE_MS / 1000} s, then SIGCONT (a server that accepts connections and never answers, as in a network partition)`, CALM_MS, () => postgres.freeze(), FREEZE_MS, () => postgres.thaw());
    }
    await sleep(CALM_MS);
  } finally {
    postgres.thaw();
    await load.stop();
  }
  const samples = load.samples;
  const processAlive = alive(api.pid) && api.process.child.exitCode === null;
  const health = await request(`${base}/healthz`);
  const list = await request(`${base}/api/media/list?limit=5`, { headers: { 'X-API-Key': key } });
  const stopCode = await api.process.stop();
  postgres.destroy();

  const figures = outages.map((o, i) => analyse(o, outages[i + 1]?.stopAt ?? Infinity, samples, okOf));
  const before = samples.filter((s) => s.endAt < outages[0]!.stopAt);
  const problems = new Map<string, number>();
  for (const p of api.problems as LogRecord[]) {
    const label = `${p.level >= 50 ? 'error' : 'warn'}: ${p.msg}`;
    problems.set(label, (problems.get(label) ?? 0) + 1);
  }

  const defects: string[] = [];
  for (const f of figures) {
    if (f.hangs > 0) {
      const ops = new Map<string, number>();
      for (const s of f.during.filter((s) => s.error === 'timeout')) ops.set(s.op, (ops.get(s.op) ?? 0) + 1);
      defects.push(`outage ${f.outage.name}: ${f.hangs} request(s) got no answer within ${TIMEOUT_MS / 1000} s (${[...ops].map(([op, c]) => `${op} ×${c}`).join(', ')})`);
    }
    if (f.firstOkAfterMs !== null && f.firstOkAfterMs > RECOVERY_LIMIT_MS) defects.push(`outage ${f.outage.name}: the first success came ${(f.firstOkAfterMs / 1000).toFixed(1)} s after PostgreSQL was ready`);
    if (f.leaks > 0) defects.push(`outage ${f.outage.name}: ${f.leaks} answer(s) show stack, driver or Prisma text`);
    const notEnvelope = f.failures.filter((s) => s.status !== 0 && describeAnswer(s).startsWith('not JSON')).length;
    if (notEnvelope > 0) defects.push(`outage ${f.outage.name}: ${notEnvelope} failure(s) without a JSON error envelope`);
    const non5xx = f.failures.filter((s) => s.status !== 0 && (s.status < 500 || s.status > 599)).length;
    if (non5xx > 0) defects.push(`outage ${f.outage.name}: ${non5xx} failure(s) answered with a non-5xx status (${[...new Set(f.failures.filter((s) => s.status < 500 && s.status > 0).map((s) => `${s.status} ${s.op}`))].join(', ')})`);
    const generic = f.failures.filter((s) => s.status === 500 && /internal server error|unexpected error/i.test(describeAnswer(s)));
    if (generic.length > 0) defects.push(`outage ${f.outage.name}: ${generic.length} of ${f.failures.length} failures are a 500 with a generic message ("${describeAnswer(generic[0]!)}") rather than a 503 saying the database is unavailable`);
    if (f.firstOkAfterMs === null) defects.push(`outage ${f.outage.name}: no success within ${CALM_MS / 1000} s of PostgreSQL being back`);
  }
  if (!processAlive) defects.push('the API process exited during the run');
  if (health.status !== 200 || list.status !== 200) defects.push(`after the run /healthz answered ${health.status} and the list ${list.status}`);

  const rate = before.length / ((outages[0]!.stopAt - started) / 1000);
  const lines: string[] = [];
  lines.push(`- Set-up: one API process (\`npm start\` build, NODE_ENV production, in-process job workers) on a PostgreSQL 15 cluster of the script's own; load: ${CLIENTS} clients in a loop (20 ms pause) over ${ops.map((o) => o.name).join(', ')}, X-API-Key, ${TIMEOUT_MS / 1000} s client timeout (a request still unanswered then counts as a hang); ${rate.toFixed(0)} requests/s before the first outage, ${before.filter((s) => s.status !== okOf.get(s.op)).length} failures among those ${before.length}`);
  lines.push(`- Outages: ${outages.map((o) => `**${o.name}**: ${o.how} (stop took ${o.stoppedAt - o.stopAt} ms, start ${o.readyAt - o.startAt} ms)`).join('; ')}. "During" = requests in flight at any moment from the stop command until PostgreSQL was ready again; "recovery" is measured from that moment`);
  lines.push('');
  lines.push(
    table(
      ['outage', 'requests during', 'failed', 'statuses seen', 'hangs (no answer in 15 s)', 'slowest answer', 'stack/driver text in body', 'first success after ready', 'last failure after ready', 'failures after ready'],
      figures.map((f) => [
        f.outage.name,
        f.during.length,
        f.failures.length,
        [...f.statuses].map(([s, c]) => `${s} ×${c}`).join(', '),
        f.hangs,
        `${(f.maxMs / 1000).toFixed(2)} s`,
        f.leaks,
        f.firstOkAfterMs === null ? 'never' : `${f.firstOkAfterMs} ms`,
        f.lastFailureAfterMs === null ? 'none' : `${f.lastFailureAfterMs} ms`,
        f.failuresAfterReady,
      ]),
      ['l', 'r', 'r', 'l', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
  lines.push('');
  for (const f of figures) {
    lines.push(`Outage ${f.outage.name}, what the failures said (status route → message ×count): ${[...f.messages].sort((a, b) => b[1] - a[1]).map(([m, c]) => `\`${m}\` ×${c}`).join('; ') || 'none'}.`);
    lines.push('');
  }
  const latencies = samples.filter((s) => s.endAt > outages.at(-1)!.readyAt + 2000).map((s) => s.ms);
  lines.push(`After the last outage the same process (pid unchanged, never restarted: ${processAlive ? 'yes' : '**no**'}) answered with p50 ${percentile(latencies, 50).toFixed(0)} ms / p99 ${percentile(latencies, 99).toFixed(0)} ms (${latencies.length} requests from 2 s after ready); /healthz ${health.status}, list ${list.status}; SIGTERM stop: exit code ${stopCode}.`);
  lines.push('');
  const behind = new Map<string, number>();
  for (const p of api.problems) {
    if (p.msg !== 'unexpected error in GraphQL operation') continue;
    const err = (JSON.parse(p.line) as { err?: { type?: string; message?: string } }).err ?? {};
    const kind = `${err.type ?? '?'}: ${(err.message ?? '').replace(/\s+/g, ' ').replace(/\d+\.\d+\.\d+\.\d+:\d+/g, '<host:port>').slice(-140)}`;
    behind.set(kind, (behind.get(kind) ?? 0) + 1);
  }
  if (behind.size > 0) {
    lines.push(`The errors behind the 500s, as the service logged them (type: end of message ×count): ${byCount(new Map([...behind].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([kind, count]) => [`\`${kind}\``, count])))}.`);
    lines.push('');
  }
  if (problems.size > 0) lines.push(`What the service logged (warn/error ×count): ${byCount(problems)}.`);
  lines.push('');
  lines.push(verdict(defects, 'every request during the outages ended in time with a clean 5xx JSON envelope, and the process recovered by itself'));
  publishFaultSection('postgres', lines.join('\n'), 'npx tsx bench/faults/postgres-restart.ts', defects);
}

try {
  await main();
} finally {
  cleanUpAll();
}
