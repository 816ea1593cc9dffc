// Library search finds words: inside file-like names (sunset-beach.jpg, IMG_1234.jpg,
// SunsetBeach2024.png), by prefix, in tags, caption and extracted text with the name weighing
// most; and no query, however hostile, makes it fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { form, photo } from '../helpers/images.js';
import { openDatabase } from '../../src/platform/database/database.js';
import { migrate, readMigrations } from '../../src/platform/database/migrate.js';
import { MIGRATIONS_DIR } from '../../src/core.js';
import { MediaService } from '../../src/modules/media/media.service.js';
import type { Actor } from '../../src/modules/accounts/actor.js';
import { SUB_KEY_SCOPES } from '../../src/modules/api-keys/scopes.js';
import type { BlobStore } from '../../src/platform/storage/blob-store.js';

let t: TestApp;
let key: string;
let actor: Actor;
const ids: Record<string, number> = {};
let seed = 100;

/** Uploads under a file name and no `name` field: the item is named after its file. */
async function upload(filename: string, fields: Record<string, string> = {}): Promise<number> {
  const body = form({ body: await photo('#557799', { seed: seed++, width: 64, height: 48 }), name: filename, type: 'image/jpeg' }, fields);
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body });
  const json = await response.json();
  if (response.status !== 201) throw new Error(`upload ${filename}: ${response.status} ${JSON.stringify(json)}`);
  return json.media_id as number;
}

const search = (q: string, extra = '') => t.request('GET', `/api/media/search?q=${encodeURIComponent(q)}${extra}`, { key });
async function found(q: string): Promise<number[]> {
  const res = await search(q);
  expect(res.status, `q=${q}: ${res.text}`).toBe(200);
  return res.body.items.map((m: { id: number }) => m.id);
}

beforeAll(async () => {
  t = await startTestApp({ runWorkers: false });
  const account = await t.createAccount('words');
  key = account.key;
  actor = await t.app.services.auth.authenticate(key);
  for (const name of ['sunset-beach.jpg', 'IMG_1234.jpg', 'IMG_5678.jpg', 'SunsetBeach2024.png', 'sunset_hill.jpg', 'sun-hat.jpg', 'DSC01234.JPG']) {
    ids[name] = await upload(name);
  }
  // A multipart file name loses its folders; a name given as a field keeps them.
  ids['holiday/paris.eiffel.jpg'] = await upload('p0.jpg', { name: 'holiday/paris.eiffel.jpg' });
  ids.tagged = await upload('p1.jpg', { tags: JSON.stringify(['new-york', 'harbour']) });
  ids.captioned = await upload('p2.jpg');
  await t.request('PATCH', `/api/media/${ids.captioned}`, { key, body: { caption: 'Boats in the harbour, shot for Brighton_2019' } });
  ids.text = await upload('p3.jpg');
  // Extracted text comes from OCR (auto_tag); written directly here.
  await t.app.services.db.prisma.mediaItem.update({ where: { id: ids.text }, data: { extractedText: 'HARBOUR MASTER OFFICE. Ticket no. A-113' } });
  ids.named = await upload('harbour.jpg');
});
afterAll(() => t.stop());

describe('words inside file-like names', () => {
  it('finds hyphenated names by either word, and by both', async () => {
    for (const q of ['sunset', 'beach', 'sunset beach', 'sunset-beach', 'sunset-beach.jpg', 'Beach Sunset']) {
      expect(await found(q), q).toContain(ids['sunset-beach.jpg']);
    }
  });

  it('finds underscored camera names by the whole name, the number and the prefix', async () => {
    for (const q of ['IMG_1234', 'IMG_1234.jpg', '1234', 'img', 'IMG', 'img1234', 'img 1234']) {
      expect(await found(q), q).toContain(ids['IMG_1234.jpg']);
    }
    expect(await found('IMG_1234')).not.toContain(ids['IMG_5678.jpg']);
    expect(await found('img')).toEqual(expect.arrayContaining([ids['IMG_1234.jpg'], ids['IMG_5678.jpg']]));
  });

  it('finds camelCase and letters-and-digits names by their parts and whole', async () => {
    for (const q of ['sunsetbeach2024', 'SunsetBeach2024', 'SunsetBeach', 'sunset beach 2024', 'beach2024', '2024', 'png']) {
      expect(await found(q), q).toContain(ids['SunsetBeach2024.png']);
    }
    for (const q of ['DSC01234', 'dsc', '01234']) expect(await found(q), q).toContain(ids['DSC01234.JPG']);
  });

  it('finds words of paths and dotted names', async () => {
    for (const q of ['paris', 'eiffel', 'holiday', 'paris eiffel']) expect(await found(q), q).toContain(ids['holiday/paris.eiffel.jpg']);
  });

  it('stems English words', async () => {
    expect(await found('beaches')).toContain(ids['sunset-beach.jpg']);
    expect(await found('hills')).toContain(ids['sunset_hill.jpg']);
  });

  it('requires every word', async () => {
    expect(await found('sunset hill')).toEqual([ids['sunset_hill.jpg']]);
  });
});

describe('prefixes', () => {
  it('`word*` is a prefix anywhere in the query', async () => {
    expect(await found('sun*')).toEqual(expect.arrayContaining([ids['sunset-beach.jpg'], ids['SunsetBeach2024.png'], ids['sunset_hill.jpg'], ids['sun-hat.jpg']]));
    expect(await found('sun* hill')).toEqual([ids['sunset_hill.jpg']]);
    expect(await found('bea* sun*')).toEqual(expect.arrayContaining([ids['sunset-beach.jpg'], ids['SunsetBeach2024.png']]));
  });

  it('the last word is a prefix while it is being typed', async () => {
    expect(await found('sunse')).toContain(ids['sunset-beach.jpg']);
    expect(await found('sunset bea')).toEqual(expect.arrayContaining([ids['sunset-beach.jpg'], ids['SunsetBeach2024.png']]));
    expect(await found('IMG_12')).toEqual([ids['IMG_1234.jpg']]);
    expect(await found('holid')).toEqual([ids['holiday/paris.eiffel.jpg']]);
  });

  it('only the last word: earlier words are whole', async () => {
    expect(await found('sunse beach')).toEqual([]);
  });

  it('ranks items with the whole word before items where it is only a prefix', async () => {
    const res = await found('sun');
    expect(res[0]).toBe(ids['sun-hat.jpg']);
    expect(res).toEqual(expect.arrayContaining([ids['sunset-beach.jpg'], ids['sunset_hill.jpg']]));
  });

  it('a quoted last word, or a single character, is matched whole', async () => {
    expect(await found('"sun"')).toEqual([ids['sun-hat.jpg']]);
    expect(await found('"sunset beach"')).toEqual(expect.arrayContaining([ids['sunset-beach.jpg'], ids['SunsetBeach2024.png']]));
    expect(await found('"beach sunset"')).toEqual([]);
    expect(await found('h')).toEqual([]);
  });
});

describe('exclusions and either-or', () => {
  it('`-word` leaves out items with the word (whole, unless it ends in *)', async () => {
    const res = await found('sunset -beach');
    expect(res).toContain(ids['sunset_hill.jpg']);
    expect(res).not.toContain(ids['sunset-beach.jpg']);
    expect(await found('sun* -hi')).toContain(ids['sunset_hill.jpg']);
    expect(await found('sun* -hi*')).not.toContain(ids['sunset_hill.jpg']);
  });

  it('`or` finds either', async () => {
    expect(await found('hill or 5678')).toEqual(expect.arrayContaining([ids['sunset_hill.jpg'], ids['IMG_5678.jpg']]));
  });

  it('a query that requires no word finds nothing (only exclusions, only stop words)', async () => {
    for (const q of ['-beach', '-sunset -hill', 'the -beach', 'the', 'or']) {
      const res = await search(q);
      expect(res.status, q).toBe(200);
      expect(res.body.total, q).toBe(0);
    }
  });
});

describe('tags, caption and extracted text', () => {
  it('are searched with the same word rules', async () => {
    expect(await found('york')).toEqual([ids.tagged]);
    expect(await found('new york')).toEqual([ids.tagged]);
    expect(await found('brighton')).toEqual([ids.captioned]);
    expect(await found('2019')).toEqual([ids.captioned]);
    expect(await found('A-113')).toEqual([ids.text]);
    expect(await found('ticket')).toEqual([ids.text]);
  });

  it('keep their weights: name, then tags, then caption and extracted text', async () => {
    const res = await search('harbour');
    expect(res.body.total).toBe(4);
    const order = res.body.items.map((m: { id: number }) => m.id);
    expect(order.slice(0, 2)).toEqual([ids.named, ids.tagged]);
    expect(order.slice(2).sort()).toEqual([ids.captioned, ids.text].sort());
  });

  it('still combine with the filters', async () => {
    expect((await search('harbour', '&tag=new-york')).body.items.map((m: { id: number }) => m.id)).toEqual([ids.tagged]);
    expect((await search('sunset', '&type=video')).body.total).toBe(0);
  });

  it('follow a rename', async () => {
    const id = await upload('renamed-before.jpg');
    await t.request('PATCH', `/api/media/${id}`, { key, body: { name: 'Kayak_trip.jpg' } });
    expect(await found('kayak')).toEqual([id]);
    expect(await found('renamed')).toEqual([]);
  });
});

const HOSTILE = [
  "'", "''", '"', '""', '\\', '&', '|', '!', '!!', '(', ')', '()', ':*', '*', ':', '-', '--', '<->', '<2>', '&|!():*',
  "'sunset'", "sunset'", 'sunset & beach', 'sunset | ', 'sunset:*', 'sun:*', '!sunset', '(sunset', 'sunset)', 'sunset <-> beach',
  'sunset:A', "' & '", "O'Brien", 'or or', 'OR', '- sunset', 'sunset -', '-(', '"unterminated', 'a"b"c', '***',
  "'; DROP TABLE \"MediaItem\"; --", '%', '_', '%_%', '$1', '\\x00', 'e\u0301', 'café', '日本語の写真', '🌅🏖️', 'שלום', '\u200b\u200d', '٣٤٥', 'Ⅻ ½ ²',
  'a '.repeat(250).trim(), 'x'.repeat(500), '*'.repeat(500), '& '.repeat(250).trim(), "'".repeat(500), 'é'.repeat(500), '𠀀'.repeat(250), '(sunset '.repeat(62),
  Array.from({ length: 500 }, (_, i) => "ab&|!():*'\"-  ü漢"[i % 16]).join(''),
];

describe('hostile queries', () => {
  it('never fail: every one is answered 200 over REST', async () => {
    for (const q of HOSTILE) {
      const res = await search(q);
      expect(res.status, `q=${JSON.stringify(q)}: ${res.text}`).toBe(200);
      expect(res.body.success).toBe(true);
      expect(res.body.query).toBe(q.trim());
    }
  });

  it('find what their words say', async () => {
    for (const q of ["'sunset'", 'sunset & beach', 'sunset:*', '(sunset', 'sunset)', 'sunset <-> beach', '!sunset', '"sunset-beach.jpg"']) {
      expect(await found(q), q).toContain(ids['sunset-beach.jpg']);
    }
  });

  it('never fail through GraphQL either', async () => {
    for (const q of HOSTILE.slice(0, 20)) {
      const res = await t.graphql('query ($q: String) { mediaSearch(q: $q) { __typename ... on QueryMediaSearchSuccess { data { total } } } }', { q }, { key });
      expect(res.body.errors, JSON.stringify(q)).toBeUndefined();
      expect(res.body.data.mediaSearch.__typename).toBe('QueryMediaSearchSuccess');
    }
  });

  it('never fail for random mixes of words and operators', async () => {
    const alphabet = ["sun", 'beach', 'IMG', '1234', 'the', 'or', 'OR', ' ', ' ', '-', '"', "'", '&', '|', '!', '(', ')', ':', '*', '<', '>', '\\', 'é', '_', '.', 'x', '2'];
    let state = 12345;
    const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 300; i++) {
      const q = Array.from({ length: 1 + (next() % 12) }, () => alphabet[next() % alphabet.length]).join('');
      await expect(t.app.services.media.search(actor, { q }), JSON.stringify(q)).resolves.toHaveProperty('total');
    }
  });

  it('refuses a NUL character at the door, as in every string of the API (the search itself would read it as a word break)', async () => {
    const res = await search('sunset\u0000beach');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^q: /);
    await expect(t.app.services.media.search(actor, { q: 'sunset\u0000beach' })).resolves.toHaveProperty('total');
  });

  it('refuses over 500 characters with a 400 naming q', async () => {
    const res = await search('x'.repeat(501));
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^q: /);
  });
});

describe('the migration', () => {
  it('gives rows stored before it the new behaviour', async () => {
    const database = await createTestDatabase();
    const db = await openDatabase({ databaseUrl: database.url, empty: true });
    try {
      const migrations = readMigrations(MIGRATIONS_DIR);
      const at = migrations.findIndex((m) => m.name.endsWith('_search_words'));
      expect(at).toBeGreaterThan(0);
      await migrate(db, migrations.slice(0, at));
      const [account] = await db.query<{ id: number }>(`INSERT INTO "Account" (handle, "updatedAt") VALUES ('before', now()) RETURNING id`);
      await db.query(
        `INSERT INTO "MediaItem" ("accountId", "name", "kind", "mime", "ext", "bytes", "sha256", "tags", "tagText", "storageKey", "updatedAt")
         VALUES ($1, 'sunset-beach.jpg', 'image', 'image/jpeg', 'jpg', 1, 'x', ARRAY['new-york'], 'new-york', 'k', now())`,
        [account!.id],
      );
      const media = new MediaService(db, {} as BlobStore, { maxBytes: 1, maxPixels: 1 });
      const old: Actor = { accountId: account!.id, handle: 'before', tier: 'standard', keyId: 0, keyKind: 'master', scopes: new Set(SUB_KEY_SCOPES), requestBudget: null };
      await migrate(db, migrations);
      for (const q of ['sunset', 'beach', 'york']) expect((await media.search(old, { q })).total, q).toBe(1);
    } finally {
      await db.close();
      await database.drop();
    }
  });
});

describe('the relay connection', () => {
  it('takes the search filters of mediaSearch (q, tag, type) and answers the same items', async () => {
    const query = 'query ($q: String, $tag: String, $type: MediaKind) { mediaConnection(q: $q, tag: $tag, type: $type, first: 50) { edges { node { databaseId } } } }';
    for (const [variables, rest] of [
      [{ q: 'sunset' }, 'q=sunset'],
      [{ tag: 'harbour' }, 'tag=harbour'],
      [{ q: 'harbour', type: 'image' }, 'q=harbour&type=image'],
    ] as const) {
      const res = await t.graphql(query, variables, { key });
      expect(res.body.errors, JSON.stringify(variables)).toBeUndefined();
      const listed = res.body.data.mediaConnection.edges.map((e: { node: { databaseId: number } }) => e.node.databaseId);
      const searched = (await t.request('GET', `/api/media/search?${rest}`, { key })).body.items.map((m: { id: number }) => m.id);
      expect(listed, rest).toEqual(searched);
      expect(listed.length, rest).toBeGreaterThan(0);
    }
  });
});
