// What one database read costs this process's CPU, by the way it is made: a raw statement on the
// driver against the same read through Prisma (6.19, its query compiler and a driver adapter), on
// PGlite and on PostgreSQL. It explains the hot-path benchmark: a page of sub-keys or of media items
// is one or two Prisma reads, and each costs several times what its SQL costs.
//
// Each case runs OPS times from 20 concurrent callers after a warm-up; CPU is this process's user +
// system time (PostgreSQL's own runs in its server process and is not counted; PGlite's is).
// Run: `npx tsx bench/query-cost.bench.ts` (BENCH_DATABASE_URL, default the local test database;
// BENCH_OPS, default 2,000). Writes its section of bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import type { Database } from '../src/platform/database/database.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { gitState, machine, table } from './faults/common.js';
import { onScratchPGlite, onScratchPostgres } from './scratch-databases.js';

const OPS = positiveIntEnv('BENCH_OPS', 2_000);
const CALLERS = 20;
const SERVER = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';

interface Case {
  name: string;
  run: (db: Database, accountId: number) => Promise<unknown>;
  /** The raw case this one is the Prisma spelling of. */
  versus?: string;
}

const RAW_KEYS = 'five sub-keys of an account (raw)';
const RAW_COUNT = 'the count as SQL on the driver (raw)';

const CASES: Case[] = [
  { name: '`SELECT 1` (raw)', run: (db) => db.query('SELECT 1') },
  {
    name: RAW_KEYS,
    run: (db, accountId) => db.query('SELECT * FROM "ApiKey" WHERE "accountId" = $1 AND kind = $2 ORDER BY id DESC LIMIT 6', [accountId, 'sub']),
  },
  {
    name: 'the same through Prisma (`apiKey.findMany`)',
    run: (db, accountId) => db.prisma.apiKey.findMany({ where: { accountId, kind: 'sub' }, orderBy: { id: 'desc' }, take: 6 }),
    versus: RAW_KEYS,
  },
  {
    name: 'the account with them and their count (`account.findFirst` + include)',
    run: (db, accountId) =>
      db.prisma.account.findFirst({ where: { id: accountId }, include: { apiKeys: { where: { kind: 'sub' }, orderBy: { id: 'desc' }, take: 6 }, _count: { select: { apiKeys: true } } } }),
    versus: RAW_KEYS,
  },
  { name: RAW_COUNT, run: (db, accountId) => db.query('SELECT count(*) AS total FROM "ApiKey" WHERE "accountId" = $1', [accountId]) },
  { name: 'a count through Prisma (`apiKey.count`)', run: (db, accountId) => db.prisma.apiKey.count({ where: { accountId } }), versus: RAW_COUNT },
  {
    name: 'the count as SQL through Prisma (`$queryRaw`)',
    run: (db, accountId) => db.prisma.$queryRaw`SELECT count(*) AS total FROM "ApiKey" WHERE "accountId" = ${accountId}`,
    versus: RAW_COUNT,
  },
];

async function measure(db: Database, accountId: number, run: Case['run']): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < 200; i++) await run(db, accountId);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      for (let i = 0; i < OPS / CALLERS; i++) await run(db, accountId);
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { wallMs: (performance.now() - started) / OPS, cpuMs: (cpu.user + cpu.system) / 1000 / OPS };
}

async function seeded(db: Database): Promise<number> {
  const account = await db.prisma.account.create({ data: { handle: `bench-${randomBytes(3).toString('hex')}` } });
  for (let i = 0; i < 5; i++) {
    await db.prisma.apiKey.create({ data: { accountId: account.id, kind: 'sub', prefix: `sk_${randomBytes(5).toString('hex')}`, secretHash: randomBytes(32).toString('hex'), scopes: ['media'] } });
  }
  return account.id;
}

const onPostgres = <T>(fn: (db: Database) => Promise<T>) => onScratchPostgres(SERVER, 'query_cost', fn);
const onPGlite = <T>(fn: (db: Database) => Promise<T>) => onScratchPGlite('query-cost', fn);

const rows: Array<Array<string | number>> = [];
for (const [label, open] of [
  ['PostgreSQL', onPostgres],
  ['PGlite', onPGlite],
] as const) {
  await open(async (db) => {
    const accountId = await seeded(db);
    const cpuOf = new Map<string, number>();
    for (const c of CASES) {
      const { wallMs, cpuMs } = await measure(db, accountId, c.run);
      cpuOf.set(c.name, cpuMs);
      const raw = c.versus ? cpuOf.get(c.versus) : undefined;
      rows.push([label, c.name, cpuMs.toFixed(3), wallMs.toFixed(3), raw ? `${(cpuMs / raw).toFixed(1)}×` : '']);
    }
  });
}

const markdown = [
  '## Query cost: a raw statement against the same read through Prisma',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${machine()}`,
  `- Code: ${gitState()}; Prisma 6.19 (query compiler, driver adapters), ${OPS.toLocaleString('en-US')} reads per case from ${CALLERS} concurrent callers after 200 warm-up reads`,
  '- Command: `npx tsx bench/query-cost.bench.ts`',
  '',
  table(['database', 'read', 'CPU ms per read', 'wall ms per read', 'CPU vs the same read raw'], rows, ['l', 'l', 'r', 'r', 'r']),
  '',
  'CPU is this process\'s own (a PostgreSQL server\'s work is in its own process; PGlite\'s runs here). Prisma 6 compiles every query again in WebAssembly on the calling thread; Prisma 7.4 and later cache the compiled plan by query shape.',
].join('\n');
console.log(`\n${markdown}\n`);
writeResultsSection('query-cost', markdown);
