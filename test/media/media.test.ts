// The media library over REST: upload, list, search, get, patch, trash, restore, purge, tags,
// bulk, folders, credits, mirrors; ownership everywhere; signed file URLs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerActionName } from '../../src/modules/ledger/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, photo } from '../helpers/images.js';
import { peoplePhoto } from '../fixtures/vision/images.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ uploadMaxBytes: 2 * 1024 * 1024 });
});
afterAll(() => t.stop());

async function upload(file: Buffer, fields: Record<string, string> = {}, key = t.ownerKey, name = 'photo.jpg') {
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body: form({ body: file, name, type: 'image/jpeg' }, fields) });
  return { status: response.status, body: await response.json() };
}

describe('POST /api/media/upload', () => {
  it('stores the file and answers media_id, url and tags', async () => {
    const res = await upload(await photo('#3366cc', { seed: 1 }), { name: 'Harbour at dusk', group: 'trips', tags: JSON.stringify(['Sea', 'boats', 'sea']) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).slice(0, 4)).toEqual(['success', 'media_id', 'url', 'tags']);
    expect(res.body).toMatchObject({ success: true, tags: ['sea', 'boats'], duplicate: false });
    expect(res.body.media).toMatchObject({ name: 'Harbour at dusk', group: 'trips', type: 'image', mime: 'image/jpeg', width: 640, height: 480, format: 'jpeg' });
    expect(res.body.media.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(res.body.media.blockhash).toMatch(/^[0-9a-f]{64}$/);
    expect(res.body.media.dominant_color).toMatch(/^#[0-9a-f]{6}$/);
    const file = await fetch(res.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    // The download is named after the item, with the extension of the bytes served.
    expect(file.headers.get('content-disposition')).toBe('inline; filename="Harbour at dusk.jpg"');
    const thumb = await fetch(res.body.media.thumbnail_url);
    expect(thumb.headers.get('content-type')).toBe('image/webp');
    expect(thumb.headers.get('content-disposition')).toBe('inline; filename="Harbour at dusk.webp"');
  });

  it('recognises the same bytes uploaded twice', async () => {
    const bytes = await photo('#aa8800', { seed: 2 });
    const first = await upload(bytes);
    const second = await upload(bytes, { name: 'again' });
    expect(second.body.duplicate).toBe(true);
    expect(second.body.media_id).toBe(first.body.media_id);
  });

  it('tags, captions and reads an upload with auto_tag (local vision, no credentials configured)', { timeout: 60_000 }, async () => {
    const res = await upload(peoplePhoto(), { auto_tag: 'true', tags: JSON.stringify(['group']) }, t.ownerKey, 'people.jpg');
    expect(res.status).toBe(201);
    expect(res.body.tags).toEqual(expect.arrayContaining(['group', 'person']));
    expect(res.body.media.caption).toMatch(/person|people/);
    const found = await t.request('GET', '/api/media/search?q=person', { key: t.ownerKey });
    expect(found.body.items.map((m: { id: number }) => m.id)).toContain(res.body.media_id);
  });

  it('stores concurrent uploads of the same bytes once', async () => {
    const bytes = await photo('#0a0b0c', { seed: 99 });
    const results = await Promise.all(Array.from({ length: 5 }, () => upload(bytes)));
    expect(new Set(results.map((r) => r.body.media_id)).size).toBe(1);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
  });

  it('defaults the name to the file name, and refuses what is not an image, video or document', async () => {
    const named = await upload(await photo('#118811', { seed: 3 }), {}, t.ownerKey, 'garden.jpg');
    expect(named.body.media.name).toBe('garden.jpg');
    const junk = await upload(Buffer.from([0x00, 0x13, 0x37, 0xfe, 0xed, 0xfa, 0xce, ...Array.from({ length: 200 }, (_, i) => (i * 7919) % 256)]), {}, t.ownerKey, 'fake.jpg');
    expect(junk.status).toBe(400);
    expect(junk.body.error).toMatch(/^file: /);
  });

  it('answers 413 over the upload limit, and 400 without a file or with bad tags', async () => {
    const big = await upload(Buffer.alloc(3 * 1024 * 1024, 1));
    expect(big.status).toBe(413);
    const none = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey }, body: form(null, { name: 'x' }) });
    expect(none.status).toBe(400);
    expect((await none.json()).error).toBe('file is required: send the file as the multipart field "file"');
    const badTags = await upload(await photo('#222222', { seed: 4 }), { tags: 'sea,boats' });
    expect(badTags.status).toBe(400);
    expect(badTags.body.error).toMatch(/^tags: expected an array of strings, e.g. \["beach","sunset"\] \(JSON text in a form\)$/);
  });
});

describe('reading and searching', () => {
  let red: number;
  let darkRed: number;
  let blue: number;
  beforeAll(async () => {
    const account = await t.createAccount('searcher');
    const key = account.key;
    red = (await upload(await photo('#ee1111', { seed: 10 }), { name: 'Red balloon festival', tags: JSON.stringify(['party']) }, key)).body.media_id;
    darkRed = (await upload(await photo('#991111', { seed: 11 }), { name: 'Brick wall', tags: JSON.stringify(['balloon']), group: 'city' }, key)).body.media_id;
    blue = (await upload(await photo('#1133ee', { seed: 12 }), { name: 'Blue lagoon', tags: JSON.stringify(['water']) }, key)).body.media_id;
    searchKey = key;
  });
  let searchKey: string;
  const search = (query: string) => t.request('GET', `/api/media/search?${query}`, { key: searchKey });

  it('ranks a name match above a tag match', async () => {
    const res = await search('q=balloon');
    expect(res.body.items.map((m: { id: number }) => m.id)).toEqual([red, darkRed]);
    expect(res.body).toMatchObject({ query: 'balloon', total: 2, limit: 50, offset: 0 });
  });

  it('filters by tag, group and type', async () => {
    expect((await search('tag=water')).body.items.map((m: { id: number }) => m.id)).toEqual([blue]);
    expect((await search('group=city')).body.items.map((m: { id: number }) => m.id)).toEqual([darkRed]);
    expect((await search('type=video')).body.total).toBe(0);
    expect((await search('type=gif')).status).toBe(400);
  });

  it('finds the nearest dominant colours, not only the exact one', async () => {
    const res = await search(`color=${encodeURIComponent('#ff0000')}`);
    const ids = res.body.items.map((m: { id: number }) => m.id);
    expect(ids[0]).toBe(red);
    expect(ids).toContain(darkRed);
    expect(ids).not.toContain(blue);
    expect((await search('color=red')).status).toBe(400);
  });

  it('pages the library with limit and offset', async () => {
    const first = await t.request('GET', '/api/media/list?limit=2', { key: searchKey });
    expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
    expect(first.body.items.map((m: { id: number }) => m.id)).toEqual([blue, darkRed]);
    const next = await t.request('GET', '/api/media/list?limit=2&offset=2', { key: searchKey });
    expect(next.body.items.map((m: { id: number }) => m.id)).toEqual([red]);
    expect((await t.request('GET', '/api/media/list?limit=201', { key: searchKey })).body.error).toBe('limit: expected at most 200');
  });

  it('never shows another account anything', async () => {
    const mine = await t.request('GET', '/api/media/search?q=balloon', { key: t.ownerKey });
    expect(mine.body.total).toBe(0);
    for (const [method, path] of [
      ['GET', `/api/media/${red}`],
      ['PATCH', `/api/media/${red}`],
      ['DELETE', `/api/media/${red}`],
      ['PATCH', `/api/media/${red}/tags`],
      ['POST', `/api/media/${red}/restore`],
      ['DELETE', `/api/media/${red}/purge`],
    ] as const) {
      const res = await t.request(method, path, { key: t.ownerKey, body: method === 'PATCH' ? { name: 'x', tags: ['x'] } : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const bulk = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids: [red], action: 'trash' } });
    expect(bulk.status).toBe(404);
    expect((await t.request('GET', `/api/media/${red}`, { key: searchKey })).body.media.trashed).toBe(false);
  });
});

describe('changing and the trash', () => {
  it('patches metadata, changes tags, trashes, restores and purges', async () => {
    const id = (await upload(await photo('#556677', { seed: 20 }), { tags: JSON.stringify(['a']) })).body.media_id;
    const patched = await t.request('PATCH', `/api/media/${id}`, { key: t.ownerKey, body: { name: 'Renamed', caption: 'A caption', group: 'g1' } });
    expect(patched.body.media).toMatchObject({ name: 'Renamed', caption: 'A caption', group: 'g1' });
    const cleared = await t.request('PATCH', `/api/media/${id}`, { key: t.ownerKey, body: { group: null } });
    expect(cleared.body.media.group).toBeNull();
    expect((await t.request('PATCH', `/api/media/${id}/tags`, { key: t.ownerKey, body: { action: 'add', tags: ['b', 'C'] } })).body.tags).toEqual(['a', 'b', 'c']);
    expect((await t.request('PATCH', `/api/media/${id}/tags`, { key: t.ownerKey, body: { action: 'remove', tags: ['a'] } })).body.tags).toEqual(['b', 'c']);
    expect((await t.request('PATCH', `/api/media/${id}/tags`, { key: t.ownerKey, body: { action: 'replace', tags: ['z'] } })).body.tags).toEqual(['z']);
    expect((await t.request('PATCH', `/api/media/${id}/tags`, { key: t.ownerKey, body: { action: 'merge', tags: ['z'] } })).status).toBe(400);

    const notTrashed = await t.request('DELETE', `/api/media/${id}/purge`, { key: t.ownerKey });
    expect(notTrashed.status).toBe(409);
    const trashed = await t.request('DELETE', `/api/media/${id}`, { key: t.ownerKey });
    expect(trashed.body).toMatchObject({ success: true, media_id: id, trashed: true });
    const trash = await t.request('GET', '/api/media/trash', { key: t.ownerKey });
    expect(trash.body.items.map((m: { id: number }) => m.id)).toContain(id);
    const list = await t.request('GET', '/api/media/list?limit=200', { key: t.ownerKey });
    expect(list.body.items.map((m: { id: number }) => m.id)).not.toContain(id);
    const restored = await t.request('POST', `/api/media/${id}/restore`, { key: t.ownerKey });
    expect(restored.body.media.trashed).toBe(false);
    await t.request('DELETE', `/api/media/${id}`, { key: t.ownerKey });
    const url = (await t.request('GET', `/api/media/${id}`, { key: t.ownerKey })).body.media.url;
    const purged = await t.request('DELETE', `/api/media/${id}/purge`, { key: t.ownerKey });
    expect(purged.body).toEqual({ success: true, media_id: id, purged: true });
    expect((await t.request('GET', `/api/media/${id}`, { key: t.ownerKey })).status).toBe(404);
    expect((await fetch(url)).status).toBe(404);
  });

  it('runs bulk actions all or nothing', async () => {
    const ids = [];
    for (let seed = 30; seed < 33; seed++) ids.push((await upload(await photo('#445566', { seed }))).body.media_id);
    const folder = (await t.request('POST', '/api/media/folders', { key: t.ownerKey, body: { name: 'bulk target' } })).body.folder;
    const moved = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'move', folder_id: folder.id } });
    expect(moved.body.items.every((m: { folder_id: number }) => m.folder_id === folder.id)).toBe(true);
    const tagged = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'tag', tags: ['batch'] } });
    expect(tagged.body.items.every((m: { tags: string[] }) => m.tags.includes('batch'))).toBe(true);
    const listed = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'list' } });
    expect(listed.body).toMatchObject({ action: 'list', count: 3 });
    expect((await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'purge' } })).status).toBe(409);
    await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'trash' } });
    const purged = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body: { ids, action: 'purge' } });
    expect(purged.body.count).toBe(3);
    expect((await t.request('GET', `/api/media/${ids[0]}`, { key: t.ownerKey })).status).toBe(404);
  });

  it.each([
    [{ action: 'trash' }, 'ids is required: an array of media ids'],
    [{ ids: [1], action: 'shred' }, 'action: expected one of trash, restore, purge, move, tag, list'],
    [{ ids: [1] }, 'action is required: one of trash, restore, purge, move, tag, list'],
    [{ ids: ['a'], action: 'trash' }, 'ids.0: expected media ids (integers)'],
    [{ ids: [1], action: 'tag' }, 'tags is required for tag: a non-empty array'],
    [{ ids: [1], action: 'move' }, 'folder_id is required for move (null moves out of any folder)'],
  ])('refuses bulk %j with 400', async (body, message) => {
    const res = await t.request('POST', '/api/media/bulk', { key: t.ownerKey, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(message);
  });
});

describe('folders, credits and mirrors', () => {
  it('creates, lists, renames and deletes folders; names are unique; items survive', async () => {
    const account = await t.createAccount('folders');
    const created = await t.request('POST', '/api/media/folders', { key: account.key, body: { name: 'Holidays' } });
    expect(created.status).toBe(201);
    const id = created.body.folder.id;
    expect((await t.request('POST', '/api/media/folders', { key: account.key, body: { name: 'Holidays' } })).status).toBe(409);
    const media = (await upload(await photo('#123123', { seed: 40 }), {}, account.key)).body.media_id;
    await t.request('PATCH', `/api/media/${media}`, { key: account.key, body: { folder_id: id } });
    const listed = await t.request('GET', '/api/media/folders', { key: account.key });
    expect(listed.body.folders).toEqual([{ id, name: 'Holidays', item_count: 1, created_at: expect.any(String) }]);
    expect((await t.request('PATCH', `/api/media/folders/${id}`, { key: account.key, body: { name: 'Trips' } })).body.folder.name).toBe('Trips');
    expect((await t.request('PATCH', `/api/media/folders/${id}`, { key: t.ownerKey, body: { name: 'Mine now' } })).status).toBe(404);
    expect((await t.request('DELETE', `/api/media/folders/${id}`, { key: account.key })).body).toEqual({ success: true, deleted: true, folder_id: id });
    expect((await t.request('GET', `/api/media/${media}`, { key: account.key })).body.media.folder_id).toBeNull();
  });

  it('answers folder counts from GraphQL mutations, and 400 for bad connection arguments', async () => {
    const created = await t.graphql('mutation { createFolder(name: "gql folder") { ... on MutationCreateFolderSuccess { data { name itemCount } } } }', {}, { key: t.ownerKey });
    expect(created.body.data.createFolder.data).toEqual({ name: 'gql folder', itemCount: 0 });
    const bad = await t.graphql('{ viewer { subKeys(first: -1) { totalCount } } }', {}, { key: t.ownerKey });
    expect(bad.body.errors[0]).toMatchObject({ message: 'Argument "first" must be a non-negative integer', extensions: { code: 'INVALID_INPUT', status: 400 } });
  });

  it('keeps /api/media/list, /trash, /folders, /credits apart from /api/media/{id}', async () => {
    for (const path of ['/api/media/list', '/api/media/trash', '/api/media/folders', '/api/media/credits', '/api/media/search']) {
      const res = await t.request('GET', path, { key: t.ownerKey });
      expect(res.status, path).toBe(200);
    }
    expect((await t.request('GET', '/api/media/abc', { key: t.ownerKey })).body.error).toBe('id: expected an integer media item id');
  });

  it('shows the credit ledger and totals', async () => {
    const account = await t.createAccount('credits');
    await t.app.services.credits.grant(account.id, { amount: 100, reference: 'welcome' });
    await t.app.services.credits.charge(account.id, { id: 'q1', credits: 2.5, action: 'wiki_query' as LedgerActionName, reference: 'subject:eiffel-tower' });
    await t.app.services.credits.charge(account.id, { id: 'q1', credits: 2.5, action: 'wiki_query' as LedgerActionName, reference: 'subject:eiffel-tower' });
    await expect(t.app.services.credits.charge(account.id, { id: 'g1', credits: 1000, action: 'generate' })).rejects.toThrow(/needs 1000 credits/);
    const res = await t.request('GET', '/api/media/credits', { key: account.key });
    expect(res.body).toMatchObject({ success: true, balance: 97.5, total_added: 100, total_spent: 2.5, total: 2 });
    expect(res.body.entries[0]).toMatchObject({ amount: -2.5, action: 'wiki_query', reference: 'subject:eiffel-tower' });
  });

  // The mirror check itself (fetched, hashed, compared) is in test/mirrors/media-mirror.test.ts.
  it('checks a mirror URL before registering it', async () => {
    const media = (await upload(await photo('#654321', { seed: 50 }))).body.media_id;
    // This app may not fetch private addresses: the URL is refused before any request.
    const res = await t.request('POST', '/api/media/mirror', { key: t.ownerKey, body: { media_id: media, url: 'http://127.0.0.1:9/a.jpg' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^url: refused: /);
    expect((await t.request('POST', '/api/media/mirror', { key: t.ownerKey, body: { url: 'https://x.example/' } })).body.error).toBe('media_id is required: the id of a media item');
    expect((await t.request('POST', '/api/media/mirror', { key: t.ownerKey, body: { media_id: media, url: 'ftp://x' } })).body.error).toBe('url: expected an absolute http or https URL');
  });
});

describe('signed file URLs', () => {
  it('refuse a changed id, variant or signature', async () => {
    const res = await upload(await photo('#abcdef', { seed: 60 }));
    const url = new URL(res.body.url);
    expect((await fetch(url)).status).toBe(200);
    const otherId = new URL(url);
    otherId.pathname = `/media/${res.body.media_id + 1}/original`;
    expect((await fetch(otherId)).status).toBe(403);
    const badSig = new URL(url);
    badSig.searchParams.set('sig', 'A'.repeat(43));
    expect((await fetch(badSig)).status).toBe(403);
    const noSig = new URL(url);
    noSig.search = '';
    expect((await fetch(noSig)).status).toBe(403);
  });
});
