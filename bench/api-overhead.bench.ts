// API overhead benchmark: the same read (listing sub-keys) through the REST shim, through /graphql
// directly and through a hand-written Express handler, plus the latency of authentication and the
// quota check that every request pays. Run with `npm run bench` (BENCH_SECONDS, default 10, sets the
// duration of each load run). Prints a markdown section and writes it into bench/RESULTS.md.
//
// The load generator is autocannon's CLI in a child process, so it does not share the service's
// event loop (PGlite runs inside that loop too); on a 2-core machine that leaves one core to each.
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import express, { type NextFunction, type Request, type Response } from 'express';
import { parse, print } from 'graphql';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logger.js';
import { AppError, Forbidden } from '../src/platform/errors.js';
import { requestLog } from '../src/http/request-log.js';
import { sendError, sendJson } from '../src/http/respond.js';
import { subKeyStatus } from '../src/modules/api-keys/sub-keys.service.js';
import { restRoutesOf } from '../rest-shim/derive.js';
import { apiKeysOperations } from '../src/modules/api-keys/api-keys.operations.js';
import type { SubKeyFieldsFragment } from '../rest-shim/generated/operations.js';
import { writeResultsSection } from './results.js';
import { autocannon, type LoadResult } from './autocannon.js';

const SECONDS = positiveNumber('BENCH_SECONDS', 10);
const WARMUP_SECONDS = positiveNumber('BENCH_WARMUP_SECONDS', Math.min(3, SECONDS));
const CONNECTIONS = 50;
const SUB_KEYS = 5;
const AUTH_ITERATIONS = 5_000;
const AUTH_WARMUP = 500;
const HUGE = 1_000_000_000; // fits the INTEGER limits of consume_quota
const TARGET_SHIM_RATIO = 0.75;
const TARGET_AUTH_P50_MS = 1;

const listSubKeysRoute = restRoutesOf(apiKeysOperations).find((route) => route.method === 'GET')!;

/** A listed sub-key as the shim answers it, read from its GraphQL node by the row's own shape. */
function subKeyJson(node: SubKeyFieldsFragment): unknown {
  const page = { viewer: { subKeys: { totalCount: 1, pageInfo: { hasNextPage: false, endCursor: null }, edges: [{ node }] } } };
  return (listSubKeysRoute.shape(page, { params: {}, query: {}, body: {}, files: {}, baseUrl: '' } as never) as { sub_keys: unknown[] }).sub_keys[0];
}

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number of seconds, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The ListSubKeys operation text, as the shim has it (the derived row's document, with its fragments).

function listSubKeysQuery(): string {
  return print(listSubKeysRoute.operation);
}

// ---------------------------------------------------------------------------------------------
// The hand-written variant: same services, same JSON, no GraphQL.

function handWrittenApp(app: App): express.Express {
  const { auth, quota, subKeys, db } = app.services;
  const server = express();
  server.disable('x-powered-by');
  // The service runs this middleware on every route too; keeping it isolates the GraphQL cost.
  server.use(requestLog(app.logger));
  server.get('/api/platform/sub-keys', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const actor = await auth.authenticate(req.get('x-api-key')?.trim() || undefined);
      res.set((await quota.consume(actor)).headers);
      if (actor.keyKind !== 'master') throw new Forbidden('this operation needs the account master key; sub-keys cannot call it');
      const limit = Number(req.query.limit ?? 100);
      const first = Number.isInteger(limit) ? Math.min(Math.max(limit, 0), 200) : 100;
      const where = { accountId: actor.accountId, kind: 'sub' as const };
      const rows = await db.prisma.apiKey.findMany({ where, orderBy: { id: 'desc' }, take: first + 1 });
      const total = await db.prisma.apiKey.count({ where });
      const page = rows.slice(0, first);
      const usage = await subKeys.usageOf(page);
      const iso = (d: Date | null) => (d ? d.toISOString() : null);
      const listed = page.map((k, i): SubKeyFieldsFragment => ({
        databaseId: k.id,
        prefix: k.prefix,
        label: k.label,
        scopes: k.scopes,
        requestBudget: k.requestBudget,
        expiresAt: iso(k.expiresAt),
        revokedAt: iso(k.revokedAt),
        createdAt: k.createdAt.toISOString(),
        status: subKeyStatus(k),
        usage: { requestsUsed: usage[i]!.requestsUsed, requestsRemaining: usage[i]!.requestsRemaining, lastUsedAt: iso(usage[i]!.lastUsedAt) },
      }));
      sendJson(res, 200, {
        success: true,
        sub_keys: listed.map(subKeyJson),
        total,
        // First pages only: the benchmark never pages (the GraphQL cursor format is not reproduced).
        next_cursor: rows.length > first ? `id:${page.at(-1)!.id}` : null,
      });
    } catch (error) {
      next(error);
    }
  });
  server.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (error instanceof AppError) return sendError(res, error.status, error.message, error.headers);
    sendError(res, 500, 'internal server error');
  });
  return server;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
  });
}

// ---------------------------------------------------------------------------------------------
// Load runs (autocannon CLI in a child process).

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** Load on one target at this benchmark's connection count. */
function load(target: Target, seconds: number): Promise<LoadResult> {
  return autocannon({ url: target.url, seconds, connections: CONNECTIONS, method: target.method, headers: target.headers, body: target.body });
}

async function fetchTarget(target: Target): Promise<{ status: number; body: unknown }> {
  const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, body };
}

// ---------------------------------------------------------------------------------------------
// Sequential in-process timings.

interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
}

function percentiles(samplesMs: number[]): Percentiles {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: sorted.reduce((s, v) => s + v, 0) / sorted.length };
}

async function timeLoop(iterations: number, warmup: number, step: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await step();
  const samples: number[] = new Array(iterations);
  for (let i = 0; i < iterations; i++) {
    const started = process.hrtime.bigint();
    await step();
    samples[i] = Number(process.hrtime.bigint() - started) / 1e6;
  }
  return samples;
}

/** Wraps the raw SQL channel (used by auth, quota and usageOf) to add up the time spent in it. */
function meterRawSql(app: App): { reset(): void; totalMs(): number; calls(): number; restore(): void } {
  const db = app.services.db;
  const original = db.query;
  let totalNs = 0n;
  let calls = 0;
  db.query = async function <T>(sql: string, params?: unknown[]): Promise<T[]> {
    const started = process.hrtime.bigint();
    try {
      return await original.call(db, sql, params) as T[];
    } finally {
      totalNs += process.hrtime.bigint() - started;
      calls++;
    }
  };
  return {
    reset: () => {
      totalNs = 0n;
      calls = 0;
    },
    totalMs: () => Number(totalNs) / 1e6,
    calls: () => calls,
    restore: () => {
      db.query = original;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Report.

const ms = (v: number) => (v < 10 ? v.toFixed(2) : v.toFixed(1));
const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
const verdict = (ok: boolean) => (ok ? '**PASS**' : '**FAIL**');

function commandLine(): string {
  const env = ['BENCH_SECONDS', 'BENCH_WARMUP_SECONDS'].filter((n) => process.env[n]).map((n) => `${n}=${process.env[n]}`);
  const run = process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'npx tsx bench/api-overhead.bench.ts';
  return [...env, run].join(' ');
}

function writeResults(section: string): void {
  writeResultsSection('api-overhead', section);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'image-service-bench-'));
  const tier = { daily: HUGE, perMinute: HUGE };
  const config = loadConfig(
    { NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dataDir },
    { inMemoryDatabase: true, databaseUrl: undefined, tiers: { standard: tier, pro: tier, enterprise: tier } },
  );
  const app = await buildApp(config, { logger: createLogger('silent') });
  let handServer: Server | undefined;
  try {
    const base = await app.start(0, '127.0.0.1');
    if (!app.initialAccount) throw new Error('a fresh in-memory database should have created the first account');
    const key = app.initialAccount.apiKey;

    for (let i = 0; i < SUB_KEYS; i++) {
      const response = await fetch(`${base}/api/platform/sub-keys`, {
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ label: `bench ${i + 1}`, credit_limit: 1000 * (i + 1), scopes: i % 2 ? 'search,media' : undefined, expires_days: i === 2 ? 30 : undefined }),
      });
      if (response.status !== 201) throw new Error(`creating sub-key ${i + 1} failed: ${response.status} ${await response.text()}`);
    }

    handServer = createServer(handWrittenApp(app));
    const handBase = await listen(handServer);

    const targets: Target[] = [
      { name: 'REST shim', url: `${base}/api/platform/sub-keys`, method: 'GET', headers: { 'X-API-Key': key } },
      {
        name: 'Direct GraphQL',
        url: `${base}/graphql`,
        method: 'POST',
        headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: listSubKeysQuery(), operationName: 'ListSubKeys', variables: { first: 100 } }),
      },
      { name: 'Hand-written Express', url: `${handBase}/api/platform/sub-keys`, method: 'GET', headers: { 'X-API-Key': key } },
    ];

    // Same answer three ways before timing anything.
    const answers = await Promise.all(targets.map(fetchTarget));
    answers.forEach((a, i) => {
      if (a.status !== 200) throw new Error(`${targets[i]!.name} answered ${a.status}: ${JSON.stringify(a.body)}`);
    });
    const [shimBody, gqlBody, handBody] = answers.map((a) => a.body) as [
      { sub_keys: unknown[] },
      { data?: { viewer: { subKeys: { edges: Array<{ node: SubKeyFieldsFragment }> } } }; errors?: unknown },
      { sub_keys: unknown[] },
    ];
    if (!gqlBody.data) throw new Error(`direct GraphQL answered errors: ${JSON.stringify(gqlBody.errors)}`);
    const gqlSubKeys = gqlBody.data.viewer.subKeys.edges.map((e) => subKeyJson(e.node));
    // usage.last_used_at and requests_used move only for sub-keys; the owner key's calls leave them alone.
    if (shimBody.sub_keys.length !== SUB_KEYS) throw new Error(`expected ${SUB_KEYS} sub-keys, the shim listed ${shimBody.sub_keys.length}`);
    if (!isDeepStrictEqual(shimBody.sub_keys, gqlSubKeys)) throw new Error('the shim and direct GraphQL list different sub_keys');
    if (!isDeepStrictEqual(shimBody.sub_keys, handBody.sub_keys)) throw new Error('the shim and the hand-written handler list different sub_keys');
    console.log(`verified: all three answer 200 with the same ${SUB_KEYS} sub_keys`);

    // Service-side diagnostics during each measured run: event-loop stalls and garbage collection.
    let gcMs = 0;
    let gcCount = 0;
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gcMs += entry.duration;
        gcCount++;
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    const loads: LoadResult[] = [];
    const diagnostics: Array<{ loopP99: number; loopMax: number; gcMs: number; gcCount: number }> = [];
    // One warm-up round over all three first: whichever variant ran first otherwise paid for JIT and
    // WebAssembly tier-up of the shared code (PGlite, Prisma's query compiler) with seconds-long tails.
    console.log(`warm-up round: ${WARMUP_SECONDS} s per variant`);
    for (const target of targets) await load(target, WARMUP_SECONDS);
    for (const target of targets) {
      console.log(`${target.name}: warm-up ${WARMUP_SECONDS} s, then ${SECONDS} s at ${CONNECTIONS} connections`);
      await load(target, WARMUP_SECONDS);
      const loopDelay = monitorEventLoopDelay({ resolution: 10 });
      loopDelay.enable();
      gcMs = 0;
      gcCount = 0;
      const result = await load(target, SECONDS);
      loopDelay.disable();
      diagnostics.push({ loopP99: loopDelay.percentile(99) / 1e6, loopMax: loopDelay.max / 1e6, gcMs, gcCount });
      if (result.non2xx || result.errors || result.timeouts) {
        throw new Error(`${target.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
      }
      console.log(`  ${result.rps.toFixed(0)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, max ${result.max} ms (${result.requests} requests)`);
      loads.push(result);
    }
    gcObserver.disconnect();

    // Auth + quota, sequentially, in process; the raw SQL under it is metered separately.
    const { auth, quota, subKeys, db } = app.services;
    const meter = meterRawSql(app);
    const authQuota = async () => quota.consume(await auth.authenticate(key));
    for (let i = 0; i < AUTH_WARMUP; i++) await authQuota();
    meter.reset();
    const loopStarted = process.hrtime.bigint();
    const authQuotaSamples = await timeLoop(AUTH_ITERATIONS, 0, authQuota);
    const loopMs = Number(process.hrtime.bigint() - loopStarted) / 1e6;
    const sqlShare = meter.totalMs() / loopMs;
    const sqlCalls = meter.calls();
    meter.restore();
    const authQuotaStats = percentiles(authQuotaSamples);

    // Per-step costs of one listing request, sequentially (what each variant spends besides HTTP).
    const actor = await auth.authenticate(key);
    const where = { accountId: actor.accountId, kind: 'sub' as const };
    const rows = await db.prisma.apiKey.findMany({ where, orderBy: { id: 'desc' }, take: 101 });
    const enveloped = () => app.yoga.getEnveloped({ credentials: { apiKey: key, requestId: 'bench' } });
    const listDocument = parse(listSubKeysQuery());
    const STEP_N = 1_000;
    const steps: Array<[string, () => Promise<unknown>]> = [
      ['auth.authenticate (1 raw SQL)', () => auth.authenticate(key)],
      ['quota.consume (1 raw SQL, consume_quota)', () => quota.consume(actor)],
      ['prisma apiKey.findMany (5 rows)', () => db.prisma.apiKey.findMany({ where, orderBy: { id: 'desc' }, take: 101 })],
      ['prisma apiKey.count', () => db.prisma.apiKey.count({ where })],
      ['subKeys.usageOf (1 raw SQL)', () => subKeys.usageOf(rows)],
      [
        'GraphQL execute incl. context (no HTTP)',
        async () => {
          const e = enveloped();
          const contextValue = await e.contextFactory();
          return e.execute({ schema: e.schema, document: listDocument, variableValues: { first: 100 }, contextValue });
        },
      ],
    ];
    const stepStats: Array<[string, Percentiles]> = [];
    for (const [name, step] of steps) stepStats.push([name, percentiles(await timeLoop(STEP_N, 100, step))]);

    // Report.
    const [shim, gql, hand] = loads as [LoadResult, LoadResult, LoadResult];
    const shimRatio = shim.rps / gql.rps;
    const gqlRatio = gql.rps / hand.rps;
    const cpu = cpus();
    const lines = [
      '## API overhead: listing sub-keys three ways',
      '',
      `- Date: ${new Date().toISOString()}`,
      `- Machine: ${cpu[0]?.model.trim() ?? 'unknown CPU'} × ${cpu.length}, Node ${process.version}, ${process.platform} ${process.arch}`,
      `- Command: \`${commandLine()}\``,
      `- Load: autocannon (separate process), ${CONNECTIONS} connections, a warm-up round of ${WARMUP_SECONDS} s per variant, then per variant ${WARMUP_SECONDS} s warm-up and ${SECONDS} s measured, X-API-Key = owner key, ${SUB_KEYS} sub-keys listed; service on in-memory PGlite, NODE_ENV=production, logging silent`,
      '',
      '| variant | requests/s (mean) | latency p50 (ms) | latency p99 (ms) | latency max (ms) | requests | event-loop delay p99 / max (ms) | GC during run (ms, count) |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...targets.map((t, i) => {
        const l = loads[i]!;
        const d = diagnostics[i]!;
        return `| ${t.name} | ${l.rps.toFixed(0)} | ${l.p50} | ${l.p99} | ${l.max} | ${l.requests} | ${ms(d.loopP99)} / ${ms(d.loopMax)} | ${d.gcMs.toFixed(0)}, ${d.gcCount} |`;
      }),
      '',
      '| ratio | value | target | result |',
      '| --- | ---: | --- | --- |',
      `| shim / direct GraphQL (throughput) | ${pct(shimRatio)} | ≥ ${pct(TARGET_SHIM_RATIO)} | ${verdict(shimRatio >= TARGET_SHIM_RATIO)} |`,
      `| direct GraphQL / hand-written (throughput) | ${pct(gqlRatio)} | (informative) | |`,
      '',
      `Auth + quota check: \`auth.authenticate(key)\` then \`quota.consume(actor)\`, sequentially, ${AUTH_ITERATIONS} times after ${AUTH_WARMUP} warm-up calls:`,
      '',
      '| p50 (ms) | p95 (ms) | p99 (ms) | mean (ms) | target | result |',
      '| ---: | ---: | ---: | ---: | --- | --- |',
      `| ${ms(authQuotaStats.p50)} | ${ms(authQuotaStats.p95)} | ${ms(authQuotaStats.p99)} | ${ms(authQuotaStats.mean)} | p50 < ${TARGET_AUTH_P50_MS} ms | ${verdict(authQuotaStats.p50 < TARGET_AUTH_P50_MS)} |`,
      '',
      `Time inside the raw SQL calls (PGlite, ${sqlCalls} calls) during that loop: ${pct(sqlShare)} of the loop's ${loopMs.toFixed(0)} ms.`,
      '',
      `Per-step cost of one listing request, sequentially in process (${STEP_N} calls each after 100 warm-up):`,
      '',
      '| step | p50 (ms) | p95 (ms) | mean (ms) |',
      '| --- | ---: | ---: | ---: |',
      ...stepStats.map(([name, s]) => `| ${name} | ${ms(s.p50)} | ${ms(s.p95)} | ${ms(s.mean)} |`),
    ];
    const section = lines.join('\n');
    console.log(`\n${section}\n`);
    writeResults(section);
  } finally {
    if (handServer) {
      handServer.closeAllConnections();
      await new Promise<void>((resolve) => handServer!.close(() => resolve()));
    }
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
