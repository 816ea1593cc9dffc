// Library search at 100,000 items: p50/p95 of GET /api/media/search-style queries through
// MediaService.search, on PostgreSQL (target p95 < 50 ms) and on embedded PGlite (reported).
// Run: npx tsx bench/search.bench.ts   (BENCH_ITEMS, BENCH_RUNS; PostgreSQL from BENCH_DATABASE_URL,
// default postgresql://postgres@127.0.0.1:5432/test, in a fresh database dropped afterwards;
// BENCH_SKIP_PGLITE=1 measures PostgreSQL only; BENCH_WRITE=0 leaves RESULTS.md alone)
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import pg from 'pg';
import { openDatabase, type Database } from '../src/platform/database/database.js';
import { migrate, readMigrations } from '../src/platform/database/migrate.js';
import { MIGRATIONS_DIR } from '../src/core.js';
import { MediaService } from '../src/modules/media/media.service.js';
import type { Actor } from '../src/modules/accounts/actor.js';
import { SUB_KEY_SCOPES } from '../src/modules/api-keys/scopes.js';
import type { BlobStore } from '../src/platform/storage/blob-store.js';
import { writeResultsSection } from './results.js';
import { positiveIntEnv } from './env.js';

const ITEMS = positiveIntEnv('BENCH_ITEMS', 100_000);
const RUNS = positiveIntEnv('BENCH_RUNS', 200);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test';
const TARGET_P95_MS = 50;

const WORDS = ['sunset', 'beach', 'harbour', 'mountain', 'forest', 'city', 'portrait', 'market', 'river', 'bridge', 'snow', 'desert', 'street', 'night', 'festival', 'garden', 'coffee', 'train', 'lake', 'castle'];

/**
 * Seeds in SQL (generate_series): captions from the word list, tags, colours, groups, and names in
 * four styles, a quarter each: words (`sunset beach 17`), a hyphenated file name
 * (`sunset-beach-17.jpg`), a camera file name (`IMG_17.jpg`) and a camelCase one (`SunsetBeach17.png`).
 */
async function seed(db: Database, accountId: number): Promise<void> {
  const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
  const pick = (salt: number, n = 'i') => `(${words})[1 + ((${n} * ${salt}) % ${WORDS.length})]`;
  const [w1, w2] = [pick(7, '(i / 4)'), pick(13, '(i / 4)')];
  const name = `CASE i % 4
      WHEN 0 THEN ${w1} || ' ' || ${w2} || ' ' || i
      WHEN 1 THEN ${w1} || '-' || ${w2} || '-' || i || '.jpg'
      WHEN 2 THEN 'IMG_' || i || '.jpg'
      ELSE initcap(${w1}) || initcap(${w2}) || i || '.png' END`;
  await db.query(`
    INSERT INTO "MediaItem" ("accountId", "name", "group", "kind", "mime", "ext", "bytes", "width", "height", "format", "sha256",
      "dominantHex", "colourL", "colourA", "colourB", "caption", "tags", "tagText", "storageKey", "updatedAt")
    SELECT ${accountId}, ${name}, 'album-' || (i % 50), 'image', 'image/jpeg', 'jpg', 100000 + i, 1920, 1080, 'jpeg',
      md5(i::text), '#336699', (i % 100)::float, ((i * 37) % 256 - 128)::float, ((i * 91) % 256 - 128)::float,
      'A photo of a ' || ${pick(17)} || ' near the ' || ${pick(19)}, ARRAY[${pick(3)}, ${pick(11)}], ${pick(3)} || ' ' || ${pick(11)},
      'media/' || i || '.jpg', now()
    FROM generate_series(1, ${ITEMS}) AS i`);
  // The state autovacuum keeps a live table in: statistics fresh, visibility map set (so counts can
  // use index-only scans).
  await db.query('VACUUM ANALYZE "MediaItem"');
}

/** Five hundred characters of words and tsquery operators. */
const SOUP = "ab&|!():*'\"-  ü漢";
const HOSTILE = Array.from({ length: 500 }, (_, i) => SOUP[i % SOUP.length]).join('');

const QUERIES: Array<[string, Record<string, unknown>]> = [
  ['text q=sunset', { q: 'sunset' }],
  ['text q=harbour bridge', { q: 'harbour bridge' }],
  ['word in file names q=beach', { q: 'beach' }],
  ['prefix q=sun (last word)', { q: 'sun' }],
  ['prefix q=ca (last word)', { q: 'ca' }],
  ['prefix q=cas* bri*', { q: 'cas* bri*' }],
  ['file name q=IMG_1234', { q: 'IMG_1234' }],
  ['number in file names q=1234', { q: '1234' }],
  ['camelCase name q=marketnight', { q: 'marketnight' }],
  ['every camera name q=img', { q: 'img' }],
  ['500-character operator soup', { q: HOSTILE }],
  ['tag=forest', { tag: 'forest' }],
  ['group=album-7', { group: 'album-7' }],
  ['color=#3366cc', { color: '#3366cc' }],
  ['q + tag + color', { q: 'night', tag: 'city', color: '#202040' }],
  ['list page 100 (offset 5000)', { limit: 50, offset: 5000 }],
];

async function measure(label: string, db: Database): Promise<Array<{ query: string; p50: number; p95: number; total: number }>> {
  const [account] = await db.query<{ id: number }>(`INSERT INTO "Account" (handle, "updatedAt") VALUES ('bench-${randomBytes(3).toString('hex')}', now()) RETURNING id`);
  const started = Date.now();
  await seed(db, account!.id);
  console.log(`${label}: seeded ${ITEMS} items in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const media = new MediaService(db, {} as BlobStore, { maxBytes: 1, maxPixels: 1 });
  const actor: Actor = { accountId: account!.id, handle: 'bench', tier: 'standard', keyId: 0, keyKind: 'master', scopes: new Set(SUB_KEY_SCOPES), requestBudget: null };
  const rows = [];
  for (const [query, filters] of QUERIES) {
    for (let i = 0; i < 10; i++) await media.search(actor, filters); // warm-up
    const times: number[] = [];
    let total = 0;
    for (let i = 0; i < RUNS; i++) {
      const t0 = process.hrtime.bigint();
      const page = await media.search(actor, filters);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      total = page.total;
    }
    times.sort((a, b) => a - b);
    rows.push({ query, p50: times[Math.floor(RUNS * 0.5)]!, p95: times[Math.floor(RUNS * 0.95)]!, total });
  }
  return rows;
}

async function main() {
  const loadAtStart = loadavg()[0]!;
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  let postgresRows;
  try {
    const pgDb = await openDatabase({ databaseUrl: url.toString() });
    await migrate(pgDb, readMigrations(MIGRATIONS_DIR));
    postgresRows = await measure('PostgreSQL', pgDb);
    await pgDb.close();
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
  let pgliteRows: typeof postgresRows = [];
  if (!process.env.BENCH_SKIP_PGLITE) {
    const lite = await openDatabase({});
    await migrate(lite, readMigrations(MIGRATIONS_DIR));
    pgliteRows = await measure('PGlite', lite);
    await lite.close();
  }

  const table = (rows: typeof postgresRows) => rows.map((r) => `| ${r.query} | ${r.total} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} |`).join('\n');
  const worst = Math.max(...postgresRows.map((r) => r.p95));
  const section = `## Media library search at ${ITEMS.toLocaleString('en')} items

- Date: ${new Date().toISOString()}
- Machine: ${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}, Node ${process.version}; 1-minute load average ${loadAtStart.toFixed(2)} at the start, ${loadavg()[0]!.toFixed(2)} at the end (other work on the machine shows here)
- Command: \`npx tsx bench/search.bench.ts\` (${RUNS} runs per query after 10 warm-up runs; MediaService.search in process, 50 results a page)
- Items: names a quarter each in words (\`sunset beach 17\`), hyphenated (\`sunset-beach-17.jpg\`), camera (\`IMG_17.jpg\`) and camelCase (\`SunsetBeach17.png\`) style; two tags and a caption each. Queries follow the media search's word and prefix rules (docs/rest-api.md "Media library") (the last word is a prefix)

PostgreSQL 15 (local server):

| query | matches | p50 (ms) | p95 (ms) |
| --- | ---: | ---: | ---: |
${table(postgresRows)}

Worst p95 ${worst.toFixed(2)} ms against the target of ${TARGET_P95_MS} ms: **${worst < TARGET_P95_MS ? 'PASS' : 'FAIL'}**.

Embedded PGlite (reported, no target):

| query | matches | p50 (ms) | p95 (ms) |
| --- | ---: | ---: | ---: |
${table(pgliteRows)}`;
  console.log(section);
  writeResultsSection('search', section);
}

await main();
