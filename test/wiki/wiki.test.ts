// The image wiki through REST: subjects and their review, photos verified by three distinct
// accounts' votes (and concurrent votes across the threshold), the verify queue, the paid query's
// charge, royalties on served photos, and the attacks on each.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { flat } from '../image-objects/plain-images.js';

let t: TestApp;
let site: Server;
let siteUrl: string;
let seed = 900;

beforeAll(async () => {
  t = await startTestApp({ fetch: LOCAL_FETCH, vision: { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } } });
  const image = await scene(899);
  site = createServer((req, res) => (req.url === '/tower.jpg' ? res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(image) : res.writeHead(404).end()));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await t?.stop();
});

const coins = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
const credits = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'credits')).balance / 10_000;

/** An approved subject, proposed by a fresh account. */
async function approvedSubject(name = `Tower ${++seed}`, category = 'landmark') {
  const creator = await t.createAccount('creator');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name, category, description: 'a tall thing' } });
  expect(made.status, made.text).toBe(201);
  expect((await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/approve`, { admin: true })).status).toBe(200);
  return { creator, slug: made.body.slug as string };
}

async function contribute(key: string, slug: string, fields: Record<string, string> = {}, image?: Buffer) {
  return t.request('POST', `/api/wiki/subjects/${encodeURIComponent(slug)}/contribute`, { key, form: form({ body: image ?? (await scene(++seed)), name: 'p.jpg', type: 'image/jpeg' }, fields) });
}

const vote = (key: string, id: number, choice: 'confirm' | 'reject') => t.request('POST', `/api/wiki/metadata/${id}/vote`, { key, body: { vote: choice } });

describe('subjects', () => {
  it('stays with its creator until the operator approves it, then pays the creator 10 coins once', async () => {
    const creator = await t.createAccount('proposer');
    const other = await t.createAccount('onlooker');
    const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: 'Tōkyō Tower 東京タワー', category: 'Landmark', featured_image_url: `${siteUrl}/tower.jpg` } });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ success: true, slug: 'tōkyō-tower-東京タワー', category: 'landmark', status: 'pending', mine: true, verified_count: 0, featured_image_source: `${siteUrl}/tower.jpg` });
    expect((await fetch(made.body.featured_image_url)).headers.get('content-type')).toBe('image/jpeg');
    const path = `/api/wiki/subjects/${encodeURIComponent(made.body.slug)}`;

    expect((await t.request('GET', path, { key: other.key })).status).toBe(404);
    expect((await t.request('GET', path, { key: creator.key })).body).toMatchObject({ status: 'pending', media: [] });
    const listed = await t.request('GET', `/api/wiki/subjects?q=${encodeURIComponent('東京タワー')}`);
    expect(listed.body.total).toBe(0);
    expect((await t.request('POST', `${path}/contribute`, { key: other.key, form: form({ body: await scene(1), name: 'p.jpg' }) })).status).toBe(404);

    const queue = await t.request('GET', '/api/admin/wiki/subjects?status=pending', { admin: true });
    expect(queue.body.subjects.map((s: { slug: string }) => s.slug)).toContain(made.body.slug);
    const approved = await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/approve`, { admin: true });
    expect(approved.body).toMatchObject({ status: 'approved', reviewed_at: expect.any(String) });
    expect(await coins(creator.id)).toBe(10);
    expect((await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/reject`, { admin: true })).status).toBe(409);
    expect(await coins(creator.id)).toBe(10);

    expect((await t.request('GET', path, { key: other.key })).body).toMatchObject({ name: 'Tōkyō Tower 東京タワー', mine: false, creator: creator.handle });
    const found = await t.request('GET', `/api/wiki/subjects?q=${encodeURIComponent('東京タワー')}`);
    expect(found.body.subjects.map((s: { slug: string }) => s.slug)).toEqual([made.body.slug]);
  });

  it('makes unique slugs, lists with filters and sorts, and refuses bad input naming the field', async () => {
    const { key } = await t.createAccount('namer');
    const name = `Old Mill ${Date.now()}`;
    const first = await t.request('POST', '/api/wiki/subjects', { key, body: { name, category: 'building' } });
    const second = await t.request('POST', '/api/wiki/subjects', { key, body: { name, category: 'building' } });
    expect(second.body.slug).toBe(`${first.body.slug}-2`);
    for (const [body, field] of [
      [{ category: 'x' }, 'name'],
      [{ name: 'x' }, 'category'],
      [{ name: '!!!', category: 'x' }, 'name'],
      [{ name: 'x', category: 'x', featured_image_url: 'ftp://x' }, 'featured_image_url'],
      [{ name: 'x', category: 'x', featured_image_url: 'http://169.254.169.254/latest/' }, 'featured_image_url'],
      [{ name: 'x', category: 'x', featured_image_url: `${siteUrl}/missing.jpg` }, 'featured_image_url'],
    ] as const) {
      const res = await t.request('POST', '/api/wiki/subjects', { key, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    for (const [query, field] of [['limit=101', 'limit'], ['sort=best', 'sort'], ['verified=2', 'verified']]) {
      const res = await t.request('GET', `/api/wiki/subjects?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field}`));
    }
    expect((await t.request('POST', '/api/wiki/subjects', { body: { name: 'x', category: 'y' } })).status).toBe(401);
  });
});

describe('photos and verification', () => {
  it('verifies a photo with three confirmations from distinct accounts and pays everyone once', async () => {
    const { slug } = await approvedSubject();
    const photographer = await t.createAccount('photographer');
    const made = await contribute(photographer.key, slug, { photo_type: 'Exterior', context: 'from the east bank' });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ duplicate: false, photo: { subject_slug: slug, photo_type: 'exterior', context: 'from the east bank', status: 'pending', confirms: 0, confidence: null } });
    const id = made.body.photo.id as number;
    expect((await fetch(made.body.photo.url)).status).toBe(200);

    // Not in the contributor's own queue; in a voter's until they vote.
    const own = await t.request('GET', '/api/wiki/verify-queue?limit=100', { key: photographer.key });
    expect(own.body.items.map((p: { id: number }) => p.id)).not.toContain(id);
    expect((await vote(photographer.key, id, 'confirm')).status).toBe(403);

    const voters = await Promise.all([1, 2, 3].map(() => t.createAccount('voter')));
    const queued = await t.request('GET', '/api/wiki/verify-queue?limit=100', { key: voters[0]!.key });
    expect(queued.body.items.map((p: { id: number }) => p.id)).toContain(id);
    const first = await vote(voters[0]!.key, id, 'confirm');
    expect(first.body).toMatchObject({ coins_earned: 0.5, balance: 0.5, decided: false, photo: { confirms: 1, status: 'pending' } });
    const again = await vote(voters[0]!.key, id, 'reject');
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/voted on wiki photo \d+ already/);
    const after = await t.request('GET', '/api/wiki/verify-queue?limit=100', { key: voters[0]!.key });
    expect(after.body.items.map((p: { id: number }) => p.id)).not.toContain(id);

    await vote(voters[1]!.key, id, 'confirm');
    const third = await vote(voters[2]!.key, id, 'confirm');
    expect(third.body).toMatchObject({ decided: true, photo: { status: 'verified', confirms: 3, rejects: 0, confidence: 0.85 } });
    expect(await coins(photographer.id)).toBe(5);
    for (const v of voters) expect(await coins(v.id)).toBe(0.5);
    const late = await t.createAccount('late-voter');
    expect((await vote(late.key, id, 'confirm')).status).toBe(409);

    const detail = await t.request('GET', `/api/wiki/subjects/${encodeURIComponent(slug)}`, { key: late.key });
    expect(detail.body).toMatchObject({ verified_count: 1, media: [{ id, status: 'verified', confidence: 0.85 }] });
    const popular = await t.request('GET', '/api/wiki/subjects?verified=1&sort=popular&limit=100');
    expect(popular.body.subjects.find((s: { slug: string }) => s.slug === slug)).toMatchObject({ verified_count: 1 });

    const duplicate = await contribute(voters[0]!.key, slug, {}, await (await fetch(made.body.photo.url)).arrayBuffer().then((b) => Buffer.from(b)));
    expect(duplicate.body).toMatchObject({ duplicate: true, photo: { id } });
  });

  it('pays the contributor exactly once when concurrent votes cross the threshold', async () => {
    const { slug } = await approvedSubject();
    const photographer = await t.createAccount('race-photographer');
    const id = (await contribute(photographer.key, slug)).body.photo.id as number;
    const voters = await Promise.all(Array.from({ length: 8 }, () => t.createAccount('racing-voter')));
    const answers = await Promise.all(voters.map((v) => vote(v.key, id, 'confirm')));
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
    expect(accepted.filter((a) => a.body.decided)).toHaveLength(1);
    expect(await coins(photographer.id)).toBe(5);
    const counts = await t.app.services.db.prisma.wikiMedia.findUniqueOrThrow({ where: { id } });
    expect(counts).toMatchObject({ status: 'verified', confirms: 3 });
    expect(await t.app.services.db.prisma.wikiVote.count({ where: { mediaId: id } })).toBe(3);
  });

  it('verifies a plain photo (a flat colour) without paying its contributor: plain uploads earn no upload reward', async () => {
    // Each flat colour is its own image object (by its bytes alone), so a contributor could send any
    // number of them to one subject; none earns the photo reward, as none earns the community's.
    const { slug } = await approvedSubject();
    const photographer = await t.createAccount('flat-photographer');
    const made = await contribute(photographer.key, slug, {}, await flat('#3a5f0b'));
    expect(made.status, made.text).toBe(201);
    const id = made.body.photo.id as number;
    for (let i = 0; i < 3; i++) expect((await vote((await t.createAccount('flat-voter')).key, id, 'confirm')).status).toBe(200);
    expect((await t.app.services.db.prisma.wikiMedia.findUniqueOrThrow({ where: { id } })).status).toBe('verified');
    expect(await coins(photographer.id)).toBe(0);
  });

  it('rejects a photo with three rejections and pays its contributor nothing', async () => {
    const { slug } = await approvedSubject();
    const photographer = await t.createAccount('rejected-photographer');
    const id = (await contribute(photographer.key, slug)).body.photo.id as number;
    for (let i = 0; i < 3; i++) await vote((await t.createAccount('critic')).key, id, 'reject');
    expect((await t.app.services.db.prisma.wikiMedia.findUniqueOrThrow({ where: { id } })).status).toBe('rejected');
    expect(await coins(photographer.id)).toBe(0);
  });

  it('refuses bad votes and photos, naming the field', async () => {
    const { slug } = await approvedSubject();
    const { key } = await t.createAccount('careless');
    expect((await vote(key, 99999999, 'confirm')).status).toBe(404);
    const bad = await t.request('POST', '/api/wiki/metadata/1/vote', { key, body: { vote: 'maybe' } });
    expect([bad.status, bad.body.error]).toEqual([400, 'vote: expected confirm or reject']);
    const noFile = await t.request('POST', `/api/wiki/subjects/${encodeURIComponent(slug)}/contribute`, { key, form: form(null, { photo_type: 'x' }) });
    expect(noFile.status).toBe(400);
    const badType = await contribute(key, slug, { photo_type: '<script>' });
    expect(badType.status).toBe(400);
    expect(badType.body.error).toMatch(/^photo_type/);
  });
});

describe('the paid query', () => {
  it('charges exactly one credit per successful call, nothing for a refused one, and pays royalties on served photos', async () => {
    const { slug } = await approvedSubject();
    const photographer = await t.createAccount('q-photographer');
    const image = await scene(++seed);
    const id = (await contribute(photographer.key, slug, { photo_type: 'interior' }, image)).body.photo.id as number;
    for (let i = 0; i < 3; i++) await vote((await t.createAccount('q-voter')).key, id, 'confirm');

    // The same picture in the community library, with an approved royalty claim on it.
    const claimant = await t.createAccount('q-claimant');
    const item = (await t.request('POST', '/api/community/contribute', { key: photographer.key, form: form({ body: image, name: 'c.jpg', type: 'image/jpeg' }) })).body.id;
    const claim = await t.request('POST', `/api/community/${item}/claim`, { key: claimant.key, body: { kind: 'royalty', royalty_coins: 0.3, reason: 'mine' } });
    await t.request('POST', `/api/admin/claims/${claim.body.id}/approve`, { admin: true });

    const buyer = await t.createAccount('q-buyer');
    const path = `/api/wiki/subjects/${encodeURIComponent(slug)}/query`;
    const poor = await t.request('GET', path, { key: buyer.key });
    expect(poor.status).toBe(402);
    expect(poor.body.error).toMatch(/credit/);

    await t.app.services.credits.grant(buyer.id, { amount: 2 });
    const answered = await t.request('GET', `${path}?type=interior&min_confidence=0.8`, { key: buyer.key });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.body).toMatchObject({ subject_slug: slug, count: 1, credits_charged: 1, credits_balance: 1, images: [{ id, photo_type: 'interior', confidence: 0.85 }] });
    expect(await credits(buyer.id)).toBe(1);
    expect(await coins(claimant.id)).toBe(0.3);

    const none = await t.request('GET', `${path}?type=aerial`, { key: buyer.key });
    expect(none.body).toMatchObject({ count: 0, credits_charged: 1 });
    expect(await credits(buyer.id)).toBe(0);
    const badInput = await t.request('GET', `${path}?min_confidence=2`, { key: buyer.key });
    expect(badInput.status).toBe(400);
    expect(badInput.body.error).toMatch(/^min_confidence/);
    expect((await t.request('GET', '/api/wiki/subjects/no-such-subject/query', { key: buyer.key })).status).toBe(404);
    expect(await credits(buyer.id)).toBe(0);

    const sub = await t.request('POST', '/api/platform/sub-keys', { key: buyer.key, body: { scopes: 'media' } });
    expect((await t.request('GET', path, { key: sub.body.sub_key })).status).toBe(403);
  });
});

describe('the atlas', () => {
  it('lists verified wiki photos by their subject, then AI-verified community items by their tags, without a key', async () => {
    const word = `zeppelin${Date.now()}`;
    const { slug } = await approvedSubject(`Hangar ${word}`, 'building');
    const photographer = await t.createAccount('atlas-photographer');
    const verified = (await contribute(photographer.key, slug)).body.photo.id as number;
    const pending = (await contribute(photographer.key, slug)).body.photo.id as number;
    for (let i = 0; i < 3; i++) await vote((await t.createAccount('atlas-voter')).key, verified, 'confirm');
    const item = await t.request('POST', '/api/community/contribute', { key: photographer.key, form: form({ body: await scene(++seed, 400, 600), name: 'c.jpg', type: 'image/jpeg' }, { tags: JSON.stringify([word]) }) });
    const unverified = await t.request('POST', '/api/community/contribute', { key: photographer.key, form: form({ body: await scene(++seed), name: 'c.jpg', type: 'image/jpeg' }, { tags: JSON.stringify([word]) }) });
    // Its tag confirmed by a vision label, as tagging records it (vision is off here).
    await t.app.services.db.prisma.communityTagConfirmation.create({ data: { itemId: item.body.id, tag: word, key: word, evidence: 'label', matched: word, accountId: photographer.id } });
    await t.app.services.db.prisma.communityItem.update({ where: { id: item.body.id }, data: { verified: true } });

    const query = 'query($q: String, $o: Orientation, $limit: Int) { atlas(query: $q, orientation: $o, limit: $limit) { ... on QueryAtlasSuccess { data { source databaseId subjectSlug confidence url } } ... on ServiceError { message } } }';
    const res = await t.graphql(query, { q: word });
    const found = res.body.data.atlas.data;
    expect(found.map((e: { source: string; databaseId: number }) => [e.source, e.databaseId])).toEqual([
      ['wiki', verified],
      ['community', item.body.id],
    ]);
    expect(found[0]).toMatchObject({ subjectSlug: slug, confidence: 0.85 });
    expect((await fetch(found[0].url)).status).toBe(200);
    expect((await fetch(found[1].url)).status).toBe(200);
    expect(found.map((e: { databaseId: number }) => e.databaseId)).not.toContain(pending);
    expect(found.map((e: { databaseId: number }) => e.databaseId)).not.toContain(unverified.body.id);

    const portrait = await t.graphql(query, { q: word, o: 'portrait' });
    expect(portrait.body.data.atlas.data.map((e: { source: string }) => e.source)).toEqual(['community']);
    expect((await t.graphql(query, { q: word, limit: 101 })).body.data.atlas.message).toBe('limit: expected at most 100');
  });
});
