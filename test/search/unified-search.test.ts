// POST /api/images/search end to end: tier order and scores, no-key public search, another
// account's private items never shown (text, image_data and image_url), the scope matrix,
// de-duplication across tiers, orientation and limit, the image inputs' validation and SSRF
// refusal, reverse search finding a resized and recompressed copy, who pays for keywords, and the
// stock tier filling the rest (a failing library leaves the others).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { FAKE_KEYS, startFakeProviders, type FakeProviders } from '../fixtures/vision/fake-providers.js';
import { fakeSearchConfig, startFakeStock, type FakeStock } from '../fixtures/stock/fake-stock.js';

let t: TestApp;
let stock: FakeStock;
let vision: FakeProviders;
let site: Server;
let siteUrl: string;
const served = new Map<string, Buffer>();

interface Account {
  key: string;
  id: number;
}
let alice: Account;
let bob: Account;
/** Alice's library: a landscape and a portrait "harbour" photo, a "signage" one, and one she also gave the community. */
const images: Record<string, Buffer> = {};
const ids: Record<string, number> = {};

beforeAll(async () => {
  [stock, vision] = await Promise.all([startFakeStock(), startFakeProviders()]);
  const defaults = loadConfig({});
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    search: fakeSearchConfig(stock, 1_500),
    // Local vision off: analyses come from the fake Google provider, paid in credits.
    vision: { ...defaults.vision, googleVision: { apiKey: FAKE_KEYS.google, baseUrl: vision.googleBaseUrl }, local: { ...defaults.vision.local, enabled: false } },
  });
  site = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  alice = await t.createAccount('alice');
  bob = await t.createAccount('bob');
  [images.harbour, images.portrait, images.signage, images.shared, images.bobs, images.bobsPublic, images.wiki] = await Promise.all([
    scene(7001),
    scene(7002, 600, 800),
    scene(7003),
    scene(7004),
    scene(7005),
    scene(7006),
    scene(7007),
  ]);
  ids.harbour = await upload(alice, images.harbour!, 'harbour-at-dusk.jpg', ['harbour', 'boats']);
  ids.portrait = await upload(alice, images.portrait!, 'harbour-tower.jpg', ['harbour']);
  ids.signage = await upload(alice, images.signage!, 'shop-front.jpg', ['signage']);
  ids.shared = await upload(alice, images.shared!, 'harbour-shared.jpg', ['harbour']);
  ids.bobs = await upload(bob, images.bobs!, 'harbour-secret.jpg', ['harbour']);
  // Alice's contributions: the shared photo (also in her library) and one only in the community.
  ids.aliceCommunityShared = await contribute(alice, images.shared!, 'harbour copy', ['harbour']);
  ids.aliceCommunity = await contribute(alice, await scene(7008), 'harbour crane', ['harbour', 'crane']);
  // Bob's: public and AI-verified (the atlas), and the same photo Alice gave (one image object).
  ids.bobCommunity = await contribute(bob, images.bobsPublic!, 'harbour wall', ['harbour']);
  ids.bobCommunityShared = await contribute(bob, images.shared!, 'harbour again', ['harbour']);
  await t.app.services.db.query(`UPDATE "CommunityItem" SET "verified" = TRUE WHERE "id" = ANY($1::int[])`, [[ids.bobCommunity, ids.bobCommunityShared, ids.aliceCommunity]]);
  ids.wiki = await verifiedWikiPhoto(images.wiki!);
  served.set('/alice-harbour.jpg', images.harbour!);
  served.set('/bobs.jpg', images.bobs!);
  served.set('/bobs-public.jpg', images.bobsPublic!);
});
afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await t?.stop();
  await Promise.all([stock?.close(), vision?.close()]);
});
beforeEach(() => {
  stock.reset();
  vision.reset();
});

async function upload(account: Account, body: Buffer, name: string, tags: string[]): Promise<number> {
  const res = await t.request('POST', '/api/media/upload', { key: account.key, form: form({ body, name, type: 'image/jpeg' }, { name, tags: JSON.stringify(tags) }) });
  expect(res.status, res.text).toBe(201);
  return res.body.media_id as number;
}

async function contribute(account: Account, body: Buffer, name: string, tags: string[]): Promise<number> {
  const res = await t.request('POST', '/api/community/contribute', { key: account.key, form: form({ body, name: 'c.jpg', type: 'image/jpeg' }, { name, tags: JSON.stringify(tags) }) });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

/** A photo of an approved subject "Harbour Lighthouse", verified (votes are test/wiki's business). */
async function verifiedWikiPhoto(body: Buffer): Promise<number> {
  const creator = await t.createAccount('wiki-creator');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: 'Harbour Lighthouse', category: 'landmark' } });
  await t.request('POST', `/api/admin/wiki/subjects/${made.body.slug}/approve`, { admin: true });
  const photo = await t.request('POST', `/api/wiki/subjects/${made.body.slug}/contribute`, { key: creator.key, form: form({ body, name: 'w.jpg', type: 'image/jpeg' }) });
  expect(photo.status, photo.text).toBe(201);
  await t.app.services.db.query(`UPDATE "WikiMedia" SET "status" = 'verified', "confidence" = 0.9, "decidedAt" = now() WHERE "id" = $1`, [photo.body.photo.id]);
  return photo.body.photo.id as number;
}

const search = (body: Record<string, unknown>, key?: string) => t.request('POST', '/api/images/search', { key, body });
type Image = { url: string; title: string; source: string; quality_score: number; is_private?: boolean; is_verified?: boolean };
const mediaIdOf = (image: Image) => Number(/\/media\/(\d+)\//.exec(image.url)?.[1] ?? NaN);
const communityIdOf = (image: Image) => Number(/\/community\/(\d+)\//.exec(image.url)?.[1] ?? NaN);
const recompressed = async (body: Buffer, width = 400) => sharp(body).resize(width).jpeg({ quality: 40 }).toBuffer();

describe('tiers and scores', () => {
  it('ranks the private library, own contributions, the verified atlas, then stock, each tier under the one before', async () => {
    const res = await search({ query: 'harbour' }, alice.key);
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'data']);
    expect(Object.keys(res.body.data)).toEqual(['query', 'is_authenticated_search', 'images', 'source_statistics']);
    const { data } = res.body;
    expect(data).toMatchObject({ query: 'harbour', is_authenticated_search: true });
    const list = data.images as Image[];
    const sources = list.map((i) => i.source);
    const tierOf = (s: string) => ['my_private_library', 'my_public_atlas', 'global_atlas'].indexOf(s) + 1 || 4;
    expect(sources.map(tierOf)).toEqual([...sources.map(tierOf)].sort());
    expect(list[0]).toMatchObject({ source: 'my_private_library', quality_score: 100, is_private: true });
    // Scores fall strictly down the page; each tier within its band.
    for (let i = 1; i < list.length; i++) expect(list[i]!.quality_score).toBeLessThan(list[i - 1]!.quality_score);
    const bands: Record<number, [number, number]> = { 1: [76, 100], 2: [51, 75], 3: [26, 50], 4: [1, 25] };
    for (const image of list) {
      const [low, high] = bands[tierOf(image.source)]!;
      expect(image.quality_score).toBeGreaterThan(low);
      expect(image.quality_score).toBeLessThanOrEqual(high);
    }
    expect(list.filter((i) => i.source === 'my_private_library').map(mediaIdOf).sort()).toEqual([ids.harbour, ids.portrait, ids.shared].sort());
    expect(list.find((i) => i.source === 'my_public_atlas')).toMatchObject({ quality_score: 75, title: expect.stringMatching(/harbour/) });
    // Verified atlas items say so; private ones say so; stock ones say neither.
    for (const image of list.filter((i) => i.source === 'global_atlas')) expect(image.is_verified).toBe(true);
    for (const image of list.filter((i) => tierOf(i.source) === 4)) expect(image).not.toHaveProperty('is_private');
    expect(list.some((i) => i.source === 'global_atlas' && i.title === 'Harbour Lighthouse')).toBe(true);
    expect(data.source_statistics.sources_active).toEqual(['my_private_library', 'my_public_atlas', 'global_atlas', 'openverse', 'unsplash', 'pexels', 'pixabay']);
    expect(data.source_statistics.total_found).toBeGreaterThanOrEqual(list.length);
    // The service's own links work without a key.
    for (const image of list.filter((i) => tierOf(i.source) < 4)) expect((await fetch(image.url)).status, image.url).toBe(200);
  });

  it('works without a key for the public tiers only', async () => {
    const res = await search({ query: 'harbour' });
    expect(res.status, res.text).toBe(200);
    const list = res.body.data.images as Image[];
    expect(res.body.data.is_authenticated_search).toBe(false);
    expect(list.some((i) => i.source === 'my_private_library' || i.source === 'my_public_atlas')).toBe(false);
    expect(list.some((i) => i.is_private)).toBe(false);
    expect(list[0]).toMatchObject({ source: 'global_atlas', quality_score: 50, is_verified: true });
    expect(res.body.data.source_statistics.sources_active).toEqual(['global_atlas', 'openverse', 'unsplash', 'pexels', 'pixabay']);
  });

  it('refuses an invalid key with 401 and a sub-key without the search scope with 403; one with it searches the private library', async () => {
    expect((await search({ query: 'harbour' }, 'mk_not-a-real-key')).status).toBe(401);
    const noSearch = await t.request('POST', '/api/platform/sub-keys', { key: alice.key, body: { scopes: 'media,scrape' } });
    const denied = await search({ query: 'harbour' }, noSearch.body.sub_key);
    expect(denied.status).toBe(403);
    expect(denied.body.error).toMatch(/'search' scope/);
    const searchOnly = await t.request('POST', '/api/platform/sub-keys', { key: alice.key, body: { scopes: 'search' } });
    const allowed = await search({ query: 'harbour' }, searchOnly.body.sub_key);
    expect(allowed.status).toBe(200);
    expect((allowed.body.data.images as Image[]).filter((i) => i.source === 'my_private_library').map(mediaIdOf)).toContain(ids.harbour);
    // The key may come as the body's api_key too.
    expect((await search({ query: 'harbour', api_key: searchOnly.body.sub_key })).body.data.is_authenticated_search).toBe(true);
  });
});

describe('privacy', () => {
  it.each([
    ['text', () => ({ query: 'harbour' })],
    ['image_data', () => ({ image_data: images.bobs!.toString('base64') })],
    ['image_url', () => ({ image_url: `${siteUrl}/bobs.jpg` })],
  ])("never shows another account's private items (%s)", async (_form, body) => {
    const asAlice = await search(body(), alice.key);
    expect(asAlice.status, asAlice.text).toBe(200);
    const aliceMedia = (asAlice.body.data.images as Image[]).filter((i) => i.url.includes('/media/'));
    expect(aliceMedia.map(mediaIdOf)).not.toContain(ids.bobs);
    expect(aliceMedia.every((i) => [ids.harbour, ids.portrait, ids.signage, ids.shared].includes(mediaIdOf(i)))).toBe(true);
    const anonymous = await search(body());
    expect((anonymous.body.data.images as Image[]).some((i) => i.url.includes('/media/'))).toBe(false);
    // The same search with Bob's key finds his item: the check above could fail.
    const asBob = await search(body(), bob.key);
    expect((asBob.body.data.images as Image[]).filter((i) => i.source === 'my_private_library').map(mediaIdOf)).toContain(ids.bobs);
  });
});

describe('the trash', () => {
  it('leaves trashed library items out, by text and by image', async () => {
    const body = await scene(7300);
    const id = await upload(alice, body, 'harbour-to-trash.jpg', ['harbour']);
    const found = async () => {
      const byText = await search({ query: 'harbour', limit: 100 }, alice.key);
      const byImage = await search({ image_data: (await recompressed(body)).toString('base64'), query: 'zzzznothing' }, alice.key);
      return [...(byText.body.data.images as Image[]), ...(byImage.body.data.images as Image[])].map(mediaIdOf).filter((m) => m === id).length;
    };
    expect(await found()).toBe(2);
    expect((await t.request('DELETE', `/api/media/${id}`, { key: alice.key })).status).toBe(200);
    expect(await found()).toBe(0);
  });
});

describe('reverse image search', () => {
  it('finds a resized, recompressed copy in the library first, and the same image once across tiers', async () => {
    const copy = await recompressed(images.shared!);
    const res = await search({ image_data: `data:image/jpeg;base64,${copy.toString('base64')}`, query: 'zzzznothing' }, alice.key);
    expect(res.status, res.text).toBe(200);
    const list = res.body.data.images as Image[];
    expect(list[0]).toMatchObject({ source: 'my_private_library', quality_score: 100 });
    expect(mediaIdOf(list[0]!)).toBe(ids.shared);
    // Alice's and Bob's community items of the same photo are the same image: left out.
    expect(list.map(communityIdOf)).not.toContain(ids.aliceCommunityShared);
    expect(list.map(communityIdOf)).not.toContain(ids.bobCommunityShared);
  });

  it('finds a public community copy of an image URL without a key (no credential needed), once per image object', async () => {
    served.set('/bobs-public-small.jpg', await recompressed(images.bobsPublic!, 300));
    const res = await search({ image_url: `${siteUrl}/bobs-public-small.jpg` });
    expect(res.status, res.text).toBe(200);
    const list = res.body.data.images as Image[];
    expect(list[0]).toMatchObject({ source: 'global_atlas', is_verified: true });
    expect(communityIdOf(list[0]!)).toBe(ids.bobCommunity);
    // The shared photo: two community items of one image object, shown once.
    const shared = await search({ image_data: (await recompressed(images.shared!)).toString('base64') });
    const ofShared = (shared.body.data.images as Image[]).filter((i) => [ids.aliceCommunityShared, ids.bobCommunityShared].includes(communityIdOf(i)));
    expect(ofShared).toHaveLength(1);
  });

  it('finds a wiki photo by a copy of it', async () => {
    const res = await search({ image_data: (await recompressed(images.wiki!)).toString('base64') });
    expect((res.body.data.images as Image[])[0]).toMatchObject({ source: 'global_atlas', title: 'Harbour Lighthouse', is_verified: true });
  });
});

describe('keywords from an image, and who pays', () => {
  it("a keyed search pays one analysis from the caller's credits and searches the image's labels and words", async () => {
    await t.app.services.credits.grant(alice.id, { amount: 5, reference: 'search tests' });
    const before = (await t.app.services.ledger.wallet(alice.id, 'credits')).balance;
    const res = await search({ image_data: (await scene(7100)).toString('base64') }, alice.key);
    expect(res.status, res.text).toBe(200);
    expect(vision.requests.google).toHaveLength(1);
    expect((await t.app.services.ledger.wallet(alice.id, 'credits')).balance).toBe(before - 10_000);
    // The fake provider sees people, signage and text, and reads OPEN 24 HOURS.
    expect(res.body.data.query).toBe('person signage text open hours');
    const list = res.body.data.images as Image[];
    expect(list[0]).toMatchObject({ source: 'my_private_library' });
    expect(mediaIdOf(list[0]!)).toBe(ids.signage);
    expect(stock.requests.openverse[0]!.query.q).toBe('person signage text open hours');
  });

  it('without a key nothing is paid: no external analysis, the search goes on by hash alone', async () => {
    const res = await search({ image_data: (await recompressed(images.bobsPublic!)).toString('base64') });
    expect(res.status, res.text).toBe(200);
    expect(vision.requests.google).toHaveLength(0);
    expect(res.body.data.query).toBe('');
    expect(communityIdOf((res.body.data.images as Image[])[0]!)).toBe(ids.bobCommunity);
    // No words: the stock libraries are not asked.
    expect(stock.requests.openverse).toHaveLength(0);
  });

  it('a query sent with the image is searched instead of keywords: no analysis at all', async () => {
    const res = await search({ image_data: images.harbour!.toString('base64'), query: 'harbour' }, alice.key);
    expect(res.status).toBe(200);
    expect(vision.requests.google).toHaveLength(0);
    expect(res.body.data.query).toBe('harbour');
  });
});

describe('orientation, limit and stock', () => {
  it('keeps only the orientation asked for, in every tier', async () => {
    const res = await t.graphql(
      'query($input: ImageSearchInput!) { imageSearch(input: $input) { ... on QueryImageSearchSuccess { data { images { source width height } } } ... on ServiceError { message } } }',
      { input: { query: 'harbour', orientation: 'portrait', limit: 30 } },
      { key: alice.key },
    );
    const list = res.body.data.imageSearch.data.images as Array<{ source: string; width: number; height: number }>;
    expect(list.length).toBeGreaterThan(3);
    expect(list[0]!.source).toBe('my_private_library');
    for (const image of list) expect(image.height, JSON.stringify(image)).toBeGreaterThan(image.width * 1.05);
    expect(stock.requests.unsplash[0]!.query.orientation).toBe('portrait');
  });

  it('answers 20 by default, at most the limit, and asks the stock libraries only for the places left', async () => {
    const res = await search({ query: 'harbour' }, alice.key);
    expect(res.body.data.images).toHaveLength(20);
    const own = (res.body.data.images as Image[]).filter((i) => ['my_private_library', 'my_public_atlas', 'global_atlas'].includes(i.source)).length;
    expect(Number(stock.requests.pexels[0]!.query.per_page)).toBe(20 - own);
    stock.reset();
    const three = await search({ query: 'harbour', limit: 3 }, alice.key);
    expect((three.body.data.images as Image[]).map((i) => i.quality_score)).toEqual([100, 92, 84]);
    expect(stock.requests.openverse).toHaveLength(0);
  });

  it('keeps the other libraries when one fails or is late', async () => {
    stock.behaviour.unsplash = 'status500';
    stock.behaviour.pexels = 'slow';
    stock.slowMs = 5_000;
    const started = Date.now();
    const res = await search({ query: 'glacier' });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(res.body.data.source_statistics.sources_active).toEqual(['global_atlas', 'openverse', 'pixabay']);
    expect(res.body.data.source_statistics.sources_failed).toEqual(['unsplash', 'pexels']);
    const list = res.body.data.images as Image[];
    expect(new Set(list.map((i) => i.source))).toEqual(new Set(['openverse', 'pixabay']));
    expect(list[0]).toMatchObject({ quality_score: 25, page_url: expect.stringMatching(/^https:/), attribution: expect.any(String) });
  });
});

describe('validation', () => {
  it.each([
    [{}, 'query', /query is required unless image_data or image_url/],
    [{ query: '   ' }, 'query', /query is required/],
    [{ query: 'x'.repeat(201) }, 'query', /at most 200/],
    [{ query: 'x', limit: 101 }, 'limit', /at most 100/],
    [{ query: 'x', limit: 0 }, 'limit', /at least 1/],
    [{ query: 'x', limit: 2.5 }, 'limit', /integer/],
    [{ query: 'x', orientation: 'diagonal' }, 'orientation', /all, landscape, portrait, square/],
    [{ image_data: '%%%not base64%%%' }, 'image_data', /base64/],
    [{ image_data: Buffer.from('just some text, not an image').toString('base64') }, 'image_data', /not an image \(expected JPEG/],
    [{ image_data: 'aGVsbG8=', image_url: 'https://example.org/a.jpg' }, 'image_url', /either image_data or image_url/],
    [{ image_url: 'ftp://example.org/a.jpg' }, 'image_url', /http or https/],
    [{ image_url: 'http://10.1.2.3/a.jpg' }, 'image_url', /private|not allowed|refused/i],
    [{ image_url: 'http://169.254.169.254/latest/meta-data' }, 'image_url', /private|not allowed|refused/i],
  ])('refuses %j with a 400 naming %s', async (body, field, message) => {
    const res = await search(body as Record<string, unknown>, alice.key);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toMatch(new RegExp(`^${field}`));
    expect(res.body.error).toMatch(message);
  });

  it('refuses an image URL that answers 404, and a body over BODY_LIMIT with 413', async () => {
    const missing = await search({ image_url: `${siteUrl}/missing.jpg` });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/^image_url: the URL answered HTTP 404/);
    const huge = await search({ image_data: 'A'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
  });

  it('answers concurrent searches of several accounts, each with its own library', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => search({ query: 'harbour', limit: 5 }, i % 2 ? alice.key : bob.key)));
    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      const mine = (res.body.data.images as Image[]).filter((image) => image.source === 'my_private_library').map(mediaIdOf);
      expect(mine.length).toBeGreaterThan(0);
      for (const id of mine) expect(i % 2 ? ids.bobs !== id : id === ids.bobs).toBe(true);
    });
  });
});
