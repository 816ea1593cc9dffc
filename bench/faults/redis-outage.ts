// Fault: Redis stopped and started again under the Redis tier (BullMQ queue, Redis pub/sub).
//
// The built service as on several machines: an API process (RUN_WORKERS=false) and a
// `npm run worker` process, on a PostgreSQL cluster and a Redis server of this script's own
// (bench/faults/infra.ts, ports 5544 and 6390; never the shared 6379). Scrape jobs go to the
// local fixture site (test/fixtures/site.ts): sniper jobs of its start page, and three of its slow
// page (4 s): two running on the worker's two slots when Redis goes, one waiting in the queue. Redis is shut down (SHUTDOWN NOSAVE: it had no
// persistence, so the queue comes back empty) for 20 s (longer than the 15 s client timeout),
// then started again.
// Expected: while Redis is down, POST /api/scrape (the queue-dependent call) answers 503 with a
// clear message within the client timeout, calls that need only PostgreSQL answer as usual, no
// process exits; after Redis is back the same processes take jobs again (jobs posted then
// complete), and no job is left queued for ever (a job still queued at the end is reported, then
// the worker is restarted to see whether that alone runs it). Reported: what every probe answered and how
// fast, the time from Redis ready to the first accepted job, and what became of every job.
//
// Run: `npm run bench:faults -- redis` or `npx tsx bench/faults/redis-outage.ts`. Knobs:
// FAULTS_REDIS_DOWN_MS (20000), FAULTS_PG_PORT / FAULTS_REDIS_PORT, BENCH_WRITE=0 (print only).
import pg from 'pg';
import { startFixtureSite } from '../../test/fixtures/site.js';
import { buildService, cleanUpAll, sleep, startPostgres, startRedis, tempDir } from './infra.js';
import { alive, initialKey, intEnv, NO_QUOTA, request, ROOT, startService, table, type Answer } from './common.js';
import { describeAnswer, leaksInternals } from './load.js';
import { byCount, publishFaultSection, verdict } from './report.js';

const DOWN_MS = intEnv('FAULTS_REDIS_DOWN_MS', 20_000);
const TIMEOUT_MS = 15_000;
const SLOW_MS = 4000;
const JOB_DEADLINE_MS = 60_000;
/** How long a row left queued by the outage may take to be sent again and run. */
const STRANDED_GRACE_MS = 30_000;
const WORKER_CONCURRENCY = 2;
/** Longer than this from Redis ready to the first accepted job counts as a slow recovery. */
const RECOVERY_LIMIT_MS = 5000;

interface Probe extends Answer {
  op: string;
  phase: 'before' | 'down' | 'after';
  jobId?: number;
}

async function main(): Promise<void> {
  const distDir = buildService(ROOT);
  const postgres = await startPostgres();
  const redis = await startRedis();
  const databaseUrl = await postgres.createDatabase('faults_redis');
  const site = await startFixtureSite({ slowMs: SLOW_MS });
  const dataDir = tempDir('faults-redis-service-');
  const env: Record<string, string> = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    TIERS: NO_QUOTA,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `faults-redis-${process.pid}`,
    FETCH_ALLOW_PRIVATE: '127.0.0.1',
    SCRAPE_HOST_DELAY_MS: '0',
    VISION_LOCAL_ENABLED: 'false',
    WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
  };
  const api = await startService('main', { ...env, HOST: '127.0.0.1', PORT: '0', RUN_WORKERS: 'false' }, distDir);
  const worker = await startService('worker', env, distDir);
  const base = api.url;
  const key = initialKey(dataDir);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const probes: Probe[] = [];
  let phase: Probe['phase'] = 'before';
  const scrape = async (path: string): Promise<Probe> => {
    const sentIn = phase; // the phase the request was sent in, whenever its answer comes
    const answer = await request(`${base}/api/scrape`, { method: 'POST', headers, body: JSON.stringify({ url: `${site.url}${path}`, sniper_mode: true, force: true }) }, TIMEOUT_MS);
    const probe: Probe = { ...answer, op: 'POST /api/scrape', phase: sentIn, jobId: (answer.body as { job_id?: number } | null)?.job_id };
    probes.push(probe);
    return probe;
  };
  const jobState = async (id: number) => ((await request(`${base}/api/jobs/${id}`, { headers: { 'X-API-Key': key } })).body as { status?: string } | null)?.status;
  const waitFor = async (id: number, states: string[], ms: number) => {
    const deadline = Date.now() + ms;
    for (;;) {
      const state = await jobState(id);
      if (state && states.includes(state)) return state;
      if (Date.now() > deadline) return state ?? 'unknown';
      await sleep(100);
    }
  };

  // Before: two jobs run as usual.
  const baseline = [await scrape('/'), await scrape('/')];
  for (const p of baseline) if (p.status !== 202) throw new Error(`baseline POST /api/scrape answered ${p.status}: ${p.text}`);
  const baselineStates = await Promise.all(baseline.map((p) => waitFor(p.jobId!, ['completed', 'failed'], JOB_DEADLINE_MS)));
  // When Redis goes, slow jobs run on every worker slot and one more waits in the queue (in Redis).
  const slowJobs: Probe[] = [];
  for (let i = 0; i <= WORKER_CONCURRENCY; i++) slowJobs.push(await scrape('/slow'));
  const slow = slowJobs[0]!;
  const waiting = slowJobs.at(-1)!;
  for (const p of slowJobs.slice(0, WORKER_CONCURRENCY)) await waitFor(p.jobId!, ['processing'], 10_000);
  const waitingStateAtStop = await jobState(waiting.jobId!);

  // Redis down: probe once a second, each probe on its own (a hung one does not hold the others up).
  phase = 'down';
  const downAt = Date.now();
  redis.stop();
  const pending: Promise<unknown>[] = [];
  while (Date.now() - downAt < DOWN_MS) {
    pending.push(
      scrape('/'),
      request(`${base}/api/jobs/${baseline[0]!.jobId}`, { headers: { 'X-API-Key': key } }, TIMEOUT_MS).then((a) => probes.push({ ...a, op: 'GET /api/jobs/{id}', phase: 'down' })),
      request(`${base}/api/media/list?limit=5`, { headers: { 'X-API-Key': key } }, TIMEOUT_MS).then((a) => probes.push({ ...a, op: 'GET /api/media/list', phase: 'down' })),
      request(`${base}/healthz`, {}, TIMEOUT_MS).then((a) => probes.push({ ...a, op: 'GET /healthz', phase: 'down' })),
    );
    await sleep(1000);
  }
  const slowStateWhileDown = await jobState(slow.jobId!);

  // Redis back (empty): POST until a job is accepted, then three more; every job must finish.
  const upAt = Date.now();
  await redis.start();
  const readyAt = Date.now();
  phase = 'after';
  let firstAccepted: Probe | undefined;
  while (!firstAccepted && Date.now() - readyAt < 30_000) {
    const probe = await scrape('/');
    if (probe.status === 202) firstAccepted = probe;
    else await sleep(500);
  }
  for (let i = 0; i < 3; i++) await scrape('/');
  await Promise.allSettled(pending);

  // Every job of the run, from the database, once the accepted ones have had their time.
  const accepted = probes.filter((p) => p.jobId !== undefined);
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (const p of accepted.filter((p) => p.phase !== 'before')) await waitFor(p.jobId!, ['completed', 'failed'], Math.max(0, deadline - Date.now()));
  await sleep(2000); // rows created by POSTs that timed out on the client side may still be picked up
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  // A row whose queue message Redis lost is sent again by the running workers (every few seconds):
  // give it STRANDED_GRACE_MS to run before counting it as stranded.
  const graceEnd = Date.now() + STRANDED_GRACE_MS;
  while (Date.now() < graceEnd && (await client.query(`SELECT 1 FROM "Job" WHERE state::text IN ('queued', 'processing')`)).rowCount) await sleep(500);
  const { rows: jobRows } = await client.query<{ id: number; state: string; createdAt: Date; error: string | null; path: string }>(
    `SELECT id, state::text AS state, "createdAt", error, input->>'url' AS path FROM "Job" ORDER BY id`,
  );
  await client.end();

  const apiAlive = alive(api.pid) && api.process.child.exitCode === null;
  const workerAlive = alive(worker.pid) && worker.process.child.exitCode === null;
  const workerCode = await worker.process.stop();
  // Rows left queued: does a worker restart (which enqueues every queued row) run them?
  const strandedIds = jobRows.filter((r) => r.state === 'queued').map((r) => r.id);
  let afterWorkerRestart = '';
  if (strandedIds.length > 0) {
    const again = await startService('worker', env, distDir);
    const states = await Promise.all(strandedIds.map((id) => waitFor(id, ['completed', 'failed'], 20_000)));
    afterWorkerRestart = `after a worker restart: ${strandedIds.map((id, i) => `${id} ${states[i]}`).join(', ')}`;
    await again.process.stop();
  }
  const apiCode = await api.process.stop();
  await site.close();
  redis.destroy();
  postgres.destroy();

  // Figures.
  const down = probes.filter((p) => p.phase === 'down');
  const byOp = new Map<string, Probe[]>();
  for (const p of down) byOp.set(p.op, [...(byOp.get(p.op) ?? []), p]);
  const defects: string[] = [];
  const rows: Array<Array<string | number>> = [];
  for (const [op, list] of byOp) {
    const statuses = new Map<string, number>();
    const messages = new Map<string, number>();
    for (const p of list) {
      const label = p.status === 0 ? `no answer (${p.error})` : String(p.status);
      statuses.set(label, (statuses.get(label) ?? 0) + 1);
      if (p.status >= 400 || p.status === 0) messages.set(describeAnswer(p), (messages.get(describeAnswer(p)) ?? 0) + 1);
    }
    const ms = list.map((p) => p.ms);
    rows.push([op, list.length, [...statuses].map(([s, c]) => `${s} ×${c}`).join(', '), `${(Math.min(...ms) / 1000).toFixed(2)}–${(Math.max(...ms) / 1000).toFixed(2)} s`, [...messages].map(([m, c]) => `${m} ×${c}`).join('; ') || '-']);
    const hangs = list.filter((p) => p.error === 'timeout').length;
    if (hangs > 0) defects.push(`${op}: ${hangs} of ${list.length} requests while Redis was down got no answer within ${TIMEOUT_MS / 1000} s`);
    if (list.some(leaksInternals)) defects.push(`${op}: answers show stack, driver or Redis text`);
    if (op === 'POST /api/scrape') {
      const accepted202 = list.filter((p) => p.status === 202).length;
      const clean503 = list.filter((p) => p.status === 503).length;
      if (clean503 < list.length) defects.push(`POST /api/scrape while Redis was down: ${clean503} of ${list.length} answered 503 (${accepted202} answered 202)`);
    } else if (list.some((p) => p.status !== 200)) {
      defects.push(`${op} (needs PostgreSQL only) did not answer 200 every time while Redis was down`);
    }
  }
  const downStart = downAt;
  const createdDuringOutage = jobRows.filter((r) => r.createdAt.getTime() >= downStart && r.createdAt.getTime() <= readyAt);
  const stranded = jobRows.filter((r) => r.state === 'queued' || r.state === 'processing');
  const afterJobs = probes.filter((p) => p.phase === 'after' && p.jobId !== undefined);
  const learned = probes.filter((p) => p.phase === 'down' && p.jobId !== undefined).length;
  const unknownToClient = createdDuringOutage.length - learned;
  if (unknownToClient > 0) defects.push(`${unknownToClient} job(s) were created by POSTs whose client gave up (no answer in ${TIMEOUT_MS / 1000} s): the client never learned their ids, so a retry makes a second job`);
  const afterDone = afterJobs.filter((p) => jobRows.find((r) => r.id === p.jobId)?.state === 'completed').length;
  const recoveryMs = firstAccepted ? firstAccepted.sentAt + firstAccepted.ms - readyAt : Infinity;
  if (!firstAccepted) defects.push('no job was accepted within 30 s of Redis being back');
  else if (recoveryMs > RECOVERY_LIMIT_MS) defects.push(`POST /api/scrape kept answering 503 for ${(recoveryMs / 1000).toFixed(1)} s after Redis was back (more than ${RECOVERY_LIMIT_MS / 1000} s)`);
  if (afterDone < afterJobs.length) defects.push(`${afterJobs.length - afterDone} of ${afterJobs.length} jobs posted after Redis was back did not complete within ${JOB_DEADLINE_MS / 1000} s`);
  if (stranded.length > 0) defects.push(`${stranded.length} job row(s) never ran while the processes kept running: ${stranded.map((r) => `${r.id} (${r.state}, created ${r.createdAt.getTime() >= downStart && r.createdAt.getTime() <= readyAt ? 'while Redis was down' : r.createdAt.getTime() > readyAt ? 'after Redis was back' : 'before the outage'}${r.id === waiting.jobId ? `, waiting in the Redis queue when Redis went` : ''})`).join(', ')}${afterWorkerRestart ? `; ${afterWorkerRestart}` : ''}`);
  for (const p of slowJobs.slice(0, WORKER_CONCURRENCY)) {
    const row = jobRows.find((r) => r.id === p.jobId);
    if (row?.state !== 'completed') defects.push(`job ${p.jobId}, running when Redis went, ended ${row?.state}${row?.error ? `: ${row.error}` : ''}`);
  }
  if (!apiAlive || !workerAlive) defects.push(`a process exited: API ${apiAlive ? 'alive' : 'gone'}, worker ${workerAlive ? 'alive' : 'gone'}`);

  const problems = new Map<string, number>();
  for (const [who, proc] of [['API', api], ['worker', worker]] as const) {
    // A stack trace or an inspected error on stderr counts once, by its first line.
    for (const p of proc.problems.filter((p) => !/^stderr: (\s|\}|$)/.test(p.msg))) problems.set(`${who} ${p.level >= 50 ? 'error' : 'warn'}: ${p.msg}`, (problems.get(`${who} ${p.level >= 50 ? 'error' : 'warn'}: ${p.msg}`) ?? 0) + 1);
  }

  const refusedBefore = new Map<string, number>();
  for (const p of probes.filter((p) => p.phase === 'after' && p.status !== 202 && p.sentAt < (firstAccepted?.sentAt ?? Infinity))) {
    const label = p.status === 0 ? `no answer (${p.error})` : String(p.status);
    refusedBefore.set(label, (refusedBefore.get(label) ?? 0) + 1);
  }
  const stderrLines = [api, worker].map((proc) => proc.problems.filter((p) => p.level === 60 && !/^stderr: (\s|\}|$)/.test(p.msg)).length);
  const lines: string[] = [];
  lines.push(`- Set-up: an API process (RUN_WORKERS=false) and a worker process (\`npm run worker\`), both built, on a PostgreSQL 15 cluster and a redis-server 7 of the script's own (no persistence); sniper scrape jobs (force: true) of the fixture site (test/fixtures/site.ts), its /slow page answering after ${SLOW_MS / 1000} s`);
  lines.push(`- Fault: \`redis-cli shutdown nosave\` while jobs ${slowJobs.slice(0, WORKER_CONCURRENCY).map((p) => p.jobId).join(' and ')} (the slow page) were processing on the worker's ${WORKER_CONCURRENCY} slots and job ${waiting.jobId} (the same) waited in the queue (its state: ${waitingStateAtStop}); ${DOWN_MS / 1000} s down, probed once a second with a ${TIMEOUT_MS / 1000} s client timeout (each probe on its own); then redis-server started again (empty)`);
  lines.push(`- Before: 2 jobs ${baselineStates.join(' and ')}; POST /api/scrape answered 202 in ${baseline.map((p) => `${p.ms.toFixed(0)} ms`).join(' and ')}`);
  lines.push('');
  lines.push(table(['while Redis was down', 'requests', 'statuses', 'answer times', 'messages'], rows, ['l', 'r', 'l', 'r', 'l']));
  lines.push('');
  lines.push(`After Redis was back: the first POST /api/scrape accepted ${firstAccepted ? `${Math.max(0, firstAccepted.sentAt + firstAccepted.ms - readyAt).toFixed(0)} ms after redis-server was ready (${refusedBefore.size ? [...refusedBefore].map(([st, c]) => `${st} ×${c}`).join(', ') : 'nothing'} before it)` : '**never (30 s)**'}; ${afterDone} of ${afterJobs.length} jobs posted after it completed. The jobs running when Redis went: ${slowJobs.slice(0, WORKER_CONCURRENCY).map((p) => `${p.jobId} ${jobRows.find((r) => r.id === p.jobId)?.state}`).join(', ')} (job ${slow.jobId} was ${slowStateWhileDown} at the end of the outage); the job waiting in the queue: ${jobRows.find((r) => r.id === waiting.jobId)?.state}${afterWorkerRestart ? ` (${afterWorkerRestart})` : ''}.`);
  lines.push('');
  lines.push(`Job rows created while Redis was down: ${createdDuringOutage.length}, ${learned} of them answered to the client with their id${createdDuringOutage.length ? ` (${createdDuringOutage.map((r) => `${r.id} ${r.state}`).join(', ')})` : ''}; rows still queued or processing at the end: ${stranded.length}. Processes: API ${apiAlive ? 'alive' : '**exited**'}, worker ${workerAlive ? 'alive' : '**exited**'} (same pids, never restarted); SIGTERM stop: worker exit code ${workerCode}, API ${apiCode}. Redis was back ${readyAt - upAt} ms after the start command.`);
  lines.push('');
  if (stderrLines.some((n) => n > 0)) lines.push(`Unstructured stderr output (outside the JSON log): API ${stderrLines[0]} message(s), worker ${stderrLines[1]} (with their stack traces).`);
  lines.push('');
  if (problems.size > 0) lines.push(`What the processes logged (warn/error ×count): ${byCount(problems)}.`);
  lines.push('');
  lines.push(verdict(defects, 'queue calls answered 503 while Redis was down, the rest answered as usual, and jobs ran again once it was back'));
  publishFaultSection('redis', lines.join('\n'), 'npx tsx bench/faults/redis-outage.ts', defects);
}

try {
  await main();
} finally {
  cleanUpAll();
}
