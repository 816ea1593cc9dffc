// Issue 20, "different flat images are the same image", through the REST routes: solid blue, green
// and red images from three accounts are three image objects (they all hash to an all-zero
// blockhash) and earn no upload reward; a bulk mirror of a red image does not match the blue object
// and pays nothing; ReplaceFlow and reverse search do not offer one plain image for another; the
// media mirror check refuses it. And the bulk mirror's reward cannot be farmed: more URLs of one
// image, query-string variants, other jobs and concurrent jobs pay once per account and image
// object, and one's own images (contributed, or in one's library) pay nothing.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { KeywordImageSearch } from '../../src/modules/replaceflow/index.js';
import { LOCAL_FETCH, startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { nearCopy } from '../mirrors/fixtures.js';
import { hammingDistance, processUpload } from '../../src/modules/images/index.js';
import { SAME_OBJECT_MAX_DISTANCE } from '../../src/modules/image-objects/index.js';
import { flat, gradient, radial } from './plain-images.js';

const NO_VISION = { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } };

let t: TestApp;
let site: Server;
let siteUrl: string;
/** What the local site serves, by path: images, and HTML pages for ReplaceFlow. */
const served = new Map<string, { type: string; body: Buffer | string }>();
let seed = 20_400;

interface Account {
  key: string;
  id: number;
}
/** The three flat images and who gave them. */
const plain: Record<'blue' | 'green' | 'red', { account: Account; body: Buffer; itemId: number; objectId: number }> = {} as never;

beforeAll(async () => {
  t = await startTestApp({ fetch: LOCAL_FETCH, vision: NO_VISION, jobs: { concurrency: 3, leaseMs: 10_000, pollMs: 50 } });
  site = createServer((req, res) => {
    const file = served.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => site?.close(resolve));
  await t?.stop();
});

const serve = (path: string, body: Buffer, type = 'image/jpeg') => {
  served.set(path, { type, body });
  return siteUrl + path;
};

async function contribute(key: string, body: Buffer): Promise<TestResponse> {
  return t.request('POST', '/api/community/contribute', { key, form: form({ body, name: 'c.png', type: 'image/png' }) });
}

async function coins(accountId: number): Promise<number> {
  return (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
}

/** Starts a bulk mirror and polls it as a client would until it leaves pending, with details. */
async function mirrorJob(key: string, urls: string[]): Promise<TestResponse> {
  const started = await t.request('POST', '/api/platform/bulk-mirror', { key, body: { urls } });
  expect(started.status, started.text).toBe(202);
  const deadline = Date.now() + 25_000;
  for (;;) {
    const res = await t.request('GET', `/api/platform/bulk-mirror/${started.body.job_id}?details=true`, { key });
    if (res.body?.status !== 'pending') return res;
    if (Date.now() > deadline) throw new Error(`bulk mirror still pending: ${res.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const byUrl = (res: TestResponse) => Object.fromEntries((res.body.urls as Array<{ url: string }>).map((u) => [u.url, u])) as Record<string, Record<string, unknown>>;

describe('flat images of different colours', () => {
  beforeAll(async () => {
    for (const [colour, hex] of [['blue', '#0000ff'], ['green', '#00ff00'], ['red', '#ff0000']] as const) {
      const account = await t.createAccount(`plain-${colour}`);
      const body = await flat(hex);
      const res = await contribute(account.key, body);
      expect(res.status, res.text).toBe(201);
      plain[colour] = { account, body, itemId: res.body.id, objectId: res.body.item.image_object_id };
    }
  });

  it('are three image objects from three accounts, kept without an upload reward, and the answer says why', async () => {
    expect(new Set(Object.values(plain).map((p) => p.objectId)).size).toBe(3);
    for (const p of Object.values(plain)) {
      const object = await t.app.services.imageObjects.byId(p.objectId);
      expect(object).toMatchObject({ blockhash: '0'.repeat(64), lowInformation: true });
      expect(await coins(p.account.id)).toBe(0);
    }
    const again = await contribute(plain.blue.account.key, plain.blue.body);
    expect(again.body).toMatchObject({ id: plain.blue.itemId, duplicate: true, coins_earned: 0, balance: 0 });
    expect(again.body.message).toMatch(/plain image .* cannot be told apart from other plain images/);
    // Another account's copy of the exact bytes is that object, and is not paid either.
    const other = await t.createAccount('plain-copier');
    const copied = await contribute(other.key, plain.blue.body);
    expect(copied.status).toBe(201);
    expect(copied.body).toMatchObject({ duplicate: false, coins_earned: 0, balance: 0, item: { image_object_id: plain.blue.objectId } });
    expect(copied.body.message).toMatch(/cannot be told apart from other plain images, so it earns no upload reward/);
    // A gradient is plain too; a photo-like scene is still paid.
    expect((await contribute(other.key, await gradient('#0000ff', '#ffff00', 1, 0))).body).toMatchObject({ coins_earned: 0 });
    expect((await contribute(other.key, await scene(++seed))).body).toMatchObject({ coins_earned: 2, balance: 2 });
  });

  it('sent many times at once by one account, is kept once and paid nothing (the requests that lose the race are duplicates)', async () => {
    const account = await t.createAccount('plain-racer');
    const body = await flat('#123456');
    const answers = await Promise.all(Array.from({ length: 8 }, () => contribute(account.key, body)));
    for (const res of answers) expect(res.status, res.text).toBeLessThan(300);
    expect(new Set(answers.map((res) => res.body.id)).size).toBe(1);
    expect(answers.map((res) => res.body.coins_earned)).toEqual(Array(8).fill(0));
    expect(await coins(account.id)).toBe(0);
  });

  it('a bulk mirror of a red image does not match the blue object and pays nothing; the red object by its exact bytes pays nothing either', async () => {
    const mirrorer = await t.createAccount('plain-mirror');
    const redJpeg = serve('/plain/red.jpg', await flat('#ff0000', { format: 'jpeg' }));
    const redExact = serve('/plain/red.png', plain.red.body, 'image/png');
    const blueish = serve('/plain/navy.png', await flat('#000080'), 'image/png');
    const done = await mirrorJob(mirrorer.key, [redJpeg, redExact, blueish]);
    expect(done.body).toMatchObject({ status: 'completed', matched: 1, unmatched: 2, coins_earned: 0 });
    const outcome = byUrl(done);
    expect(outcome[redJpeg]).toMatchObject({ state: 'unmatched', image_object_id: null, coins: 0, reason: expect.stringMatching(/no known image object/) });
    expect(outcome[blueish]).toMatchObject({ state: 'unmatched', image_object_id: null, coins: 0 });
    expect(outcome[redExact]).toMatchObject({ state: 'matched', image_object_id: plain.red.objectId, distance: 0, coins: 0, reason: expect.stringMatching(/plain image .* exact bytes only/) });
    expect(await coins(mirrorer.id)).toBe(0);
  });

  it('ReplaceFlow does not offer one plain image for another, from the local index or by pHash', async () => {
    // Two radial gradients of other colours: blockhash and pHash within the same-image distances.
    const [lead, other] = await Promise.all([radial('#ffffff', '#000000'), radial('#ffcc88', '#002244')]);
    const [leadHashes, otherHashes] = await Promise.all([lead, other].map((image) => processUpload(image, { maxBytes: 50_000_000, maxPixels: 80_000_000 })));
    expect(hammingDistance(leadHashes!.blockhash!, otherHashes!.blockhash!)).toBeLessThanOrEqual(SAME_OBJECT_MAX_DISTANCE);
    expect(hammingDistance(leadHashes!.phash!, otherHashes!.phash!)).toBeLessThanOrEqual(10);
    const giver = await t.createAccount('plain-radial');
    const given = await contribute(giver.key, other);
    expect(given.status, given.text).toBe(201);

    served.set('/news/plain', {
      type: 'text/html; charset=utf-8',
      body: '<!doctype html><html><head><title>A glow in the dark</title><meta property="og:image" content="/img/glow.jpg"></head><body></body></html>',
    });
    serve('/img/glow.jpg', lead);
    const stockOther = serve('/stock/glow.jpg', other);
    const stockFlat = serve('/stock/blue.jpg', await flat('#0000ff', { format: 'jpeg' }));
    const stock: KeywordImageSearch = async () => [
      { url: stockOther, title: 'Glow', source: 'fakestock' },
      { url: stockFlat, title: 'Blue', source: 'fakestock' },
    ];
    t.app.services.replaceflow.useStockSearch(stock);
    const res = await t.request('POST', '/api/replaceflow', { key: plain.green.account.key, body: { article_url: `${siteUrl}/news/plain`, max_results: 10 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.searched).toContainEqual({ tier: 'local_index', status: 'ok', found: 0 });
    const discoveries = (res.body.results as Array<{ type: string; url: string; source: string; phash_match: boolean; phash_distance: number }>).slice(1);
    expect(discoveries.some((d) => d.source === 'community')).toBe(false);
    expect(discoveries.map((d) => d.url).sort()).toEqual([stockFlat, stockOther].sort());
    // The other gradient's pHash is within the spec's 10 bits of the lead's, and it is still not the same photo.
    expect(discoveries.find((d) => d.url === stockOther)!.phash_distance).toBeLessThanOrEqual(10);
    for (const d of discoveries) expect(d.phash_match).toBe(false);
  });

  it('reverse search finds no other flat image, in the community or the library, and the exact bytes once', async () => {
    const owner = plain.blue.account;
    const uploaded = await t.request('POST', '/api/media/upload', { key: owner.key, form: form({ body: plain.blue.body, name: 'blue.png', type: 'image/png' }) });
    expect(uploaded.status, uploaded.text).toBe(201);
    const search = async (image: Buffer) => {
      const res = await t.request('POST', '/api/images/search', { key: owner.key, body: { image_data: image.toString('base64'), query: 'zzzznothing' } });
      expect(res.status, res.text).toBe(200);
      return (res.body.data.images as Array<{ url: string; source: string }>).map((i) => i.url);
    };
    const ours = (urls: string[]) => urls.filter((u) => u.startsWith(t.url));
    const community = (id: number) => new RegExp(`/community/${id}/`);
    expect(ours(await search(await flat('#ff0000', { format: 'jpeg' })))).toEqual([]);
    expect(ours(await search(await flat('#00ff00', { format: 'jpeg' })))).toEqual([]);
    // The exact blue bytes: the library item (tier 1); the community item of the same bytes is the same image, left out.
    const exact = ours(await search(plain.blue.body));
    expect(exact).toHaveLength(1);
    expect(exact[0]).toMatch(new RegExp(`/media/${uploaded.body.media_id}/`));
    for (const p of [plain.green, plain.red]) expect(exact.some((u) => community(p.itemId).test(u))).toBe(false);
    // A bare all-zero blockhash (no bytes to compare) finds no object.
    const gql = await t.request('POST', '/graphql', { key: owner.key, body: { query: `{ nearestImageObjects(blockhash: "${'0'.repeat(64)}") { ... on QueryNearestImageObjectsSuccess { data { distance } } } }` } });
    expect(gql.body.data.nearestImageObjects.data).toEqual([]);
  });

  it('the media mirror check refuses another flat image for a flat library item, and takes its exact bytes', async () => {
    const owner = await t.createAccount('plain-media-mirror');
    const uploaded = await t.request('POST', '/api/media/upload', { key: owner.key, form: form({ body: plain.green.body, name: 'green.png', type: 'image/png' }) });
    const mirror = (url: string) => t.request('POST', '/api/media/mirror', { key: owner.key, body: { media_id: uploaded.body.media_id, url } });
    const other = await mirror(serve('/mm/red.png', plain.red.body, 'image/png'));
    expect(other.status).toBe(400);
    expect(other.body.error).toMatch(/not the same photo as media item \d+ \(its bytes differ, and a plain image .* only by its exact bytes\)/);
    expect((await mirror(serve('/mm/green.png', plain.green.body, 'image/png'))).status).toBe(200);
  });
});

describe('the bulk mirror reward', () => {
  /** A photo-like image made a known object by `giver`'s contribution. */
  async function known(giver: Account): Promise<{ body: Buffer; objectId: number }> {
    const body = await scene(++seed);
    const res = await contribute(giver.key, body);
    expect(res.status, res.text).toBe(201);
    return { body, objectId: res.body.item.image_object_id };
  }

  it('pays once per account and image object: more URLs, query-string variants, copies and later jobs earn nothing more', async () => {
    const giver = await t.createAccount('farm-giver');
    const farmer = await t.createAccount('farmer');
    const image = await known(giver);
    const urls = [
      serve('/farm/a.jpg', image.body),
      `${siteUrl}/farm/a.jpg?v=2`,
      `${siteUrl}/farm/a.jpg?utm_source=x`,
      serve('/farm/b.jpg', image.body),
      serve('/farm/c.jpg', await nearCopy(image.body)),
    ];
    const first = await mirrorJob(farmer.key, urls);
    expect(first.body).toMatchObject({ status: 'completed', matched: 5, unmatched: 0, coins_earned: 0.5 });
    const outcomes = first.body.urls as Array<{ state: string; image_object_id: number; coins: number; reason: string | null }>;
    expect(outcomes.every((o) => o.image_object_id === image.objectId)).toBe(true);
    expect(outcomes.filter((o) => o.coins === 0.5)).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.coins === 0)) expect(o.reason).toMatch(/a mirror pays once per image object and account: you registered a mirror of image object \d+ before/);
    const later = await mirrorJob(farmer.key, [serve('/farm/d.jpg', image.body), `${siteUrl}/farm/a.jpg?v=3`]);
    expect(later.body).toMatchObject({ matched: 2, coins_earned: 0 });
    expect(await coins(farmer.id)).toBe(0.5);
    // Another account finding a mirror of the same object is paid its own once.
    const finder = await t.createAccount('farm-finder');
    expect((await mirrorJob(finder.key, [serve('/farm/e.jpg', image.body)])).body).toMatchObject({ matched: 1, coins_earned: 0.5 });
  });

  it('pays once when one account sends mirrors of one object in concurrent jobs', async () => {
    const giver = await t.createAccount('race-giver');
    const racer = await t.createAccount('race-farmer');
    const image = await known(giver);
    const jobs = await Promise.all([0, 1, 2, 3].map((i) => mirrorJob(racer.key, [serve(`/race/${i}-a.jpg`, image.body), serve(`/race/${i}-b.jpg`, image.body)])));
    expect(jobs.map((j) => j.body.matched)).toEqual([2, 2, 2, 2]);
    expect(jobs.reduce((sum, j) => sum + j.body.coins_earned, 0)).toBe(0.5);
    expect(await coins(racer.id)).toBe(0.5);
  });

  it("pays nothing for mirrors of one's own images: contributed, or in one's own library", async () => {
    const giver = await t.createAccount('own-giver');
    const own = await known(giver);
    const gave = await mirrorJob(giver.key, [serve('/own/given.jpg', own.body)]);
    expect(gave.body).toMatchObject({ matched: 1, coins_earned: 0 });
    expect(gave.body.urls[0].reason).toMatch(/is your own contribution \(community item \d+\): mirrors of your own images earn nothing/);

    // The library holds a resized copy; the object is someone else's contribution.
    const keeper = await t.createAccount('own-keeper');
    const image = await known(giver);
    const copy = await nearCopy(image.body);
    expect((await t.request('POST', '/api/media/upload', { key: keeper.key, form: form({ body: copy, name: 'mine.jpg', type: 'image/jpeg' }) })).status).toBe(201);
    const kept = await mirrorJob(keeper.key, [serve('/own/kept.jpg', image.body)]);
    expect(kept.body).toMatchObject({ matched: 1, coins_earned: 0 });
    expect(kept.body.urls[0].reason).toMatch(/is in your own media library: mirrors of your own images earn nothing/);
    expect(await coins(keeper.id)).toBe(0);
    // The URL stays registered to the first sender, and nobody is paid for it again.
    expect((await mirrorJob(giver.key, [`${siteUrl}/own/kept.jpg`])).body.urls[0].reason).toMatch(/already registered as a mirror/);
  });
});
