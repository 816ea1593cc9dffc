// Stock lists over REST: create, list, get, add and remove items, save into the library through the
// SSRF-safe fetcher (a local fixture server; a redirect to the cloud metadata address is refused for
// that item only), sharing, joining and members, and who may do what.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { countPrismaCalls } from '../helpers/prisma-calls.js';
import { photo } from '../helpers/images.js';

let t: TestApp;
let server: Server;
let base: string;
const hits = new Map<string, number>();

beforeAll(async () => {
  const files = new Map<string, { type: string; body: Buffer }>([
    ['/photos/alpine-lake.jpg', { type: 'image/jpeg', body: await photo('#2266aa', { seed: 11 }) }],
    ['/photos/desert.png', { type: 'image/png', body: await photo('#cc9944', { seed: 12, format: 'png' }) }],
    ['/photos/forest.webp', { type: 'image/webp', body: await photo('#227733', { seed: 13, format: 'webp' }) }],
    ['/notes.txt', { type: 'text/plain', body: Buffer.from('not an image at all, just words '.repeat(20)) }],
  ]);
  files.set('/mirror/alpine-lake-copy.jpg', files.get('/photos/alpine-lake.jpg')!);
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    if (path === '/to-metadata') {
      res.writeHead(302, { Location: 'http://169.254.169.254/latest/meta-data/' }).end();
      return;
    }
    if (path === '/hop') {
      res.writeHead(301, { Location: '/photos/forest.webp' }).end();
      return;
    }
    const file = files.get(path);
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': String(file.body.length) }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ fetch: LOCAL_FETCH });
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => server.close(resolve));
});

async function createList(key: string, body: Record<string, unknown> = { name: 'Moodboard' }): Promise<number> {
  const res = await t.request('POST', '/api/media/stock/lists', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.list_id as number;
}

async function addItems(key: string, id: number, items: Array<Record<string, unknown>>) {
  const res = await t.request('POST', `/api/media/stock/lists/${id}/items`, { key, body: { items } });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function joined(ownerKey: string, memberKey: string, id: number) {
  const share = await t.request('POST', `/api/community/lists/${id}/share`, { key: ownerKey });
  const join = await t.request('POST', share.body.join_path, { key: memberKey });
  expect(join.status, join.text).toBe(200);
}

describe('stock lists', () => {
  it('creates a list and answers its fields with defaults; 400 names the field', async () => {
    const account = await t.createAccount('stock-create');
    const res = await t.request('POST', '/api/media/stock/lists', { key: account.key, body: { name: ' Textures ', description: 'For the autumn campaign' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['success', 'list_id', 'name', 'description', 'owner', 'role', 'item_count', 'member_count', 'shared', 'share_token', 'join_path', 'created_at', 'updated_at']);
    expect(res.body).toMatchObject({ name: 'Textures', description: 'For the autumn campaign', owner: account.handle, role: 'owner', item_count: 0, member_count: 0, shared: false, share_token: null, join_path: null });

    for (const [body, error] of [
      [{}, 'name is required: the list name'],
      [{ name: '' }, 'name is required: the list name'],
      [{ name: 'x'.repeat(201) }, 'name: expected at most 200 characters'],
      [{ name: 'ok', description: ['x'] }, 'description: expected a string'],
    ] as const) {
      const bad = await t.request('POST', '/api/media/stock/lists', { key: account.key, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body).toEqual({ success: false, error });
    }
  });

  it('lists the lists the caller owns or joined, newest first, with the role', async () => {
    const alice = await t.createAccount('stock-list-a');
    const bob = await t.createAccount('stock-list-b');
    const own = await createList(alice.key, { name: 'mine' });
    const theirs = await createList(bob.key, { name: 'bobs' });
    const hidden = await createList(bob.key, { name: 'bobs private' });
    await joined(bob.key, alice.key, theirs);
    const res = await t.request('GET', '/api/media/stock/lists', { key: alice.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'lists', 'total', 'next_cursor']);
    expect(res.body.total).toBe(2);
    expect(res.body.lists.map((l: { id: number; role: string; owner: string }) => [l.id, l.role, l.owner])).toEqual([
      [theirs, 'member', bob.handle],
      [own, 'owner', alice.handle],
    ]);
    // A member never sees the join token.
    expect(res.body.lists[0]).toMatchObject({ shared: true, share_token: null, join_path: null });
    expect(res.body.lists.some((l: { id: number }) => l.id === hidden)).toBe(false);
  });

  it('adds items (URLs already in are skipped) and answers them; GET shows the list with items', async () => {
    const account = await t.createAccount('stock-items');
    const id = await createList(account.key);
    const first = await addItems(account.key, id, [
      { url: `${base}/photos/alpine-lake.jpg`, title: 'Alpine lake', attribution: 'Photo by Ana on Unsplash', source: 'unsplash', thumbnail_url: `${base}/thumbs/alpine.jpg` },
      { url: `${base}/photos/desert.png` },
      { url: `${base}/photos/desert.png`, title: 'twice in one request' },
    ]);
    expect(Object.keys(first)).toEqual(['success', 'list_id', 'added', 'already_in', 'item_count', 'items']);
    expect(first).toMatchObject({ list_id: id, added: 2, already_in: 1, item_count: 2 });
    expect(first.items[0]).toEqual({
      id: expect.any(Number),
      url: `${base}/photos/alpine-lake.jpg`,
      title: 'Alpine lake',
      attribution: 'Photo by Ana on Unsplash',
      source: 'unsplash',
      thumbnail_url: `${base}/thumbs/alpine.jpg`,
      added_by: account.handle,
      saved_media_id: null,
      created_at: expect.any(String),
    });
    expect(first.items[1]).toMatchObject({ title: null, attribution: null, source: null, thumbnail_url: null });
    const again = await addItems(account.key, id, [{ url: `${base}/photos/alpine-lake.jpg` }, { url: `${base}/photos/forest.webp` }]);
    expect(again).toMatchObject({ added: 1, already_in: 1, item_count: 3 });
    // The thumbnail URL is never fetched by the service.
    expect(hits.get('/thumbs/alpine.jpg')).toBeUndefined();

    const res = await t.request('GET', `/api/media/stock/lists/${id}`, { key: account.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).slice(0, 3)).toEqual(['success', 'list_id', 'name']);
    expect(res.body).toMatchObject({ list_id: id, item_count: 3, role: 'owner', next_cursor: null });
    expect(res.body.items.map((i: { url: string }) => i.url)).toEqual([`${base}/photos/alpine-lake.jpg`, `${base}/photos/desert.png`, `${base}/photos/forest.webp`]);
    const paged = await t.request('GET', `/api/media/stock/lists/${id}?limit=2`, { key: account.key });
    expect(paged.body.items).toHaveLength(2);
    const rest = await t.request('GET', `/api/media/stock/lists/${id}?limit=2&cursor=${encodeURIComponent(paged.body.next_cursor)}`, { key: account.key });
    expect(rest.body.items.map((i: { url: string }) => i.url)).toEqual([`${base}/photos/forest.webp`]);
    expect(rest.body.next_cursor).toBeNull();
    const bad = await t.request('GET', `/api/media/stock/lists/${id}?cursor=nope`, { key: account.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('cursor: expected a cursor this list gave out (next_cursor, or the endCursor of a page)');
  });

  it('answers 400 naming the field for malformed items', async () => {
    const account = await t.createAccount('stock-400');
    const id = await createList(account.key);
    const cases: Array<[unknown, string]> = [
      [{}, 'items is required: an array of {url, title, attribution, source, thumbnail_url}'],
      [{ items: [] }, 'items is required: an array of {url, title, attribution, source, thumbnail_url}'],
      [{ items: { url: 'https://example.com/a.jpg' } }, 'items: expected an array of {url, title, attribution, source, thumbnail_url}'],
      [{ items: ['https://example.com/a.jpg'] }, 'items.0: expected an object with url, title, attribution, source, thumbnail_url'],
      [{ items: [{ title: 'no url' }] }, 'items.0.url: expected an http(s) URL (the image to download)'],
      [{ items: [{ url: 'https://example.com/a.jpg' }, { url: 'ftp://example.com/b.jpg' }] }, 'items.1.url: expected an http(s) URL (the image to download)'],
      [{ items: [{ url: 'javascript:alert(1)' }] }, 'items.0.url: expected an http(s) URL (the image to download)'],
      [{ items: [{ url: 'https://example.com/a.jpg', title: 5 }] }, 'items.0.title: expected a string'],
      [{ items: [{ url: 'https://example.com/a.jpg', thumbnail_url: 'data:image/png;base64,AAAA' }] }, 'items.0.thumbnail_url: expected an http(s) URL (a preview image)'],
      [{ items: [{ url: 'https://example.com/a.jpg', title: 'x'.repeat(256) }] }, 'items.0.title: expected at most 255 characters'],
      [{ items: Array.from({ length: 101 }, (_, i) => ({ url: `https://example.com/${i}.jpg` })) }, 'items: expected at most 100 items per request'],
    ];
    for (const [body, error] of cases) {
      const res = await t.request('POST', `/api/media/stock/lists/${id}/items`, { key: account.key, body });
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.body.error).toBe(error);
    }
    // GraphQL callers meet the same schema and message.
    const graphql = await t.graphql(
      'mutation($id: Int!, $items: [StockItemInput!]) { addStockItems(listId: $id, items: $items) { __typename ... on ServiceError { status message field } } }',
      { id, items: [{ url: 'https://example.com/a.jpg' }, { url: 'ftp://example.com/b.jpg' }] },
      { key: account.key },
    );
    expect(graphql.body.data.addStockItems).toEqual({ __typename: 'ServiceError', status: 400, message: 'items.1.url: expected an http(s) URL (the image to download)', field: 'items.1.url' });
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: account.key })).body.item_count).toBe(0);
  });

  it("answers 404 for another account's list and items everywhere, and 400 for malformed ids", async () => {
    const alice = await t.createAccount('stock-404-a');
    const bob = await t.createAccount('stock-404-b');
    const id = await createList(alice.key);
    const { items } = await addItems(alice.key, id, [{ url: `${base}/photos/desert.png` }]);
    const calls: Array<[string, string, unknown]> = [
      ['GET', `/api/media/stock/lists/${id}`, undefined],
      ['DELETE', `/api/media/stock/lists/${id}`, undefined],
      ['POST', `/api/media/stock/lists/${id}/items`, { items: [{ url: 'https://example.com/x.jpg' }] }],
      ['POST', `/api/media/stock/lists/${id}/save`, undefined],
      ['POST', `/api/community/lists/${id}/share`, undefined],
      ['GET', `/api/community/lists/${id}/members`, undefined],
    ];
    for (const [method, path, body] of calls) {
      const res = await t.request(method, path, { key: bob.key, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body).toEqual({ success: false, error: `no stock list ${id}` });
    }
    const item = await t.request('DELETE', `/api/media/stock/items/${items[0].id}`, { key: bob.key });
    expect(item.status).toBe(404);
    expect(item.body.error).toBe(`no stock item ${items[0].id}`);
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: alice.key })).body.item_count).toBe(1);
    const bad = await t.request('GET', '/api/media/stock/lists/1.5', { key: alice.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('id: expected an integer stock list id');
  });
});

describe('POST /api/media/stock/lists/{id}/save', () => {
  it('downloads every item through the safe fetcher; a failing or refused URL fails alone', async () => {
    const account = await t.createAccount('stock-save');
    const id = await createList(account.key);
    const { items } = await addItems(account.key, id, [
      { url: `${base}/photos/alpine-lake.jpg`, title: 'Alpine lake', attribution: 'Photo by Ana on Unsplash', source: 'unsplash' },
      { url: `${base}/to-metadata`, title: 'Sneaky' },
      { url: `${base}/photos/desert.png` },
      { url: `${base}/missing.jpg` },
      { url: `${base}/notes.txt` },
      { url: `${base}/mirror/alpine-lake-copy.jpg` },
      { url: `${base}/hop` },
    ]);
    const res = await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: account.key });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'list_id', 'saved', 'duplicates', 'failed', 'already_saved', 'remaining', 'results']);
    expect(res.body).toMatchObject({ list_id: id, saved: 3, duplicates: 1, failed: 3, already_saved: 0, remaining: 0 });
    const byUrl = Object.fromEntries(res.body.results.map((r: { url: string }) => [new URL(r.url).pathname, r]));
    expect(res.body.results.map((r: { item_id: number }) => r.item_id)).toEqual(items.map((i: { id: number }) => i.id));
    expect(byUrl['/photos/alpine-lake.jpg']).toMatchObject({ status: 'saved', media_id: expect.any(Number), error: null });
    expect(byUrl['/photos/desert.png']).toMatchObject({ status: 'saved', media_id: expect.any(Number), error: null });
    expect(byUrl['/hop']).toMatchObject({ status: 'saved', media_id: expect.any(Number) });
    expect(byUrl['/to-metadata']).toMatchObject({ status: 'failed', media_id: null });
    expect(byUrl['/to-metadata'].error).toMatch(/^refused to fetch http:\/\/169\.254\.169\.254\//);
    expect(byUrl['/missing.jpg']).toMatchObject({ status: 'failed', media_id: null, error: `${base}/missing.jpg answered HTTP 404` });
    expect(byUrl['/notes.txt'].status).toBe('failed');
    expect(byUrl['/notes.txt'].error).toMatch(/^file: /);
    // The same bytes under another URL: the library keeps one item.
    expect(byUrl['/mirror/alpine-lake-copy.jpg']).toMatchObject({ status: 'duplicate', media_id: byUrl['/photos/alpine-lake.jpg'].media_id });

    const media = await t.request('GET', `/api/media/${byUrl['/photos/alpine-lake.jpg'].media_id}`, { key: account.key });
    expect(media.status).toBe(200);
    expect(media.body.media).toMatchObject({ name: 'Alpine lake', source_url: `${base}/photos/alpine-lake.jpg`, attribution: 'Photo by Ana on Unsplash', type: 'image' });
    const unnamed = await t.request('GET', `/api/media/${byUrl['/photos/desert.png'].media_id}`, { key: account.key });
    expect(unnamed.body.media.name).toBe('desert.png');

    const list = await t.request('GET', `/api/media/stock/lists/${id}`, { key: account.key });
    const saved = Object.fromEntries(list.body.items.map((i: { url: string; saved_media_id: number | null }) => [new URL(i.url).pathname, i.saved_media_id]));
    expect(saved).toMatchObject({ '/photos/alpine-lake.jpg': byUrl['/photos/alpine-lake.jpg'].media_id, '/to-metadata': null, '/missing.jpg': null });

    // Saving again downloads only what is not saved yet (the failures are tried again).
    const before = { lake: hits.get('/photos/alpine-lake.jpg'), missing: hits.get('/missing.jpg') };
    const again = await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: account.key });
    expect(again.body).toMatchObject({ saved: 0, failed: 3, already_saved: 4 });
    expect(again.body.results.map((r: { url: string }) => new URL(r.url).pathname).sort()).toEqual(['/missing.jpg', '/notes.txt', '/to-metadata']);
    expect(hits.get('/photos/alpine-lake.jpg')).toBe(before.lake);
    expect(hits.get('/missing.jpg')).toBe((before.missing ?? 0) + 1);
  });

  it('re-downloads an item whose saved copy went to the trash (the library restores it)', async () => {
    const account = await t.createAccount('stock-trash');
    const id = await createList(account.key);
    await addItems(account.key, id, [{ url: `${base}/photos/forest.webp` }]);
    const first = await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: account.key });
    const mediaId = first.body.results[0].media_id;
    await t.request('DELETE', `/api/media/${mediaId}`, { key: account.key });
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: account.key })).body.items[0].saved_media_id).toBeNull();
    const again = await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: account.key });
    expect(again.body.results[0]).toMatchObject({ status: 'duplicate', media_id: mediaId });
    expect((await t.request('GET', `/api/media/${mediaId}`, { key: account.key })).body.media.trashed).toBe(false);
  });
});

describe('sharing a stock list', () => {
  it('gives the owner a join token; other accounts join as members, twice is fine, the owner cannot', async () => {
    const alice = await t.createAccount('stock-share-a');
    const bob = await t.createAccount('stock-share-b');
    const id = await createList(alice.key, { name: 'Shared board' });
    const share = await t.request('POST', `/api/community/lists/${id}/share`, { key: alice.key });
    expect(share.status).toBe(200);
    expect(Object.keys(share.body)).toEqual(['success', 'share_token', 'join_path', 'list_id', 'name']);
    expect(share.body.share_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(share.body).toMatchObject({ join_path: `/api/community/lists/join/${share.body.share_token}`, list_id: id, name: 'Shared board' });
    const same = await t.request('POST', `/api/community/lists/${id}/share`, { key: alice.key, body: {} });
    expect(same.body.share_token).toBe(share.body.share_token);

    const join = await t.request('POST', share.body.join_path, { key: bob.key });
    expect(join.status).toBe(200);
    expect(join.body).toEqual({ success: true, list_id: id, name: 'Shared board', owner: alice.handle, role: 'member', joined_at: expect.any(String), already_member: false });
    const twice = await t.request('POST', share.body.join_path, { key: bob.key });
    expect(twice.body).toMatchObject({ already_member: true, joined_at: join.body.joined_at });
    const self = await t.request('POST', share.body.join_path, { key: alice.key });
    expect(self.status).toBe(409);
    expect(self.body.error).toBe(`you own stock list ${id}; only other accounts join it`);
    const unknown = await t.request('POST', `/api/community/lists/join/${'Z'.repeat(32)}`, { key: bob.key });
    expect(unknown.status).toBe(404);

    const members = await t.request('GET', `/api/community/lists/${id}/members`, { key: bob.key });
    expect(members.status).toBe(200);
    expect(members.body).toEqual({ success: true, list_id: id, owner: alice.handle, members: [{ handle: bob.handle, joined_at: join.body.joined_at }], total: 1 });
    expect((await t.request('GET', `/api/community/lists/${id}/members`, { key: alice.key })).body.members).toHaveLength(1);
  });

  it('rotate replaces the token: the old join path stops working, members stay', async () => {
    const alice = await t.createAccount('stock-rotate-a');
    const bob = await t.createAccount('stock-rotate-b');
    const carol = await t.createAccount('stock-rotate-c');
    const id = await createList(alice.key);
    const first = await t.request('POST', `/api/community/lists/${id}/share`, { key: alice.key });
    await t.request('POST', first.body.join_path, { key: bob.key });
    const rotated = await t.request('POST', `/api/community/lists/${id}/share`, { key: alice.key, body: { rotate: true } });
    expect(rotated.body.share_token).not.toBe(first.body.share_token);
    expect((await t.request('POST', first.body.join_path, { key: carol.key })).status).toBe(404);
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: bob.key })).status).toBe(200);
    expect((await t.request('POST', rotated.body.join_path, { key: carol.key })).status).toBe(200);
  });

  it('lets a member read, add items and save them into its own library, but not delete or share the list', async () => {
    const alice = await t.createAccount('stock-member-a');
    const bob = await t.createAccount('stock-member-b');
    const id = await createList(alice.key);
    const { items: ownerItems } = await addItems(alice.key, id, [{ url: `${base}/photos/desert.png`, title: 'Desert' }]);
    await joined(alice.key, bob.key, id);

    const read = await t.request('GET', `/api/media/stock/lists/${id}`, { key: bob.key });
    expect(read.body).toMatchObject({ role: 'member', owner: alice.handle, share_token: null, join_path: null, item_count: 1 });
    const { items: memberItems } = await addItems(bob.key, id, [{ url: `${base}/photos/forest.webp`, title: 'Forest' }]);
    expect(memberItems[0].added_by).toBe(bob.handle);

    const saved = await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: bob.key });
    expect(saved.body).toMatchObject({ saved: 2, failed: 0 });
    for (const r of saved.body.results) {
      expect((await t.request('GET', `/api/media/${r.media_id}`, { key: bob.key })).status).toBe(200);
      expect((await t.request('GET', `/api/media/${r.media_id}`, { key: alice.key })).status).toBe(404);
    }
    // Saved for Bob, not for Alice.
    const forBob = await t.request('GET', `/api/media/stock/lists/${id}`, { key: bob.key });
    expect(forBob.body.items.every((i: { saved_media_id: number | null }) => i.saved_media_id !== null)).toBe(true);
    const forAlice = await t.request('GET', `/api/media/stock/lists/${id}`, { key: alice.key });
    expect(forAlice.body.items.every((i: { saved_media_id: number | null }) => i.saved_media_id === null)).toBe(true);
    expect((await t.request('POST', `/api/media/stock/lists/${id}/save`, { key: alice.key })).body.saved).toBe(2);

    const del = await t.request('DELETE', `/api/media/stock/lists/${id}`, { key: bob.key });
    expect(del.status).toBe(403);
    expect(del.body.error).toBe(`only the owner of stock list ${id} can delete it`);
    const share = await t.request('POST', `/api/community/lists/${id}/share`, { key: bob.key });
    expect(share.status).toBe(403);
    expect(share.body.error).toBe(`only the owner of stock list ${id} can share it`);

    // Items: a member removes its own, not the owner's; the owner removes any.
    const notHis = await t.request('DELETE', `/api/media/stock/items/${ownerItems[0].id}`, { key: bob.key });
    expect(notHis.status).toBe(403);
    const his = await t.request('DELETE', `/api/media/stock/items/${memberItems[0].id}`, { key: bob.key });
    expect(his.body).toEqual({ success: true, deleted: true, item_id: memberItems[0].id, list_id: id });
    const byOwner = await t.request('DELETE', `/api/media/stock/items/${ownerItems[0].id}`, { key: alice.key });
    expect(byOwner.status).toBe(200);
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: alice.key })).body.item_count).toBe(0);

    const gone = await t.request('DELETE', `/api/media/stock/lists/${id}`, { key: alice.key });
    expect(gone.body).toEqual({ success: true, deleted: true, list_id: id });
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: bob.key })).status).toBe(404);
    expect((await t.request('GET', `/api/media/stock/lists/${id}`, { key: alice.key })).status).toBe(404);
  });

  it('GraphQL: lists with owners, items, adders, saved copies and members load in the same number of database calls for 1 or 4 lists (no N+1)', async () => {
    const alice = await t.createAccount('stock-n1-a');
    const bob = await t.createAccount('stock-n1-b');
    for (let i = 0; i < 4; i++) {
      const id = await createList(alice.key, { name: `n1 ${i}` });
      await addItems(alice.key, id, [{ url: `${base}/photos/desert.png` }, { url: `${base}/photos/forest.webp?n=${i}` }]);
      await joined(alice.key, bob.key, id);
    }
    const query = (n: number) => `{ viewer { stockLists(first: ${n}) { edges { node { owner role itemCount members { handle } items(first: 3) { edges { node { addedBy savedMediaId } } } } } } } }`;
    const calls = (n: number) =>
      countPrismaCalls(t.app, async () => {
        const res = await t.graphql(query(n), {}, { key: bob.key });
        expect(res.body.errors, res.text).toBeUndefined();
        expect(res.body.data.viewer.stockLists.edges).toHaveLength(n);
        for (const { node } of res.body.data.viewer.stockLists.edges) {
          expect(node).toMatchObject({ owner: alice.handle, role: 'member', itemCount: 2, members: [{ handle: bob.handle }] });
          expect(node.items.edges.map((e: { node: { addedBy: string } }) => e.node.addedBy)).toEqual([alice.handle, alice.handle]);
        }
      });
    const one = await calls(1);
    const four = await calls(4);
    expect(one.length).toBeGreaterThan(0);
    expect(four).toEqual(one);
  });

  it('GraphQL: nodes resolve for owner and members only; the token shows to the owner only', async () => {
    const alice = await t.createAccount('stock-gql-a');
    const bob = await t.createAccount('stock-gql-b');
    const carol = await t.createAccount('stock-gql-c');
    const id = await createList(alice.key, { name: 'Node list' });
    await addItems(alice.key, id, [{ url: `${base}/photos/desert.png` }]);
    await joined(alice.key, bob.key, id);
    const lookup = await t.graphql(`{ stockList(id: ${id}) { id } }`, {}, { key: alice.key });
    const nodeId = lookup.body.data.stockList.id;
    const query = 'query($id: ID!) { node(id: $id) { ... on StockList { name role shareToken members { handle } items(first: 5) { totalCount edges { node { url addedBy savedMediaId } } } } } }';
    const asOwner = await t.graphql(query, { id: nodeId }, { key: alice.key });
    expect(asOwner.body.data.node).toMatchObject({ name: 'Node list', role: 'owner', shareToken: expect.any(String), members: [{ handle: bob.handle }], items: { totalCount: 1 } });
    const asMember = await t.graphql(query, { id: nodeId }, { key: bob.key });
    expect(asMember.body.data.node).toMatchObject({ role: 'member', shareToken: null, items: { edges: [{ node: { addedBy: alice.handle, savedMediaId: null } }] } });
    const asStranger = await t.graphql(query, { id: nodeId }, { key: carol.key });
    expect(asStranger.body.data.node).toBeNull();
    const refused = await t.graphql(`mutation { deleteStockList(id: ${id}) { __typename ... on ServiceError { status message } } }`, {}, { key: bob.key });
    expect(refused.body.data.deleteStockList).toEqual({ __typename: 'ServiceError', status: 403, message: `only the owner of stock list ${id} can delete it` });
  });
});
