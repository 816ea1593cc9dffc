// Nearest image objects at scale: the banded blockhash index (src/modules/image-objects) with
// 1,000,000 objects on PostgreSQL and 100,000 on PGlite.
//
// Objects get uniformly random 256-bit blockhashes, made in SQL (two md5s of random numbers), so
// each 16-bit band value holds about N / 65,536 objects: real photographs' hashes are less even,
// which fills some band values more. The lookups go through ImageObjectsService.nearest, top 10:
//   - within 31 bits, the same-object distance (band radius 0, then 1 when fewer than 10 are found);
//   - within 47 bits, the farthest the search is exact at (radius 2 as well): what a larger
//     distance would cost;
// each for near copies (a stored hash with 0 to 32 bits flipped) and strangers (random hashes,
// near nothing: the worst case, every radius probed).
// Target (issue 11): top-10 lookup p95 under 20 ms on PostgreSQL at 1,000,000.
//
// Run: `npx tsx bench/image-objects.bench.ts` (IMAGE_OBJECTS_PG, default 1000000; IMAGE_OBJECTS_PGLITE,
// default 100000; IMAGE_OBJECTS_LOOKUPS, default 200 of each kind; DATABASE_SERVER, default the
// shared PostgreSQL). Writes its section of bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import type { Database } from '../src/platform/database/database.js';
import { ImageObjectsService, SAME_OBJECT_MAX_DISTANCE } from '../src/modules/image-objects/index.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { gitState, machine, percentile, table } from './faults/common.js';
import { onScratchPGlite, onScratchPostgres } from './scratch-databases.js';

const SERVER = process.env.DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const PG_OBJECTS = positiveIntEnv('IMAGE_OBJECTS_PG', 1_000_000);
const PGLITE_OBJECTS = positiveIntEnv('IMAGE_OBJECTS_PGLITE', 100_000);
const LOOKUPS = positiveIntEnv('IMAGE_OBJECTS_LOOKUPS', 200);
const BATCH = 100_000;

interface Lookups {
  within: number;
  near: number[];
  strangers: number[];
  nearFound: number;
}

interface Run {
  database: string;
  objects: number;
  loadSeconds: number;
  lookups: Lookups[];
}

/** The same-object distance (band radius 1), and the farthest a search is exact at (radius 2). */
const WITHIN = [SAME_OBJECT_MAX_DISTANCE, 47];

/** Random hashes and their bands, made by the database itself (fast at a million rows). */
async function load(db: Database, objects: number): Promise<number> {
  const started = performance.now();
  for (let from = 1; from <= objects; from += BATCH) {
    const to = Math.min(objects, from + BATCH - 1);
    await db.query(`
      INSERT INTO "ImageObject" (sha256, phash, blockhash, bytes, format, width, height)
      SELECT 'bench-' || n, '0000000000000000', md5(random()::text) || md5(random()::text), 100000, 'jpeg', 800, 600
        FROM generate_series(${from}, ${to}) n`);
  }
  await db.query('ANALYZE "ImageObject"');
  return (performance.now() - started) / 1000;
}

function flip(hash: string, bits: number): string {
  const value = BigInt(`0x${hash}`);
  let mask = 0n;
  const positions = new Set<number>();
  while (positions.size < bits) positions.add(Math.floor(Math.random() * 256));
  for (const position of positions) mask |= 1n << BigInt(position);
  return (value ^ mask).toString(16).padStart(64, '0');
}

async function measure(database: string, db: Database, objects: number): Promise<Run> {
  const loadSeconds = await load(db, objects);
  const service = new ImageObjectsService(db);
  const stored = await db.query<{ blockhash: string }>(`SELECT blockhash FROM "ImageObject" ORDER BY random() LIMIT ${LOOKUPS}`);
  const time = async (hash: string, within: number) => {
    const started = performance.now();
    const found = await service.nearest(hash, 10, within);
    return { ms: performance.now() - started, found: found.length };
  };
  for (let i = 0; i < 20; i++) await time(randomBytes(32).toString('hex'), SAME_OBJECT_MAX_DISTANCE); // warm-up
  const lookups: Lookups[] = [];
  for (const within of WITHIN) {
    const near: number[] = [];
    let nearFound = 0;
    for (const [i, row] of stored.entries()) {
      const result = await time(flip(row.blockhash, i % Math.min(33, within + 1)), within);
      near.push(result.ms);
      if (result.found > 0) nearFound++;
    }
    const strangers: number[] = [];
    for (let i = 0; i < LOOKUPS; i++) strangers.push((await time(randomBytes(32).toString('hex'), within)).ms);
    lookups.push({ within, near, strangers, nearFound });
  }
  return { database, objects, loadSeconds, lookups };
}

const runs = [
  await onScratchPostgres(SERVER, 'image_objects', (db) => measure('PostgreSQL', db, PG_OBJECTS)),
  await onScratchPGlite('image-objects', (db) => measure('PGlite', db, PGLITE_OBJECTS)),
];
const ms = (values: number[], p: number) => percentile(values, p).toFixed(1);
const rows = runs.flatMap((run) =>
  run.lookups.flatMap((l) => [
    [run.database, run.objects.toLocaleString('en-US'), `${l.within} bits`, `near copies (${l.nearFound}/${l.near.length} found)`, ms(l.near, 50), ms(l.near, 95), ms(l.near, 100)],
    [run.database, run.objects.toLocaleString('en-US'), `${l.within} bits`, 'strangers (none near)', ms(l.strangers, 50), ms(l.strangers, 95), ms(l.strangers, 100)],
  ]),
);
const p95 = (l: Lookups) => Math.max(percentile(l.near, 95), percentile(l.strangers, 95));
const [same, farthest] = runs[0]!.lookups as [Lookups, Lookups];
const verdict = `within ${same.within} bits (the same-object distance) ${p95(same).toFixed(1)} ms: **${p95(same) < 20 ? 'met' : 'not met'}**; within ${farthest.within} bits, for comparison, ${p95(farthest).toFixed(1)} ms`;
const markdown = [
  '## Image objects: nearest blockhashes',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${machine()}`,
  `- Code: ${gitState()}; PostgreSQL: the shared server; PGlite: a data folder of its own`,
  '- Command: `npx tsx bench/image-objects.bench.ts`',
  `- Data: uniformly random 256-bit blockhashes (loaded in ${runs.map((r) => `${r.loadSeconds.toFixed(0)} s on ${r.database}`).join(', ')}, GIN index of band tags included); ${LOOKUPS} lookups of each kind, one after the other, through ImageObjectsService.nearest`,
  '',
  table(['database', 'objects', 'top 10 within', 'lookups', 'p50 ms', 'p95 ms', 'max ms'], rows, ['l', 'r', 'l', 'l', 'r', 'r', 'r']),
  '',
  `Target: top-10 lookup p95 under 20 ms at ${runs[0]!.objects.toLocaleString('en-US')} objects on PostgreSQL (worse of near copies and strangers): ${verdict}.`,
].join('\n');
console.log(`\n${markdown}\n`);
writeResultsSection('image-objects', markdown);
