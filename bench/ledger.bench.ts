// Ledger throughput: transfers per second through LedgerService (one ledger_apply() statement per
// transfer), on PostgreSQL (target: 2,000/s spread over many wallets) and on embedded PGlite.
// Run: npx tsx bench/ledger.bench.ts
// Knobs: BENCH_SECONDS (10) and BENCH_WARMUP_SECONDS (2) per scenario, BENCH_CLIENTS (32 concurrent
// callers), BENCH_WALLETS (1,000), BENCH_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test;
// the benchmark makes a database of its own there and drops it), BENCH_SKIP_PGLITE=1, BENCH_WRITE=0.
//
// Scenarios, each with BENCH_CLIENTS callers in a loop:
// - spread: wallet to wallet, both picked at random among BENCH_WALLETS;
// - rewards: the rewards system account to a random wallet (every transfer debits the same system
//   account: it keeps no balance row, so this must not serialise);
// - hot wallet: random wallets all paying into one wallet (one row every transfer locks).
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import pg from 'pg';
import { openDatabase, type Database } from '../src/platform/database/database.js';
import { migrate, readMigrations } from '../src/platform/database/migrate.js';
import { MIGRATIONS_DIR } from '../src/core.js';
import { LedgerService, type LedgerActionName, type TransferRequest } from '../src/modules/ledger/index.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const SECONDS = positiveIntEnv('BENCH_SECONDS', 10);
const WARMUP_SECONDS = positiveIntEnv('BENCH_WARMUP_SECONDS', 2);
const CLIENTS = positiveIntEnv('BENCH_CLIENTS', 32);
const WALLETS = positiveIntEnv('BENCH_WALLETS', 1_000);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const TARGET_PER_SECOND = 2_000;
/** The bench's own action: the ledger stores any well-formed name. */
const BENCH_ACTION = 'bench' as LedgerActionName;

interface Row {
  scenario: string;
  transfers: number;
  perSecond: number;
  p50: number;
  p95: number;
  refused: number;
}

type Make = (n: number) => TransferRequest;

async function setUp(db: Database): Promise<number[]> {
  await migrate(db, readMigrations(MIGRATIONS_DIR));
  const tag = randomBytes(3).toString('hex');
  const accounts = await db.query<{ id: number }>(
    `INSERT INTO "Account" (handle, "updatedAt") SELECT 'bench-${tag}-' || i, now() FROM generate_series(1, $1::int) AS i RETURNING id`,
    [WALLETS],
  );
  const ids = accounts.map((a) => a.id);
  const ledger = new LedgerService(db);
  // Every wallet starts with a million credits: no transfer below is refused for funds.
  for (let i = 0; i < ids.length; i += 100) {
    await ledger.transferLinked(ids.slice(i, i + 100).map((account) => ({ id: `seed-${tag}-${account}`, currency: 'credits', from: { system: 'grants' }, to: { account }, amount: 1_000_000 * 10_000, action: 'grant' })));
  }
  return ids;
}

async function run(ledger: LedgerService, scenario: string, make: Make, yieldEach: boolean): Promise<Row> {
  const run = `${scenario.split(':')[0]!.replace(/\W+/g, '-')}-${randomBytes(4).toString('hex')}`;
  let n = 0;
  let refused = 0;
  let measuring = false;
  let stop = false;
  const latencies: number[] = [];
  const client = async () => {
    while (!stop) {
      const started = performance.now();
      try {
        await ledger.transfer({ ...make(n++), id: `${run}-${n}` });
      } catch (error) {
        if (refused++ === 0) console.error(`${scenario}: ${(error as Error).message}`);
      }
      if (measuring) latencies.push(performance.now() - started);
      // PGlite answers without I/O (its promises settle as microtasks): let timers run.
      if (yieldEach) await new Promise((r) => setImmediate(r));
    }
  };
  const clients = Array.from({ length: CLIENTS }, client);
  await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
  measuring = true;
  const started = performance.now();
  await new Promise((r) => setTimeout(r, SECONDS * 1000));
  measuring = false;
  const elapsed = (performance.now() - started) / 1000;
  stop = true;
  await Promise.all(clients);
  latencies.sort((a, b) => a - b);
  return {
    scenario,
    transfers: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p95: latencies[Math.floor(latencies.length * 0.95)] ?? 0,
    refused,
  };
}

async function measure(label: string, db: Database): Promise<Row[]> {
  const wallets = await setUp(db);
  const ledger = new LedgerService(db);
  const pick = () => wallets[Math.floor(Math.random() * wallets.length)]!;
  const hot = wallets[0]!;
  const scenarios: Array<[string, Make]> = [
    [
      `spread: wallet to wallet over ${WALLETS.toLocaleString('en')} wallets`,
      () => {
        const from = pick();
        let to = pick();
        if (to === from) to = wallets[(wallets.indexOf(from) + 1) % wallets.length]!;
        return { id: '', currency: 'credits', from: { account: from }, to: { account: to }, amount: 1 + Math.floor(Math.random() * 1000), action: BENCH_ACTION };
      },
    ],
    ['rewards: the rewards system account to random wallets', () => ({ id: '', currency: 'coins', from: { system: 'rewards' }, to: { account: pick() }, amount: 5000, action: 'reward:tagging' })],
    [
      'hot wallet: random wallets into one wallet',
      () => ({ id: '', currency: 'credits', from: { account: wallets[1 + Math.floor(Math.random() * (wallets.length - 1))]! }, to: { account: hot }, amount: 100, action: BENCH_ACTION }),
    ],
  ];
  const rows: Row[] = [];
  for (const [scenario, make] of scenarios) {
    const row = await run(ledger, scenario, make, db.kind === 'pglite');
    console.log(`${label}: ${scenario}: ${row.perSecond.toFixed(0)}/s, p50 ${row.p50.toFixed(2)} ms, p95 ${row.p95.toFixed(2)} ms, ${row.refused} refused`);
    rows.push(row);
  }
  // The invariant after the load: every currency sums to zero.
  for (const currency of ['coins', 'credits'] as const) {
    const sum = await ledger.trialBalance(currency);
    if (sum !== 0) throw new Error(`${label}: ${currency} sums to ${sum}, not 0`);
  }
  return rows;
}

async function main() {
  const name = `bench_ledger_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  let postgresRows: Row[];
  try {
    const db = await openDatabase({ databaseUrl: url.toString() });
    try {
      postgresRows = await measure('PostgreSQL', db);
    } finally {
      await db.close();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  let pgliteRows: Row[] = [];
  if (!process.env.BENCH_SKIP_PGLITE) {
    const lite = await openDatabase({});
    try {
      pgliteRows = await measure('PGlite', lite);
    } finally {
      await lite.close();
    }
  }

  const table = (rows: Row[]) =>
    ['| scenario | transfers | per second | p50 (ms) | p95 (ms) |', '| --- | ---: | ---: | ---: | ---: |', ...rows.map((r) => `| ${r.scenario} | ${r.transfers.toLocaleString('en')} | ${r.perSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} |`)].join('\n');
  const spread = postgresRows[0]!.perSecond;
  const section = `## Ledger transfers per second

- Date: ${new Date().toISOString()}
- Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}
- Command: \`npx tsx bench/ledger.bench.ts\` (${CLIENTS} concurrent callers of LedgerService.transfer, ${SECONDS} s per scenario after ${WARMUP_SECONDS} s warm-up, ${WALLETS.toLocaleString('en')} wallets; each transfer is one ledger_apply() statement, committed on its own)

PostgreSQL 15 (local server, synchronous_commit on, the service's pool of 10 connections):

${table(postgresRows)}

Spread over many wallets: ${spread.toFixed(0)} transfers/s against the target of ${TARGET_PER_SECOND.toLocaleString('en')}/s: **${spread >= TARGET_PER_SECOND ? 'PASS' : 'FAIL'}**.
Rewards all debit the one rewards account and still run at the spread rate: system accounts keep no balance row to lock.
The hot wallet is one row every transfer updates, so its transfers take turns on that row's lock.

Embedded PGlite (one connection, so statements run one at a time and its latencies are one statement's own time; reported, no target):

${pgliteRows.length ? table(pgliteRows) : '(skipped)'}

After each run every currency summed to zero over all ledger accounts.`;
  console.log(section);
  writeResultsSection('ledger', section);
}

await main();
