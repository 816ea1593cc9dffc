// The community library through REST and GraphQL: contributions (files and URLs, duplicates by image
// object), the public search, tags and their rewards, mobile ingest, unlocks with the 80% transfer,
// ownership claims and their review, the leaderboard and portfolios; and the attacks on each.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
let site: Server;
let siteUrl: string;
const served = new Map<string, Buffer>();

const NO_VISION = { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } };

beforeAll(async () => {
  t = await startTestApp({ fetch: LOCAL_FETCH, vision: NO_VISION });
  site = createServer((req, res) => {
    const body = served.get(req.url ?? '');
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await t?.stop();
});

const jpeg = (body: Buffer, name = 'photo.jpg') => ({ body, name, type: 'image/jpeg' });

async function contribute(key: string, body: Buffer, fields: Record<string, string> = {}) {
  return t.request('POST', '/api/community/contribute', { key, form: form(jpeg(body), fields) });
}

/** Coins for an account, straight from the grants account (the operator's grant). */
async function giveCoins(accountId: number, coins: number, id = `test-grant:${accountId}:${coins}:${Math.random()}`) {
  await t.app.services.ledger.transfer({ id, currency: 'coins', from: { system: 'grants' }, to: { account: accountId }, amount: coins * 10_000, action: 'grant' });
}

async function coinBalance(accountId: number) {
  return (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
}

describe('contribute', () => {
  it('pays 2 coins for a new image, nothing for the same image or a copy of it, and says so', async () => {
    const { key } = await t.createAccount('giver');
    const original = await scene(101);
    const first = await contribute(key, original, { name: 'harbour', tags: '["Harbour","boats"]', source_provider: 'camera' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ success: true, coins_earned: 2, balance: 2, duplicate: false, message: null });
    expect(first.body.id).toBe(first.body.item.id);
    expect(first.body.item).toMatchObject({ name: 'harbour', tags: ['harbour', 'boats'], source_provider: 'camera', verified: false, public: true, removed: false, has_original: false });

    const again = await contribute(key, original);
    expect(again.body).toMatchObject({ id: first.body.id, coins_earned: 0, balance: 2, duplicate: true });
    expect(again.body.message).toMatch(/already contributed this image/);

    // A smaller, recompressed copy is the same image object.
    const copy = await sharp(original).resize(400).jpeg({ quality: 30 }).toBuffer();
    const copied = await contribute(key, copy);
    expect(copied.body).toMatchObject({ id: first.body.id, coins_earned: 0, duplicate: true });

    const other = await contribute(key, await scene(102));
    expect(other.body).toMatchObject({ coins_earned: 2, balance: 4, duplicate: false });
    expect(other.body.item.image_object_id).not.toBe(first.body.item.image_object_id);
  });

  it('pays another contributor of the same image object: the object is shared, the reward is per contributor', async () => {
    const image = await scene(103);
    const a = await t.createAccount('share-a');
    const b = await t.createAccount('share-b');
    const first = await contribute(a.key, image);
    const second = await contribute(b.key, image);
    expect(second.body).toMatchObject({ coins_earned: 2, duplicate: false });
    expect(second.body.item.image_object_id).toBe(first.body.item.image_object_id);
  });

  it('takes an image_url (multipart or JSON), fetched through the SSRF-safe fetcher', async () => {
    const { key } = await t.createAccount('url');
    served.set('/pic.jpg', await scene(104));
    const res = await t.request('POST', '/api/community/contribute', { key, body: { image_url: `${siteUrl}/pic.jpg`, tags: ['sky'] } });
    expect(res.status, res.text).toBe(201);
    expect(res.body.item).toMatchObject({ source_url: `${siteUrl}/pic.jpg`, tags: ['sky'] });
    const metadata = await t.request('POST', '/api/community/contribute', { key, body: { image_url: 'http://169.254.169.254/latest/meta-data/' } });
    expect(metadata.status).toBe(400);
    expect(metadata.body.error).toMatch(/^image_url: .*169\.254\.169\.254/);
    const missing = await t.request('POST', '/api/community/contribute', { key, body: { image_url: `${siteUrl}/nothing.jpg` } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('image_url: the URL answered HTTP 404');
  });

  it('refuses what is not one image, naming the field', async () => {
    const { key } = await t.createAccount('bad');
    const neither = await t.request('POST', '/api/community/contribute', { key, form: form(null, { name: 'x' }) });
    expect(neither.status).toBe(400);
    expect(neither.body.error).toMatch(/^file or image_url is required/);
    const both = await t.request('POST', '/api/community/contribute', { key, form: form(jpeg(await scene(105)), { image_url: `${siteUrl}/pic.jpg` }) });
    expect(both.status).toBe(400);
    expect(both.body.error).toMatch(/not both/);
    const text = await t.request('POST', '/api/community/contribute', { key, form: form({ body: Buffer.from('hello, not an image'), name: 'a.txt', type: 'text/plain' }) });
    expect(text.status).toBe(400);
    expect(text.body.error).toMatch(/^file: /);
    const tags = await t.request('POST', '/api/community/contribute', { key, form: form(jpeg(await scene(106)), { tags: 'not json' }) });
    expect(tags.status).toBe(400);
    expect(tags.body.error).toMatch(/^tags: /);
  });

  it('needs a key with the media scope', async () => {
    const none = await t.request('POST', '/api/community/contribute', { form: form(jpeg(await scene(107))) });
    expect(none.status).toBe(401);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'scrape only', scopes: 'scrape' } });
    const refused = await t.request('POST', '/api/community/contribute', { key: sub.body.sub_key, form: form(jpeg(await scene(107))) });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/'media' scope/);
  });

  it('pays once when the same upload arrives several times at once', async () => {
    const { key, id } = await t.createAccount('race');
    const image = await scene(108);
    const answers = await Promise.all(Array.from({ length: 6 }, () => contribute(key, image)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => !a.body.duplicate)).toHaveLength(1);
    expect(answers.reduce((sum, a) => sum + a.body.coins_earned, 0)).toBe(2);
    expect(await coinBalance(id)).toBe(2);
  });

  it('honours the daily cap of uploads: the item is kept, nothing is paid, and the answer says why', async () => {
    const capped = await t.createAccount('capped');
    const patch = await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { daily_caps: { community_upload: 2 } } });
    expect(patch.status).toBe(200);
    try {
      // The settings are cached per process for a few seconds: read them fresh.
      (t.app.services.rewards as unknown as { cached: null }).cached = null;
      const paid = [await contribute(capped.key, await scene(110)), await contribute(capped.key, await scene(111))];
      expect(paid.map((p) => p.body.coins_earned)).toEqual([2, 2]);
      const third = await contribute(capped.key, await scene(112));
      expect(third.status).toBe(201);
      expect(third.body).toMatchObject({ coins_earned: 0, balance: 4, duplicate: false });
      expect(third.body.message).toMatch(/daily cap/);
    } finally {
      await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { daily_caps: { community_upload: 100 } } });
      (t.app.services.rewards as unknown as { cached: null }).cached = null;
    }
  });
});

describe('search, my and item detail', () => {
  let key: string;
  let publicId: number;
  let unlistedId: number;
  const tag = `fjord${Date.now()}`;

  beforeAll(async () => {
    ({ key } = await t.createAccount('lister'));
    publicId = (await contribute(key, await scene(120), { tags: JSON.stringify([tag]) })).body.id;
    unlistedId = (await contribute(key, await scene(121), { tags: JSON.stringify([tag]), public: 'false' })).body.id;
  });

  it('answers the public search without a key, listed items only, newest first, with limits', async () => {
    const res = await t.request('GET', `/api/community/search?tag=${tag}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, total: 1, limit: 20, offset: 0 });
    expect(res.body.items.map((i: { id: number }) => i.id)).toEqual([publicId]);
    expect(res.body.items[0].original_url).toBeNull();
    const verified = await t.request('GET', `/api/community/search?tag=${tag}&verified=1`);
    expect(verified.body.total).toBe(0);
    for (const [query, field] of [['limit=101', 'limit'], ['limit=0', 'limit'], ['offset=-1', 'offset'], ['verified=2', 'verified']]) {
      const bad = await t.request('GET', `/api/community/search?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error, query).toMatch(new RegExp(`^${field}`));
    }
  });

  it("serves the public file by its signed link, without metadata, and refuses a tampered link", async () => {
    const item = (await t.request('GET', `/api/community/${publicId}`, { key })).body;
    const file = await fetch(item.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    const metadata = await sharp(Buffer.from(await file.arrayBuffer())).metadata();
    expect(metadata.exif).toBeUndefined();
    const tampered = await fetch(item.url.replace(`/community/${publicId}/`, `/community/${unlistedId}/`));
    expect(tampered.status).toBe(403);
  });

  it("lists all of the caller's items in my, with the balance", async () => {
    const res = await t.request('GET', '/api/community/my', { key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, balance: 4, total_contributed: 2 });
    expect(res.body.contributions.map((i: { id: number }) => i.id)).toEqual([unlistedId, publicId]);
  });

  it('shows listed items to any key, and unlisted ones only to their contributor', async () => {
    const other = await t.createAccount('viewer');
    expect((await t.request('GET', `/api/community/${publicId}`, { key: other.key })).status).toBe(200);
    expect((await t.request('GET', `/api/community/${unlistedId}`, { key: other.key })).status).toBe(404);
    expect((await t.request('GET', `/api/community/${unlistedId}`, { key })).status).toBe(200);
    expect((await t.request('GET', `/api/community/${publicId}`)).status).toBe(401);
    expect((await t.request('GET', '/api/community/abc', { key })).status).toBe(400);
    expect((await t.request('GET', '/api/community/99999999', { key })).status).toBe(404);
  });

  it('reaches the same items through GraphQL: the search without a key, node by global id', async () => {
    const res = await t.graphql('query($tag: String) { communitySearch(tag: $tag) { ... on QueryCommunitySearchSuccess { data { total items { id databaseId } } } } }', { tag });
    const found = res.body.data.communitySearch.data;
    expect(found.total).toBe(1);
    const node = await t.graphql('query($id: ID!) { node(id: $id) { ... on CommunityItem { databaseId } } }', { id: found.items[0].id }, { key });
    expect(node.body.data.node).toEqual({ databaseId: publicId });
  });

  it('filters by verified the same way as 0 or 1 on REST and as a Boolean in GraphQL, and refuses other text', async () => {
    const graphqlTotal = async (verified: boolean) =>
      (await t.graphql('query($tag: String, $verified: Boolean) { communitySearch(tag: $tag, verified: $verified) { ... on QueryCommunitySearchSuccess { data { total } } } }', { tag, verified })).body.data
        .communitySearch.data.total;
    expect([await graphqlTotal(true), await graphqlTotal(false)]).toEqual([0, 1]);
    await t.app.services.db.prisma.communityItem.update({ where: { id: publicId }, data: { verified: true } });
    expect(await graphqlTotal(true)).toBe(1);
    const rest = await t.request('GET', `/api/community/search?tag=${tag}&verified=1`);
    expect(rest.body.items.map((i: { id: number }) => i.id)).toEqual([publicId]);
    const words = await t.request('GET', '/api/community/search?verified=true');
    expect([words.status, words.body.error]).toEqual([400, 'verified: expected 0 or 1']);
  });
});

describe('image objects in GraphQL', () => {
  it('shows an item’s image object and finds it again by its blockhash', async () => {
    const { key } = await t.createAccount('objects');
    const made = await contribute(key, await scene(180));
    const item = await t.graphql('query($id: Int!) { communityItem(id: $id) { ... on QueryCommunityItemSuccess { data { imageObject { databaseId sha256 blockhash width height } } } } }', { id: made.body.id }, { key });
    const object = item.body.data.communityItem.data.imageObject;
    expect(object).toMatchObject({ databaseId: made.body.item.image_object_id, width: 800, height: 600 });
    expect(object.blockhash).toMatch(/^[0-9a-f]{64}$/);
    const query = 'query($b: String!, $limit: Int) { nearestImageObjects(blockhash: $b, limit: $limit) { ... on QueryNearestImageObjectsSuccess { data { distance object { databaseId } } } ... on ServiceError { message } } }';
    const near = await t.graphql(query, { b: object.blockhash }, { key });
    expect(near.body.data.nearestImageObjects.data[0]).toEqual({ distance: 0, object: { databaseId: object.databaseId } });
    expect((await t.graphql(query, { b: object.blockhash, limit: 101 }, { key })).body.data.nearestImageObjects.message).toBe('limit: expected at most 100');
    expect((await t.graphql(query, { b: 'xyz' }, { key })).body.data.nearestImageObjects.message).toMatch(/^blockhash: expected 64 hex/);
    expect((await t.graphql(query, { b: object.blockhash })).status).toBe(401);
  });
});

describe('tags', () => {
  it('pays 0.5 coins once per item and tagger, whatever the day; replacing is for the contributor, and tagging one’s own item earns nothing', async () => {
    const owner = await t.createAccount('tag-owner');
    const tagger = await t.createAccount('tagger');
    const id = (await contribute(owner.key, await scene(130), { tags: '["sea"]' })).body.id;
    const first = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['Boat', 'harbour'], action: 'add' } });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ success: true, coins_earned: 0.5, verified: false, balance: 0.5, matched: [], message: null });
    expect(first.body.item.tags).toEqual(['sea', 'boat', 'harbour']);
    const second = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['dock'] } });
    expect(second.body).toMatchObject({ coins_earned: 0, balance: 0.5 });
    expect(second.body.message).toMatch(/already paid for tagging/);
    expect(second.body.item.tags).toContain('dock');

    const replace = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['spam'], action: 'replace' } });
    expect(replace.status).toBe(403);
    // Tagging one's own item works and earns nothing (it paid 0.5 + 0.25 per item and day before issue 20).
    const own = await t.request('POST', `/api/community/${id}/tag`, { key: owner.key, body: { tags: ['sea', 'coast'], action: 'replace' } });
    expect(own.body).toMatchObject({ coins_earned: 0, balance: 2 });
    expect(own.body.message).toMatch(/your own items earns nothing/);
    expect(own.body.item.tags).toEqual(['sea', 'coast']);
    const ownAgain = await t.request('POST', `/api/community/${id}/tag`, { key: owner.key, body: { tags: ['cliff'] } });
    expect(ownAgain.body.coins_earned).toBe(0);
    // Once per item, not per day: the same tagger on a later day is not paid again.
    await t.app.services.db.query(`UPDATE "CommunityTagging" SET "day" = "day" - 1 WHERE "itemId" = $1`, [id]);
    const tomorrow = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: ['pier'] } });
    expect(tomorrow.body).toMatchObject({ coins_earned: 0, balance: 0.5 });

    for (const [body, field] of [[{ tags: [] }, 'tags'], [{}, 'tags'], [{ tags: ['x'], action: 'remove' }, 'action'], [{ tags: Array(21).fill(0).map((_, i) => `t${i}`) }, 'tags']] as const) {
      const bad = await t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toMatch(new RegExp(`^${field}`));
    }
  });

  it('pays each of many concurrent tag calls of one account on one item once', async () => {
    const owner = await t.createAccount('tag-race-owner');
    const tagger = await t.createAccount('tag-racer');
    const id = (await contribute(owner.key, await scene(131))).body.id;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => t.request('POST', `/api/community/${id}/tag`, { key: tagger.key, body: { tags: [`t${i}`] } })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.reduce((sum, a) => sum + a.body.coins_earned, 0)).toBe(0.5);
    expect(await coinBalance(tagger.id)).toBe(0.5);
  });
});

describe('ingest', () => {
  it('stores a private original, a stripped public file of at most 1280 px, and answers the ingest result', async () => {
    const { key, handle } = await t.createAccount('phone');
    const big = await sharp(await scene(140, 2000, 1500)).withExif({ IFD0: { Copyright: 'secret camera owner' } }).jpeg().toBuffer();
    const res = await t.request('POST', '/api/community/ingest', { key, form: form(jpeg(big), { latitude: '59.9139', longitude: '10.7522', unlock_price: '5' }) });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ success: true, coins_harvested: 2, balance: 2, ai_summary: '', ai_labels: [], attribution_handle: `@${handle}`, unlock_price: 5, latitude: 59.9139, longitude: 10.7522, duplicate: false });
    expect(res.body.intel_id).toEqual(expect.any(Number));
    expect(res.body.image_object_id).toEqual(expect.any(Number));
    const stored = Buffer.from(await (await fetch(res.body.stored_url)).arrayBuffer());
    const meta = await sharp(stored).metadata();
    expect(Math.max(meta.width!, meta.height!)).toBe(1280);
    expect(meta.exif).toBeUndefined();

    // The contributor reaches the original; another account sees a coarse position and no original.
    const mine = (await t.request('GET', `/api/community/${res.body.intel_id}`, { key })).body;
    const original = await fetch(mine.original_url);
    expect(original.status).toBe(200);
    expect(Buffer.from(await original.arrayBuffer()).equals(big)).toBe(true);
    const other = await t.createAccount('stranger');
    const theirs = (await t.request('GET', `/api/community/${res.body.intel_id}`, { key: other.key })).body;
    expect(theirs).toMatchObject({ original_url: null, latitude: 59.91, longitude: 10.75, has_original: true, unlock_price: 5 });
    // An original link does not open another item's original, nor a public one's.
    expect((await fetch(mine.original_url.replace('/original?', '/public?'))).status).toBe(403);
  });

  it('takes a phone’s HEIC: the position from its EXIF GPS, a JPEG public file, the HEIC kept as the original', async () => {
    const { key } = await t.createAccount('iphone');
    const heic = readFileSync(new URL('../fixtures/heic/scene.heic', import.meta.url));
    const res = await t.request('POST', '/api/community/ingest', { key, form: form({ body: heic, name: 'IMG_0001.HEIC', type: 'image/heic' }) });
    expect(res.status, res.text).toBe(201);
    expect(res.body.latitude).toBeCloseTo(-33.4489, 4);
    expect(res.body.longitude).toBeCloseTo(-70.6693, 4);
    const publicFile = await fetch(res.body.stored_url);
    expect(publicFile.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await publicFile.arrayBuffer())).metadata()).exif).toBeUndefined();
    const mine = (await t.request('GET', `/api/community/${res.body.intel_id}`, { key })).body;
    const original = await fetch(mine.original_url);
    expect(original.headers.get('content-type')).toBe('image/heic');
    expect(Buffer.from(await original.arrayBuffer()).equals(heic)).toBe(true);
  });

  it('takes attribution_handle with or without @', async () => {
    const { key } = await t.createAccount('credit');
    const res = await t.request('POST', '/api/community/ingest', { key, form: form(jpeg(await scene(141)), { attribution_handle: 'studio_9' }) });
    expect(res.body.attribution_handle).toBe('@studio_9');
    expect(res.body.unlock_price).toBe(0);
  });

  it('refuses positions out of range, half a position, bad prices and a missing file, naming the field', async () => {
    const { key } = await t.createAccount('bad-phone');
    const image = await scene(142);
    const cases: Array<[Record<string, string>, string]> = [
      [{ latitude: '91', longitude: '0' }, 'latitude'],
      [{ latitude: '0', longitude: '-180.5' }, 'longitude'],
      [{ latitude: 'north', longitude: '0' }, 'latitude'],
      [{ latitude: '10' }, 'longitude'],
      [{ unlock_price: '-1' }, 'unlock_price'],
      [{ unlock_price: '0.00001' }, 'unlock_price'],
      [{ unlock_price: '1e9' }, 'unlock_price'],
      [{ attribution_handle: 'two words' }, 'attribution_handle'],
    ];
    for (const [fields, field] of cases) {
      const res = await t.request('POST', '/api/community/ingest', { key, form: form(jpeg(image), fields) });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(res.body.error, JSON.stringify(fields)).toMatch(new RegExp(`^${field}`));
    }
    const none = await t.request('POST', '/api/community/ingest', { key, form: form(null, { latitude: '1', longitude: '1' }) });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/^file/);
  });
});

describe('unlocks', () => {
  async function pricedItem(price: number, seed: number) {
    const seller = await t.createAccount('seller');
    const res = await t.request('POST', '/api/community/ingest', { key: seller.key, form: form(jpeg(await scene(seed)), { unlock_price: String(price) }) });
    expect(res.status, res.text).toBe(201);
    return { seller, id: res.body.intel_id as number };
  }

  it('charges the buyer once and pays the uploader 80% at once; again costs nothing; the original opens', async () => {
    const { seller, id } = await pricedItem(5, 150);
    const buyer = await t.createAccount('buyer');
    const poor = await t.request('POST', `/api/community/${id}/unlock`, { key: buyer.key });
    expect(poor.status).toBe(402);
    expect(poor.body.error).toMatch(/5 coins/);

    await giveCoins(buyer.id, 7);
    const sellerBefore = await coinBalance(seller.id);
    const feesBefore = await t.app.services.ledger.systemBalance('fees', 'coins');
    const bought = await t.request('POST', `/api/community/${id}/unlock`, { key: buyer.key });
    expect(bought.status, bought.text).toBe(200);
    expect(bought.body).toMatchObject({ success: true, item_id: id, charged: 5, already_unlocked: false, uploader_earned: 4, balance: 2 });
    expect(await coinBalance(seller.id)).toBe(sellerBefore + 4);
    expect((await t.app.services.ledger.systemBalance('fees', 'coins')) - feesBefore).toBe(10_000);
    expect((await fetch(bought.body.original_url)).status).toBe(200);

    const again = await t.request('POST', `/api/community/${id}/unlock`, { key: buyer.key });
    expect(again.body).toMatchObject({ charged: 0, already_unlocked: true, balance: 2 });
    const detail = (await t.request('GET', `/api/community/${id}`, { key: buyer.key })).body;
    expect(detail.original_url).toMatch(/\/original\?/);
  });

  it('needs the master key and refuses unknown items', async () => {
    const { id } = await pricedItem(1, 151);
    const buyer = await t.createAccount('sub-buyer');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: buyer.key, body: { label: 'media', scopes: 'media' } });
    expect((await t.request('POST', `/api/community/${id}/unlock`, { key: sub.body.sub_key })).status).toBe(403);
    expect((await t.request('POST', '/api/community/99999999/unlock', { key: buyer.key })).status).toBe(404);
  });

  it('pays the uploader exactly 80% of each of 100 concurrent unlocks by different buyers', async () => {
    const { seller, id } = await pricedItem(2.5, 152);
    const buyers = await Promise.all(Array.from({ length: 100 }, (_, i) => t.createAccount(`crowd${i}`)));
    await Promise.all(buyers.map((b) => giveCoins(b.id, 3)));
    const before = await coinBalance(seller.id);
    const answers = await Promise.all(buyers.map((b) => t.request('POST', `/api/community/${id}/unlock`, { key: b.key })));
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(200));
    expect(answers.every((a) => a.body.charged === 2.5 && a.body.uploader_earned === 2)).toBe(true);
    expect(await coinBalance(seller.id)).toBe(before + 200);
    for (const b of buyers.slice(0, 5)) expect(await coinBalance(b.id)).toBe(0.5);
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });
});

describe('ownership claims', () => {
  it('takes claims, lets the operator review them, hides a removed item everywhere and pays royalties on unlocks', async () => {
    const uploader = await t.createAccount('uploader');
    const owner = await t.createAccount('real-owner');
    const buyer = await t.createAccount('claim-buyer');
    const tag = `claimed${Date.now()}`;
    const priced = (await t.request('POST', '/api/community/ingest', { key: uploader.key, form: form(jpeg(await scene(160)), { unlock_price: '4', tags: JSON.stringify([tag]) }) })).body.intel_id;
    const other = (await contribute(uploader.key, await scene(161), { tags: JSON.stringify([tag]) })).body.id;

    const own = await t.request('POST', `/api/community/${priced}/claim`, { key: uploader.key, body: { kind: 'removal', reason: 'mine' } });
    expect(own.status).toBe(403);
    for (const [body, field] of [[{ reason: 'x' }, 'kind'], [{ kind: 'royalty', reason: 'x' }, 'royalty_coins'], [{ kind: 'royalty', royalty_coins: 11, reason: 'x' }, 'royalty_coins'], [{ kind: 'removal' }, 'reason'], [{ kind: 'removal', royalty_coins: 1, reason: 'x' }, 'royalty_coins']] as const) {
      const bad = await t.request('POST', `/api/community/${priced}/claim`, { key: owner.key, body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    const royalty = await t.request('POST', `/api/community/${priced}/claim`, { key: owner.key, body: { kind: 'royalty', royalty_coins: 1.5, reason: 'I took this photo in 2019' } });
    expect(royalty.status, royalty.text).toBe(201);
    expect(royalty.body).toMatchObject({ success: true, item_id: priced, kind: 'royalty', royalty_coins: 1.5, status: 'pending', claimant: owner.handle });
    expect((await t.request('POST', `/api/community/${priced}/claim`, { key: owner.key, body: { kind: 'royalty', royalty_coins: 2, reason: 'again' } })).status).toBe(409);
    const removal = await t.request('POST', `/api/community/${other}/claim`, { key: owner.key, body: { kind: 'removal', reason: 'stolen' } });
    expect(removal.status).toBe(201);

    // Who sees the claims: the claimant and the uploader, nobody else.
    expect((await t.request('GET', `/api/community/${priced}/claim`, { key: uploader.key })).body.claims).toHaveLength(1);
    expect((await t.request('GET', `/api/community/${priced}/claim`, { key: owner.key })).body.claims).toHaveLength(1);
    expect((await t.request('GET', `/api/community/${priced}/claim`, { key: buyer.key })).body.claims).toHaveLength(0);

    const queue = await t.request('GET', '/api/admin/claims?status=pending', { admin: true });
    expect(queue.body.claims.map((c: { id: number }) => c.id)).toEqual(expect.arrayContaining([royalty.body.id, removal.body.id]));
    expect((await t.request('GET', '/api/admin/claims', { key: t.ownerKey })).status).toBe(401);
    const approved = await t.request('POST', `/api/admin/claims/${royalty.body.id}/approve`, { admin: true });
    expect(approved.body).toMatchObject({ status: 'approved', reviewed_at: expect.any(String) });
    expect((await t.request('POST', `/api/admin/claims/${royalty.body.id}/reject`, { admin: true })).status).toBe(409);
    expect((await t.request('POST', `/api/admin/claims/${removal.body.id}/approve`, { admin: true })).status).toBe(200);

    // The removed item: gone from the search, the detail for others and its file link; its uploader still sees it.
    const search = await t.request('GET', `/api/community/search?tag=${tag}`);
    expect(search.body.items.map((i: { id: number }) => i.id)).toEqual([priced]);
    expect((await t.request('GET', `/api/community/${other}`, { key: buyer.key })).status).toBe(404);
    const theirs = await t.request('GET', `/api/community/${other}`, { key: uploader.key });
    expect(theirs.body.removed).toBe(true);
    expect((await fetch(theirs.body.url)).status).toBe(404);

    // The royalty comes out of the uploader's 80% of each unlock.
    await giveCoins(buyer.id, 4);
    const ownerBefore = await coinBalance(owner.id);
    const uploaderBefore = await coinBalance(uploader.id);
    const bought = await t.request('POST', `/api/community/${priced}/unlock`, { key: buyer.key });
    expect(bought.body).toMatchObject({ charged: 4, uploader_earned: 1.7 });
    expect(await coinBalance(owner.id)).toBe(ownerBefore + 1.5);
    expect(await coinBalance(uploader.id)).toBeCloseTo(uploaderBefore + 1.7, 6);
  });
});

describe('leaderboard and portfolios', () => {
  it('ranks contributors of the period and shows public and own portfolios', async () => {
    const star = await t.createAccount('star');
    for (const seed of [170, 171, 172]) await contribute(star.key, await scene(seed));
    const board = await t.request('GET', '/api/community/leaderboard?period=day&limit=100', { key: star.key });
    expect(board.status).toBe(200);
    expect(board.body.period).toBe('day');
    const entry = board.body.entries.find((e: { handle: string }) => e.handle === star.handle);
    expect(entry).toMatchObject({ contributions: 3, verified: 0, coins_earned: 6 });
    expect(board.body.entries[0].rank).toBe(1);
    expect((await t.request('GET', '/api/community/leaderboard?period=year', { key: star.key })).status).toBe(400);

    // Any valid key reads another's public portfolio; without a key it is a 401 (the spec's three key-less routes do not include it).
    expect((await t.request('GET', `/api/community/portfolio/@${star.handle}`)).status).toBe(401);
    const open = await t.request('GET', `/api/community/portfolio/@${star.handle}`, { key: t.ownerKey });
    expect(open.status, open.text).toBe(200);
    expect(open.body).toMatchObject({ handle: star.handle, attribution: `@${star.handle}`, contributions: 3, private: null });
    expect(open.body.recent).toHaveLength(3);
    expect((await t.request('GET', '/api/community/portfolio/nobody-here', { key: t.ownerKey })).status).toBe(404);
    const own = await t.request('GET', '/api/community/portfolio', { key: star.key });
    expect(own.body.private).toMatchObject({ balance: 6, unlisted: 0, removed: 0, coins_earned: 6, unlock_sales: 0 });
    expect((await t.request('GET', '/api/community/portfolio')).status).toBe(401);
  });
});

describe('the wallet in GraphQL', () => {
  it('shows coin balance and the movements that made it, newest first', async () => {
    const { key } = await t.createAccount('wallet');
    await contribute(key, await scene(190));
    const query = 'query($limit: Int) { wallet(limit: $limit) { ... on QueryWalletSuccess { data { currency balance available reserved history { total entries { amount action } } } } ... on ServiceError { message } } }';
    const res = await t.graphql(query, {}, { key });
    expect(res.body.data.wallet.data).toEqual({ currency: 'coins', balance: 2, available: 2, reserved: 0, history: { total: 1, entries: [{ amount: 2, action: 'reward:community_upload' }] } });
    expect((await t.graphql(query, { limit: 500 }, { key })).body.data.wallet.message).toBe('limit: expected at most 200');
  });
});
