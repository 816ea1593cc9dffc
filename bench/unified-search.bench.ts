// Unified search latency at scale (POST /api/images/search's service, without the external
// tiers): 100,000 library items in the caller's account (and 50,000 of other accounts), 1,000,000
// image objects, 50,000 community items (1,000 of them the caller's) and 10,000 verified wiki
// photos of 500 subjects, on PostgreSQL in a scratch database.
//
// Rows are made in SQL (generate_series) with uniformly random hashes, plus PROBES real images
// (scene pictures, hashed by the upload processor) put into the caller's library, the image
// objects and the community library, so reverse queries find real near copies. Queries through
// SearchService.search, one after the other:
//   - text: words of the seeded vocabulary (common, two words, a prefix, rare, none);
//   - reverse: image_data of a resized, recompressed copy of a probe (decoding and hashing the
//     query image included), and of images near nothing. Keywords from the image are not taken
//     (the vision port answers "unavailable": its cost is vision's, docs/rest-api.md "Vision").
// Target: p95 under 50 ms for each kind.
//
// Run: `npm run bench:unified-search` (UNIFIED_LIBRARY, default 100000; UNIFIED_OBJECTS, default
// 1000000; UNIFIED_RUNS, default 200 per query; DATABASE_SERVER, default the shared PostgreSQL).
// Writes its section of bench/RESULTS.md.
import sharp from 'sharp';
import type { Database } from '../src/platform/database/database.js';
import { createLogger } from '../src/platform/logger.js';
import { Unavailable } from '../src/platform/errors.js';
import { UrlSigner } from '../src/platform/url-signer.js';
import { SafeFetcher } from '../src/platform/http/safe-fetch.js';
import { ImageObjectsService } from '../src/modules/image-objects/index.js';
import { processUpload } from '../src/modules/images/index.js';
import { AtlasService } from '../src/modules/wiki/index.js';
import { SearchService, StockSearchService } from '../src/modules/search/index.js';
import type { Actor } from '../src/modules/accounts/index.js';
import { SUB_KEY_SCOPES } from '../src/modules/api-keys/index.js';
import { scene } from '../test/helpers/images.js';
import { positiveIntEnv } from './env.js';
import { writeResultsSection } from './results.js';
import { gitState, machine, percentile, table } from './faults/common.js';
import { onScratchPostgres } from './scratch-databases.js';

const SERVER = process.env.DATABASE_SERVER ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const LIBRARY = positiveIntEnv('UNIFIED_LIBRARY', 100_000);
const OBJECTS = positiveIntEnv('UNIFIED_OBJECTS', 1_000_000);
const RUNS = positiveIntEnv('UNIFIED_RUNS', 200);
const OTHER_LIBRARY = Math.round(LIBRARY / 2);
const COMMUNITY = 50_000;
const OWN_COMMUNITY = 1_000;
const SUBJECTS = 500;
const WIKI_PHOTOS = 10_000;
const PROBES = 20;
const TARGET_MS = 50;
const BATCH = 100_000;

const WORDS = ['sunset', 'beach', 'harbour', 'mountain', 'forest', 'city', 'portrait', 'market', 'river', 'bridge', 'snow', 'desert', 'street', 'night', 'festival', 'garden', 'coffee', 'train', 'lake', 'castle'];
const words = `ARRAY[${WORDS.map((w) => `'${w}'`).join(',')}]`;
const pick = (salt: number, n = 'i') => `(${words})[1 + ((${n} * ${salt}) % ${WORDS.length})]`;
const randomHash = `md5(random()::text) || md5(random()::text)`;
const randomPhash = `substr(md5(random()::text), 1, 16)`;

export async function load(db: Database): Promise<{ seconds: number; caller: Actor; probes: Buffer[] }> {
  const started = performance.now();
  await db.query(`INSERT INTO "Account" ("handle", "updatedAt") SELECT 'bench-' || n, now() FROM generate_series(1, 101) n`);
  const [{ id: callerId }] = (await db.query<{ id: number }>(`SELECT "id" FROM "Account" WHERE "handle" = 'bench-1'`)) as [{ id: number }];
  for (let from = 1; from <= OBJECTS; from += BATCH) {
    await db.query(`
      INSERT INTO "ImageObject" ("sha256", "phash", "blockhash", "bytes", "format", "width", "height")
      SELECT 'bench-' || n, ${randomPhash}, ${randomHash}, 100000, 'jpeg', CASE WHEN n % 3 = 0 THEN 600 ELSE 800 END, CASE WHEN n % 3 = 0 THEN 800 ELSE 600 END
        FROM generate_series(${from}, ${Math.min(OBJECTS, from + BATCH - 1)}) n`);
  }
  // The caller's library, then other accounts': names, tags and captions from the vocabulary.
  const library = (account: string, count: number, offset: number) => `
    INSERT INTO "MediaItem" ("accountId", "name", "kind", "mime", "ext", "bytes", "width", "height", "format", "sha256", "phash", "blockhash",
      "caption", "tags", "tagText", "storageKey", "updatedAt")
    SELECT ${account}, ${pick(7, '(i / 4)')} || '-' || ${pick(13, '(i / 4)')} || '-' || i || '.jpg', 'image', 'image/jpeg', 'jpg', 100000 + i,
      CASE WHEN i % 3 = 0 THEN 1080 ELSE 1920 END, CASE WHEN i % 3 = 0 THEN 1920 ELSE 1080 END, 'jpeg', md5(i::text), ${randomPhash}, ${randomHash},
      'A photo of a ' || ${pick(17)} || ' near the ' || ${pick(19)}, ARRAY[${pick(3)}, ${pick(11)}], ${pick(3)} || ' ' || ${pick(11)}, 'media/' || i || '.jpg', now()
    FROM generate_series(${offset + 1}, ${offset + count}) AS i`;
  // In slices: each row feeds three GIN indexes, and one statement must finish within the pool's query timeout.
  const SLICE = 10_000;
  for (let from = 0; from < LIBRARY; from += SLICE) await db.query(library(String(callerId), Math.min(SLICE, LIBRARY - from), from));
  for (let from = 0; from < OTHER_LIBRARY; from += SLICE) {
    await db.query(library(`(SELECT "id" FROM "Account" WHERE "handle" = 'bench-' || (2 + i % 100))`, Math.min(SLICE, OTHER_LIBRARY - from), LIBRARY + from));
  }
  // Community items on the first objects: the caller's first, then 99 other accounts'; half verified.
  await db.query(`
    INSERT INTO "CommunityItem" ("accountId", "objectId", "name", "tags", "labels", "verified", "storageKey", "mime", "width", "height")
    SELECT CASE WHEN i <= ${OWN_COMMUNITY} THEN ${callerId} ELSE (SELECT "id" FROM "Account" WHERE "handle" = 'bench-' || (2 + i % 99)) END,
      i, ${pick(23)} || ' ' || i, ARRAY[${pick(3)}, ${pick(29)}], ARRAY[${pick(31)}], i % 2 = 0, 'community/' || i || '.jpg', 'image/jpeg',
      CASE WHEN i % 3 = 0 THEN 600 ELSE 800 END, CASE WHEN i % 3 = 0 THEN 800 ELSE 600 END
    FROM generate_series(1, ${COMMUNITY}) AS i`);
  await db.query(`
    INSERT INTO "WikiSubject" ("slug", "name", "category", "description", "status", "accountId")
    SELECT 'subject-' || i, initcap(${pick(7)}) || ' ' || initcap(${pick(37)}) || ' ' || i, 'landmark', 'The ' || ${pick(41)}, 'approved', ${callerId}
    FROM generate_series(1, ${SUBJECTS}) AS i`);
  await db.query(`
    INSERT INTO "WikiMedia" ("subjectId", "accountId", "objectId", "photoType", "storageKey", "mime", "width", "height", "labels", "status", "confidence", "decidedAt")
    SELECT (SELECT "id" FROM "WikiSubject" WHERE "slug" = 'subject-' || (1 + i % ${SUBJECTS})), ${callerId}, ${COMMUNITY} + i, 'general', 'wiki/' || i || '.jpg', 'image/jpeg', 800, 600,
      ARRAY[${pick(43)}], 'verified', 0.5 + (i % 50) / 100.0, now()
    FROM generate_series(1, ${WIKI_PHOTOS}) AS i`);
  // Real pictures: in the caller's library, as image objects with another account's community item.
  const probes = await Promise.all(Array.from({ length: PROBES }, (_, i) => scene(50_000 + i)));
  for (const [i, body] of probes.entries()) {
    const p = await processUpload(body, { maxBytes: 50_000_000, maxPixels: 50_000_000 });
    await db.query(
      `INSERT INTO "MediaItem" ("accountId", "name", "kind", "mime", "ext", "bytes", "width", "height", "format", "sha256", "phash", "blockhash", "storageKey", "updatedAt")
       VALUES ($1, $2, 'image', 'image/jpeg', 'jpg', $3, $4, $5, 'jpeg', $6, $7, $8, $9, now())`,
      [callerId, `probe-${i}.jpg`, p.bytes, p.width, p.height, p.sha256, p.phash, p.blockhash, `media/probe-${i}.jpg`],
    );
    const [object] = await db.query<{ id: number }>(
      `INSERT INTO "ImageObject" ("sha256", "phash", "blockhash", "bytes", "format", "width", "height") VALUES ($1, $2, $3, $4, 'jpeg', $5, $6) RETURNING "id"`,
      [p.sha256, p.phash, p.blockhash, p.bytes, p.width, p.height],
    );
    await db.query(
      `INSERT INTO "CommunityItem" ("accountId", "objectId", "name", "tags", "verified", "storageKey", "mime", "width", "height")
       VALUES ((SELECT "id" FROM "Account" WHERE "handle" = 'bench-50'), $1, $2, ARRAY['probe'], TRUE, $3, 'image/jpeg', $4, $5)`,
      [object!.id, `probe ${i}`, `community/probe-${i}.jpg`, p.width, p.height],
    );
  }
  await db.query('VACUUM ANALYZE');
  const caller: Actor = { accountId: callerId, handle: 'bench-1', tier: 'standard', keyId: 1, keyKind: 'master', scopes: new Set(SUB_KEY_SCOPES), requestBudget: null };
  return { seconds: (performance.now() - started) / 1000, caller, probes };
}

interface Measured {
  kind: string;
  query: string;
  found: number;
  ms: number[];
}

async function measure(db: Database) {
  const { seconds, caller, probes } = await load(db);
  const logger = createLogger('silent');
  const search = new SearchService({
    db,
    atlas: new AtlasService(db),
    imageObjects: new ImageObjectsService(db),
    // No external tiers: no stock library configured, no vision provider.
    stock: new StockSearchService([], { timeoutMs: 1_000 }),
    fetcher: new SafeFetcher(),
    signer: new UrlSigner('bench-signing-key-0123456789abcdef0123456789'),
    links: { community: (item) => `/community/${item.id}/public?sig=x`, wikiPhoto: (id) => `/wiki/photos/${id}?sig=x` },
    analyze: () => Promise.reject(new Unavailable('no vision provider in the benchmark')),
    limits: { maxBytes: 50_000_000, maxPixels: 50_000_000 },
    logger,
  });
  const copies = await Promise.all(probes.map((body) => sharp(body).resize(640).jpeg({ quality: 50 }).toBuffer()));
  const strangers = await Promise.all(Array.from({ length: PROBES }, (_, i) => scene(90_000 + i, 640, 480)));
  const kinds: Array<[string, string, (run: number) => Record<string, unknown>]> = [
    ['text', 'harbour (27,500 of the 100,000 library items match)', () => ({ query: 'harbour' })],
    ['text', 'sunset beach (two words)', () => ({ query: 'sunset beach' })],
    ['text', 'cas (a prefix)', () => ({ query: 'cas' })],
    ['text', 'harbour, portrait orientation', () => ({ query: 'harbour', orientation: 'portrait' })],
    ['text', 'harbour, limit 100', () => ({ query: 'harbour', limit: 100 })],
    ['text', 'glacier (no match)', () => ({ query: 'glacier' })],
    ['reverse', 'recompressed copy of a library and community image', (run) => ({ image_data: copies[run % copies.length]!.toString('base64') })],
    ['reverse', 'an image near nothing', (run) => ({ image_data: strangers[run % strangers.length]!.toString('base64') })],
  ];
  const results: Measured[] = [];
  for (const [kind, label, body] of kinds) {
    for (let i = 0; i < 10; i++) await search.search(caller, body(i), 'http://bench'); // warm-up
    const ms: number[] = [];
    let found = 0;
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const answer = await search.search(caller, body(run), 'http://bench');
      ms.push(performance.now() - started);
      if (run === 0) found = answer.images.length;
      if (kind === 'reverse' && label.startsWith('recompressed') && answer.images[0]?.source !== 'my_private_library') throw new Error(`reverse query ${run} did not find its library copy first`);
    }
    results.push({ kind, query: label, found, ms });
  }
  return { seconds, results };
}

const run = await onScratchPostgres(SERVER, 'unified_search', measure);
const fmt = (values: number[], p: number) => percentile(values, p).toFixed(1);
const rows = run.results.map((r) => [r.kind, r.query, r.found, fmt(r.ms, 50), fmt(r.ms, 95), fmt(r.ms, 100)]);
const worst = (kind: string) => Math.max(...run.results.filter((r) => r.kind === kind).map((r) => percentile(r.ms, 95)));
const verdict = (kind: string) => `${kind} ${worst(kind).toFixed(1)} ms: **${worst(kind) < TARGET_MS ? 'met' : 'not met'}**`;
const markdown = [
  '## Unified search: p95 without the external tiers',
  '',
  `- Date: ${new Date().toISOString()}`,
  `- Machine: ${machine()}`,
  `- Code: ${gitState()}; PostgreSQL: the shared server, a scratch database`,
  '- Command: `npm run bench:unified-search` (`npx tsx bench/unified-search.bench.ts`)',
  `- Data (loaded in ${run.seconds.toFixed(0)} s with generate_series): ${LIBRARY.toLocaleString('en-US')} library items of the caller and ${OTHER_LIBRARY.toLocaleString('en-US')} of 100 other accounts, ${OBJECTS.toLocaleString('en-US')} image objects (random hashes), ${COMMUNITY.toLocaleString('en-US')} community items (${OWN_COMMUNITY.toLocaleString('en-US')} the caller's, half verified), ${WIKI_PHOTOS.toLocaleString('en-US')} verified wiki photos of ${SUBJECTS} subjects; plus ${PROBES} real pictures in the caller's library and the community library`,
  `- ${RUNS} searches per query after 10 warm-up ones, one at a time, through SearchService.search with a master key (all three own tiers), limit 20 unless stated; reverse queries send image_data (a 640 px JPEG: decoding and hashing it is included) and take no keywords (vision is not part of this figure); no stock library configured`,
  '',
  table(['kind', 'query', 'results', 'p50 ms', 'p95 ms', 'max ms'], rows, ['l', 'l', 'r', 'r', 'r', 'r']),
  '',
  `Target: p95 under ${TARGET_MS} ms for text and for reverse (hash) queries: worst ${verdict('text')}; worst ${verdict('reverse')}.`,
].join('\n');
console.log(`\n${markdown}\n`);
writeResultsSection('unified-search', markdown);
