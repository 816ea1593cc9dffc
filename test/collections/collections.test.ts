// Collections over REST and GraphQL: create, list, get with items (signed URLs), add items (all or
// nothing), delete, share (tokens, passwords, replacement, turning off); ownership everywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { countPrismaCalls } from '../helpers/prisma-calls.js';
import { form, photo } from '../helpers/images.js';

let t: TestApp;
let seed = 100;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function upload(key: string, name = `photo-${seed}.jpg`): Promise<number> {
  const body = form({ body: await photo('#3366cc', { seed: ++seed, width: 320, height: 240 }), name, type: 'image/jpeg' }, { name });
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body });
  const json = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(json)}`);
  return json.media_id as number;
}

async function createCollection(key: string, body: Record<string, unknown> = { name: 'Trip' }) {
  const res = await t.request('POST', '/api/media/collections', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.collection_id as number;
}

describe('POST /api/media/collections', () => {
  it('creates a collection and answers its fields with defaults', async () => {
    const res = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: '  Summer 2026 ', description: 'Best of the coast' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['success', 'collection_id', 'name', 'description', 'item_count', 'shared', 'password_protected', 'share_url', 'share_link', 'created_at', 'updated_at']);
    expect(res.body).toMatchObject({ success: true, name: 'Summer 2026', description: 'Best of the coast', item_count: 0, shared: false, password_protected: false, share_url: null, share_link: null });
    expect(res.body.collection_id).toEqual(expect.any(Number));
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);

    const bare = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: 'No description' } });
    expect(bare.body.description).toBeNull();
  });

  it('answers 400 naming the field when name is missing, empty, too long or description is not a string', async () => {
    for (const body of [{}, { name: '   ' }, { description: 'x' }]) {
      const res = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ success: false, error: 'name is required: the collection name' });
    }
    const long = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: 'x'.repeat(201) } });
    expect(long.status).toBe(400);
    expect(long.body.error).toBe('name: expected at most 200 characters');
    const typed = await t.request('POST', '/api/media/collections', { key: t.ownerKey, body: { name: 'ok', description: 5 } });
    expect(typed.status).toBe(400);
    expect(typed.body.error).toBe('description: expected a string');
  });
});

describe('GET /api/media/collections', () => {
  it("lists only the caller's collections, newest first, with paging", async () => {
    const alice = await t.createAccount('col-list');
    const other = await t.createAccount('col-list-other');
    const first = await createCollection(alice.key, { name: 'first' });
    const second = await createCollection(alice.key, { name: 'second' });
    await createCollection(other.key, { name: 'not yours' });
    const res = await t.request('GET', '/api/media/collections', { key: alice.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'collections', 'total', 'next_cursor']);
    expect(res.body.total).toBe(2);
    expect(res.body.collections.map((c: { id: number }) => c.id)).toEqual([second, first]);
    expect(Object.keys(res.body.collections[0])).toEqual(['id', 'name', 'description', 'item_count', 'shared', 'password_protected', 'share_url', 'share_link', 'created_at', 'updated_at']);

    const page1 = await t.request('GET', '/api/media/collections?limit=1', { key: alice.key });
    expect(page1.body.collections.map((c: { id: number }) => c.id)).toEqual([second]);
    const page2 = await t.request('GET', `/api/media/collections?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`, { key: alice.key });
    expect(page2.body.collections.map((c: { id: number }) => c.id)).toEqual([first]);
    expect(page2.body.next_cursor).toBeNull();
    // An empty cursor is the first page.
    const blank = await t.request('GET', '/api/media/collections?limit=1&cursor=', { key: alice.key });
    expect(blank.body.collections.map((c: { id: number }) => c.id)).toEqual([second]);

    for (const [query, error] of [
      ['limit=abc', 'limit: expected an integer'],
      ['limit=0', 'limit: expected an integer from 1 to 200'],
      ['limit=201', 'limit: expected an integer from 1 to 200'],
      ['cursor=garbage', 'cursor: expected a cursor this list gave out (next_cursor, or the endCursor of a page)'],
    ]) {
      const bad = await t.request('GET', `/api/media/collections?${query}`, { key: alice.key });
      expect(bad.status, query).toBe(400);
      expect(bad.body.error).toBe(error);
    }
  });
});

describe('collection items', () => {
  it('adds items, skips ones already in, and shows them as the library does with signed URLs', async () => {
    const account = await t.createAccount('col-items');
    const [a, b, c] = [await upload(account.key, 'a.jpg'), await upload(account.key, 'b.jpg'), await upload(account.key, 'c.jpg')];
    const id = await createCollection(account.key);

    const added = await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: [b, a, b] } });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ success: true, collection_id: id, added: 2, already_in: 0, item_count: 2 });
    const again = await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: [a, c] } });
    expect(again.body).toEqual({ success: true, collection_id: id, added: 1, already_in: 1, item_count: 3 });

    const res = await t.request('GET', `/api/media/collections/${id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).slice(0, 5)).toEqual(['success', 'collection_id', 'name', 'description', 'item_count']);
    expect(res.body.item_count).toBe(3);
    expect(res.body.next_cursor).toBeNull();
    // Collection order: in the order they were added.
    expect(res.body.items.map((i: { id: number }) => i.id)).toEqual([b, a, c]);
    const library = await t.request('GET', `/api/media/${a}`, { key: account.key });
    const item = res.body.items.find((i: { id: number }) => i.id === a);
    const { url: _u, thumbnail_url: _t, ...sameAsLibrary } = library.body.media ?? library.body;
    expect(item).toMatchObject(sameAsLibrary);
    expect(item.added_at).toEqual(expect.any(String));
    for (const i of res.body.items) {
      const original = await fetch(i.url);
      expect(original.status).toBe(200);
      expect(original.headers.get('content-type')).toMatch(/^image\//);
      const thumb = await fetch(i.thumbnail_url);
      expect(thumb.status).toBe(200);
      expect(thumb.headers.get('content-type')).toBe('image/webp');
    }

    const paged = await t.request('GET', `/api/media/collections/${id}?limit=2`, { key: account.key });
    expect(paged.body.items).toHaveLength(2);
    const rest = await t.request('GET', `/api/media/collections/${id}?limit=2&cursor=${encodeURIComponent(paged.body.next_cursor)}`, { key: account.key });
    expect(rest.body.items.map((i: { id: number }) => i.id)).toEqual([c]);
    const tooMany = await t.request('GET', `/api/media/collections/${id}?limit=501`, { key: account.key });
    expect(tooMany.body.error).toBe('limit: expected an integer from 1 to 500');
  });

  it('hides trashed items (and counts only the others) until they are restored', async () => {
    const account = await t.createAccount('col-trash');
    const [a, b] = [await upload(account.key), await upload(account.key)];
    const id = await createCollection(account.key);
    await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: [a, b] } });
    expect((await t.request('DELETE', `/api/media/${a}`, { key: account.key })).status).toBe(200);
    const res = await t.request('GET', `/api/media/collections/${id}`, { key: account.key });
    expect(res.body.item_count).toBe(1);
    expect(res.body.items.map((i: { id: number }) => i.id)).toEqual([b]);
    await t.request('POST', `/api/media/${a}/restore`, { key: account.key });
    expect((await t.request('GET', `/api/media/collections/${id}`, { key: account.key })).body.item_count).toBe(2);
  });

  it("refuses the whole request with 404 when one id is another account's, adding nothing", async () => {
    const alice = await t.createAccount('col-own-a');
    const bob = await t.createAccount('col-own-b');
    const mine = await upload(alice.key);
    const theirs = await upload(bob.key);
    const id = await createCollection(alice.key);
    const res = await t.request('POST', `/api/media/collections/${id}/items`, { key: alice.key, body: { media_ids: [mine, theirs] } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: `no media item ${theirs}` });
    const missing = await t.request('POST', `/api/media/collections/${id}/items`, { key: alice.key, body: { media_ids: [mine, 999_999] } });
    expect(missing.status).toBe(404);
    const after = await t.request('GET', `/api/media/collections/${id}`, { key: alice.key });
    expect(after.body.item_count).toBe(0);
    expect(after.body.items).toEqual([]);
    // Bob cannot add his own item to Alice's collection either.
    const foreign = await t.request('POST', `/api/media/collections/${id}/items`, { key: bob.key, body: { media_ids: [theirs] } });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe(`no collection ${id}`);
  });

  it('answers 400 naming media_ids when it is missing, empty or not an array of ids', async () => {
    const account = await t.createAccount('col-valid');
    const id = await createCollection(account.key);
    const cases: Array<[unknown, string]> = [
      [{}, 'media_ids is required: an array of media ids'],
      [{ media_ids: [] }, 'media_ids is required: an array of media ids'],
      [{ media_ids: 5 }, 'media_ids: expected an array of media ids'],
      [{ media_ids: [1, 'two'] }, 'media_ids.1: expected media ids (positive integers)'],
      [{ media_ids: [0] }, 'media_ids.0: expected media ids (positive integers)'],
    ];
    for (const [body, error] of cases) {
      const res = await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe(error);
    }
    // GraphQL callers meet the same schema and message.
    const graphql = await t.graphql(
      'mutation($id: Int!, $ids: [Int!]) { addCollectionItems(id: $id, mediaIds: $ids) { __typename ... on ServiceError { status message field } } }',
      { id, ids: [0] },
      { key: account.key },
    );
    expect(graphql.body.data.addCollectionItems).toEqual({ __typename: 'ServiceError', status: 400, message: 'media_ids.0: expected media ids (positive integers)', field: 'media_ids.0' });
  });
});

describe('GET and DELETE /api/media/collections/{id}', () => {
  it("answers 404 for another account's collection and 400 for a malformed id", async () => {
    const alice = await t.createAccount('col-get-a');
    const bob = await t.createAccount('col-get-b');
    const id = await createCollection(alice.key);
    for (const [method, path] of [
      ['GET', `/api/media/collections/${id}`],
      ['DELETE', `/api/media/collections/${id}`],
      ['POST', `/api/media/collections/${id}/share`],
    ] as const) {
      const res = await t.request(method, path, { key: bob.key, body: method === 'GET' ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ success: false, error: `no collection ${id}` });
    }
    const bad = await t.request('GET', '/api/media/collections/abc', { key: alice.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('id: expected an integer collection id');
  });

  it('deletes a collection; its media items stay in the library', async () => {
    const account = await t.createAccount('col-del');
    const media = await upload(account.key);
    const id = await createCollection(account.key);
    await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: [media] } });
    const res = await t.request('DELETE', `/api/media/collections/${id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: true, collection_id: id });
    expect((await t.request('GET', `/api/media/collections/${id}`, { key: account.key })).status).toBe(404);
    expect((await t.request('DELETE', `/api/media/collections/${id}`, { key: account.key })).status).toBe(404);
    expect((await t.request('GET', `/api/media/${media}`, { key: account.key })).status).toBe(200);
  });
});

describe('POST /api/media/collections/{id}/share', () => {
  it('shares publicly by default: a long random token and share_url /gallery/<token>', async () => {
    const account = await t.createAccount('col-share');
    const id = await createCollection(account.key, { name: 'Open' });
    const res = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: {} });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).slice(0, 3)).toEqual(['success', 'share_token', 'share_url']);
    expect(res.body.share_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(res.body).toMatchObject({ share_url: `/gallery/${res.body.share_token}`, share_link: `${t.url}/gallery/${res.body.share_token}`, shared: true, password_protected: false, collection_id: id });
    const page = await fetch(`${t.url}${res.body.share_url}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Open</h1>');
    const shown = await t.request('GET', `/api/media/collections/${id}`, { key: account.key });
    expect(shown.body).toMatchObject({ shared: true, password_protected: false, share_url: res.body.share_url });
  });

  it('stores only a salted scrypt hash of the password, never the password', async () => {
    const account = await t.createAccount('col-hash');
    const id = await createCollection(account.key);
    const password = 'correct horse battery staple';
    const first = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { public: false, password } });
    expect(first.body).toMatchObject({ shared: true, password_protected: true });
    const row = await t.app.services.db.prisma.collection.findUniqueOrThrow({ where: { id } });
    expect(row.sharePasswordHash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row.sharePublic).toBe(false);
    const everything = JSON.stringify(row);
    expect(everything).not.toContain(password);
    expect(everything).not.toContain(Buffer.from(password).toString('base64'));
    // The same password again: a fresh salt, so a different hash.
    await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { password } });
    const again = await t.app.services.db.prisma.collection.findUniqueOrThrow({ where: { id } });
    expect(again.sharePasswordHash).not.toBe(row.sharePasswordHash);
    // A password protects the link even with public: true.
    const shown = await t.request('GET', `/api/media/collections/${id}`, { key: account.key });
    expect(shown.body.password_protected).toBe(true);
  });

  it('replaces the token on every share: the old link stops working', async () => {
    const account = await t.createAccount('col-replace');
    const id = await createCollection(account.key);
    const first = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { public: true } });
    const second = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { public: true } });
    expect(second.body.share_token).not.toBe(first.body.share_token);
    expect((await fetch(`${t.url}${first.body.share_url}`)).status).toBe(404);
    expect((await fetch(`${t.url}${second.body.share_url}`)).status).toBe(200);
  });

  it('turns sharing off with public: false and no password', async () => {
    const account = await t.createAccount('col-off');
    const id = await createCollection(account.key);
    const shared = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { password: 'secret-1' } });
    const off = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { public: false } });
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ success: true, share_token: null, share_url: null, share_link: null, shared: false, password_protected: false, collection_id: id });
    expect((await fetch(`${t.url}${shared.body.share_url}`)).status).toBe(404);
    const row = await t.app.services.db.prisma.collection.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ shareToken: null, sharePasswordHash: null, sharePublic: false });
  });

  it('answers 400 naming public or password when they are malformed', async () => {
    const account = await t.createAccount('col-share-400');
    const id = await createCollection(account.key);
    const cases: Array<[unknown, string]> = [
      [{ public: 'maybe' }, 'public: expected true or false (or 1 or 0)'],
      [{ password: 1234 }, 'password: expected a string'],
      [{ password: 'abc' }, 'password: expected at least 4 characters'],
      [{ password: 'x'.repeat(201) }, 'password: expected at most 200 characters'],
    ];
    for (const [body, error] of cases) {
      const res = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe(error);
    }
    const row = await t.app.services.db.prisma.collection.findUniqueOrThrow({ where: { id } });
    expect(row.shareToken).toBeNull();
  });
});

describe('GraphQL', () => {
  it('finds only its own collections as nodes and answers refused mutations as ServiceError', async () => {
    const alice = await t.createAccount('col-gql-a');
    const bob = await t.createAccount('col-gql-b');
    const media = await upload(alice.key);
    const created = await t.graphql('mutation { createCollection(input: { name: "G" }) { __typename ... on MutationCreateCollectionSuccess { data { id databaseId } } } }', {}, { key: alice.key });
    const { id: nodeId, databaseId } = created.body.data.createCollection.data;
    await t.graphql(`mutation { addCollectionItems(id: ${databaseId}, mediaIds: [${media}]) { __typename } }`, {}, { key: alice.key });

    const query = `query($id: ID!) { node(id: $id) { ... on Collection { name itemCount items(first: 5) { totalCount edges { node { media { databaseId thumbnailUrl } } } } } } }`;
    const own = await t.graphql(query, { id: nodeId }, { key: alice.key });
    expect(own.body.data.node).toMatchObject({ name: 'G', itemCount: 1, items: { totalCount: 1, edges: [{ node: { media: { databaseId: media } } }] } });
    const foreign = await t.graphql(query, { id: nodeId }, { key: bob.key });
    expect(foreign.body.data.node).toBeNull();

    const refused = await t.graphql(`mutation { shareCollection(id: ${databaseId}, password: "long enough") { __typename ... on ServiceError { status field message } } }`, {}, { key: bob.key });
    expect(refused.body.data.shareCollection).toEqual({ __typename: 'ServiceError', status: 404, field: null, message: `no collection ${databaseId}` });
    const invalid = await t.graphql(`mutation { shareCollection(id: ${databaseId}, password: "no") { __typename ... on ServiceError { status field } } }`, {}, { key: alice.key });
    expect(invalid.body.data.shareCollection).toEqual({ __typename: 'ServiceError', status: 400, field: 'password' });
  });

  it('loads many collections with their item counts and items in the same number of database calls as one (no N+1)', async () => {
    const account = await t.createAccount('col-n1');
    const media = [await upload(account.key), await upload(account.key)];
    for (let i = 0; i < 6; i++) {
      const id = await createCollection(account.key, { name: `c${i}` });
      await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: media } });
    }
    const query = (n: number) => `{ viewer { collections(first: ${n}) { edges { node { itemCount items(first: 2) { edges { node { media { url } } } } } } } } }`;
    const calls = async (n: number) =>
      countPrismaCalls(t.app, async () => {
        const res = await t.graphql(query(n), {}, { key: account.key });
        expect(res.body.errors, res.text).toBeUndefined();
        expect(res.body.data.viewer.collections.edges).toHaveLength(n);
        for (const edge of res.body.data.viewer.collections.edges) expect(edge.node.items.edges).toHaveLength(2);
      });
    const one = await calls(1);
    const six = await calls(6);
    // The viewer's query carries the collections, their counts and items as nested selections: one call.
    expect(one).toEqual(['account.findFirst']);
    expect(six).toEqual(one);
  });
});
