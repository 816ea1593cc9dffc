// What Express costs per request, and what src/http/server.ts's createAppServer gives back: one
// GET answered with JSON after `SELECT 1` on PostgreSQL (node-pg, pool of 10), served three ways in
// this process, each started fresh and measured in turn, BENCH_ROUNDS rounds interleaved:
//   - node:http: a plain request listener (the anchor: what any server must do);
//   - Express on http.createServer: one route, `res.json` (what the service did before);
//   - Express on createAppServer: the same app, its requests made with Express's prototypes.
// The load comes from bench/money-load.ts in a child process (undici's Pool, a keep-alive connection
// per caller, BENCH_CALLERS of them, 32); the server's CPU per request is this process's CPU while
// the load ran divided by every request it answered (warm-up included), as the money benchmark's.
//
// Run: `npx tsx bench/http-server.bench.ts` (BENCH_SECONDS 6 after BENCH_WARMUP_SECONDS 2;
// BENCH_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/test). Writes its section of
// bench/RESULTS.md.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import express from 'express';
import pg from 'pg';
import { createAppServer } from '../src/http/server.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { median, spread } from './stats.js';
import type { LoadOutcome } from './money-load.js';

const SECONDS = positiveIntEnv('BENCH_SECONDS', 6);
const WARMUP_SECONDS = positiveIntEnv('BENCH_WARMUP_SECONDS', 2);
const CALLERS = positiveIntEnv('BENCH_CALLERS', 32);
const ROUNDS = positiveIntEnv('BENCH_ROUNDS', 3);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const LOADER = fileURLToPath(new URL('./money-load.ts', import.meta.url));

type Variant = 'node:http' | 'Express on http.createServer' | 'Express on createAppServer';
const VARIANTS: Variant[] = ['node:http', 'Express on http.createServer', 'Express on createAppServer'];

const pool = new pg.Pool({ connectionString: PG_URL, max: 10 });
const ANSWER = { success: true, status: 'ok' };

function serverFor(variant: Variant): Server {
  if (variant === 'node:http') {
    return createServer((_req, res) => {
      void pool.query('SELECT 1').then(() => {
        const body = JSON.stringify(ANSWER);
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
  }
  const app = express();
  app.get('/healthz', async (_req, res) => {
    await pool.query('SELECT 1');
    res.json(ANSWER);
  });
  return variant === 'Express on createAppServer' ? createAppServer(app) : createServer(app);
}

interface Outcome {
  perSecond: number;
  p95: number;
  cpuMs: number;
}

async function measure(variant: Variant): Promise<Outcome> {
  const server = serverFor(variant);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const job = { kind: 'http', method: 'GET', base, paths: Array.from({ length: CALLERS }, () => '/healthz'), callers: CALLERS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS };
  const cpuAtStart = process.cpuUsage();
  const child = spawn(process.execPath, ['--import', 'tsx', LOADER, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  const used = process.cpuUsage(cpuAtStart);
  server.closeAllConnections();
  server.close();
  if (code !== 0) throw new Error(`the load generator failed for ${variant} (exit ${code})`);
  const outcome = JSON.parse(out) as LoadOutcome;
  const refused = Object.values(outcome.refused).reduce((sum, n) => sum + n, 0);
  if (refused > 0) throw new Error(`${variant}: ${refused} answers were not 200 (${JSON.stringify(outcome.refused)})`);
  return { perSecond: outcome.perSecond, p95: outcome.p95, cpuMs: (used.user + used.system) / 1000 / Math.max(1, outcome.total) };
}

const uptime = () => loadavg().map((n) => n.toFixed(2)).join(' ');

async function main(): Promise<void> {
  const loads = [uptime()];
  const figures = new Map<Variant, Outcome[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const variant of VARIANTS) {
      const outcome = await measure(variant);
      figures.get(variant)!.push(outcome);
      console.log(`round ${round} ${variant}: ${outcome.perSecond.toFixed(0)}/s, p95 ${outcome.p95.toFixed(1)} ms, ${outcome.cpuMs.toFixed(3)} CPU ms per request`);
    }
    loads.push(uptime());
  }
  await pool.end();
  const anchor = figures.get('node:http')!;
  const lines = [
    '## HTTP server: Express per request, on http.createServer and on createAppServer',
    '',
    `- Date: ${new Date().toISOString()}; load average (\`uptime\`) at the start and after each round: ${loads.join('; ')}`,
    `- Command: \`npx tsx bench/http-server.bench.ts\`; ${ROUNDS} rounds, the three servers in turn in each; ${CALLERS} callers (bench/money-load.ts in a child process: undici's Pool, a keep-alive connection each), ${WARMUP_SECONDS} s warm-up then ${SECONDS} s`,
    '- Each server answers `GET /healthz` with JSON after `SELECT 1` through node-pg (pool of 10) on PostgreSQL; CPU is the server process\'s while the load ran, per request answered (warm-up included)',
    '',
    '| server | req/s min / median / max | p95 ms min / median / max | CPU ms per request min / median / max | of node:http\'s rate (median of rounds) |',
    '|---|--:|--:|--:|--:|',
  ];
  for (const variant of VARIANTS) {
    const runs = figures.get(variant)!;
    const share = median(runs.map((r, i) => r.perSecond / anchor[i]!.perSecond));
    lines.push(`| ${variant} | ${spread(runs.map((r) => r.perSecond), 0)} | ${spread(runs.map((r) => r.p95), 1)} | ${spread(runs.map((r) => r.cpuMs), 3)} | ${(share * 100).toFixed(0)}% |`);
  }
  lines.push(
    '',
    'Express gives every request and response its prototypes with `Object.setPrototypeOf` (its `app.handle`); Node\'s HTTP ' +
      'code then works on objects whose prototype changed after they were made. `createAppServer` (src/http/server.ts) has Node ' +
      'make them with Express\'s prototypes, so the swap changes nothing. The service\'s server is made so since 991321f.',
  );
  const section = lines.join('\n');
  console.log(section);
  writeResultsSection('http-server', section);
}

await main();
