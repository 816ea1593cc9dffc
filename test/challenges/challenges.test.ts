// Fact-checking challenges through REST: the operator opens one over a wiki category or subjects, the
// community sees it with the photos it may vote on, a challenge vote is a wiki vote paid at the
// challenge multiplier (0.5 x 2 = 1.0 coins) that counts toward verification like any other, and the
// refusals: no active challenge, a photo outside the scope, double votes, overlapping windows, bad
// input, missing keys and sub-key scopes.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
let seed = 7100;

beforeAll(async () => {
  t = await startTestApp({ vision: { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } } });
});
afterAll(async () => {
  await t?.stop();
});
// One challenge runs at a time: each test leaves none active or scheduled.
afterEach(async () => {
  for (const status of ['active', 'scheduled']) {
    const listed = await t.request('GET', `/api/admin/challenges?status=${status}`, { admin: true });
    for (const c of listed.body.challenges as Array<{ id: number }>) await t.request('POST', `/api/admin/challenges/${c.id}/end`, { admin: true });
  }
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const at = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();
const coins = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
const ids = (items: Array<{ id: number }>) => items.map((p) => p.id);

/** An approved wiki subject of a category (unique per call unless given). */
async function approvedSubject(category = `castle-${++seed}`) {
  const creator = await t.createAccount('ch-creator');
  const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: `Keep ${++seed}`, category } });
  expect(made.status, made.text).toBe(201);
  expect((await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/approve`, { admin: true })).status).toBe(200);
  return { slug: made.body.slug as string, category };
}

/** A pending photo of a subject by `key`. */
async function photo(key: string, slug: string): Promise<number> {
  const res = await t.request('POST', `/api/wiki/subjects/${encodeURIComponent(slug)}/contribute`, { key, form: form({ body: await scene(++seed), name: 'p.jpg', type: 'image/jpeg' }) });
  expect(res.status, res.text).toBe(201);
  return res.body.photo.id as number;
}

async function openChallenge(body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/admin/challenges', { admin: true, body: { title: 'Check the keeps', ends_at: at(HOUR), ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

const board = (key: string, query = '') => t.request('GET', `/api/community/challenge${query}`, { key });
const challengeVote = (key: string, id: number, vote: 'confirm' | 'reject') => t.request('POST', `/api/community/challenge/vote/${id}`, { key, body: { vote } });
const wikiVote = (key: string, id: number, vote: 'confirm' | 'reject') => t.request('POST', `/api/wiki/metadata/${id}/vote`, { key, body: { vote } });

describe('the active challenge', () => {
  it('is none until the operator opens one over a category; then it shows the in-scope pending photos the caller may vote on', async () => {
    const inside = await approvedSubject();
    const outside = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const voter = await t.createAccount('ch-voter');
    const a1 = await photo(photographer.key, inside.slug);
    const a2 = await photo(photographer.key, inside.slug);
    const b1 = await photo(photographer.key, outside.slug);

    const none = await board(voter.key);
    expect(none.status, none.text).toBe(200);
    expect(none.body).toEqual({ success: true, challenge: null, coins_per_vote: null, items: [] });

    const opened = await openChallenge({ title: 'Castles week', description: 'Is it the keep?', category: inside.category.toUpperCase() });
    expect(Object.keys(opened)).toEqual(['success', 'id', 'title', 'description', 'scope', 'category', 'subjects', 'starts_at', 'ends_at', 'ended_at', 'status', 'pending_photos', 'created_at']);
    expect(opened).toMatchObject({ title: 'Castles week', description: 'Is it the keep?', scope: 'category', category: inside.category, subjects: [], status: 'active', ended_at: null, pending_photos: 2 });

    const shown = await board(voter.key);
    expect(Object.keys(shown.body)).toEqual(['success', 'challenge', 'coins_per_vote', 'items']);
    expect(shown.body).toMatchObject({ challenge: { id: opened.id, status: 'active' }, coins_per_vote: 1 });
    expect(ids(shown.body.items)).toEqual([a1, a2]);
    expect(ids(shown.body.items)).not.toContain(b1);
    expect(shown.body.items[0]).toMatchObject({ subject_slug: inside.slug, status: 'pending', url: expect.stringMatching(/^http/) });
    expect(ids((await board(voter.key, '?limit=1')).body.items)).toEqual([a1]);
    // Not one's own photos.
    expect((await board(photographer.key)).body.items).toEqual([]);

    const listed = await t.request('GET', '/api/admin/challenges?status=active', { admin: true });
    expect(listed.body).toMatchObject({ total: 1, challenges: [{ id: opened.id }] });
  });

  it('covers a list of subjects and names them', async () => {
    const first = await approvedSubject();
    const second = await approvedSubject(first.category);
    const third = await approvedSubject(first.category);
    const photographer = await t.createAccount('ch-photographer');
    const inFirst = await photo(photographer.key, first.slug);
    await photo(photographer.key, second.slug);
    const inThird = await photo(photographer.key, third.slug);
    const opened = await openChallenge({ subjects: [third.slug, first.slug, first.slug] });
    expect(opened).toMatchObject({ scope: 'subjects', category: null, subjects: [third.slug, first.slug], pending_photos: 2 });
    const voter = await t.createAccount('ch-voter');
    expect(ids((await board(voter.key)).body.items)).toEqual([inFirst, inThird]);
  });
});

describe('challenge votes', () => {
  it('pay 1.0 coins (the vote rate doubled) and count toward verification like normal votes', async () => {
    const subject = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const id = await photo(photographer.key, subject.slug);
    const challenge = await openChallenge({ category: subject.category });
    const [v1, v2, v3] = await Promise.all([1, 2, 3].map(() => t.createAccount('ch-voter')));

    const first = await challengeVote(v1!.key, id, 'confirm');
    expect(first.status, first.text).toBe(200);
    expect(Object.keys(first.body)).toEqual(['success', 'coins_earned', 'balance', 'held', 'decided', 'challenge_id', 'photo']);
    expect(first.body).toMatchObject({ coins_earned: 1, balance: 1, held: 0, decided: false, challenge_id: challenge.id, photo: { id, confirms: 1, status: 'pending' } });
    expect(ids((await board(v1!.key)).body.items)).not.toContain(id);
    expect(ids((await board(v2!.key)).body.items)).toContain(id);

    // A normal wiki vote meanwhile: the normal rate, and the same count.
    expect((await wikiVote(v2!.key, id, 'confirm')).body).toMatchObject({ coins_earned: 0.5, photo: { confirms: 2 } });
    const third = await challengeVote(v3!.key, id, 'confirm');
    expect(third.body).toMatchObject({ coins_earned: 1, decided: true, photo: { status: 'verified', confirms: 3, rejects: 0 } });

    expect(await coins(v1!.id)).toBe(1);
    expect(await coins(v2!.id)).toBe(0.5);
    expect(await coins(v3!.id)).toBe(1);
    expect(await coins(photographer.id)).toBe(5);
    const late = await t.createAccount('ch-late');
    const decided = await challengeVote(late.key, id, 'confirm');
    expect(decided.status).toBe(409);
    expect(decided.body.error).toMatch(/verified already/);
    expect(ids((await board(late.key)).body.items)).not.toContain(id);
  });

  it('follow the multiplier the operator sets, and count rejections too', async () => {
    const subject = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const id = await photo(photographer.key, subject.slug);
    await openChallenge({ subjects: [subject.slug] });
    expect((await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { rates: { challenge_multiplier: 3 } } })).status).toBe(200);
    try {
      const voter = await t.createAccount('ch-voter');
      expect((await board(voter.key)).body.coins_per_vote).toBe(1.5);
      expect((await challengeVote(voter.key, id, 'reject')).body).toMatchObject({ coins_earned: 1.5, photo: { rejects: 1, confirms: 0 } });
    } finally {
      await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { rates: { challenge_multiplier: 2 } } });
    }
  });

  it('refuse a second vote on a photo, through either route, and a vote on one’s own photo', async () => {
    const subject = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const id = await photo(photographer.key, subject.slug);
    await openChallenge({ category: subject.category });
    const [challenger, normal] = await Promise.all([t.createAccount('ch-voter'), t.createAccount('ch-voter')]);

    expect((await challengeVote(challenger.key, id, 'confirm')).status).toBe(200);
    for (const again of [await challengeVote(challenger.key, id, 'confirm'), await wikiVote(challenger.key, id, 'reject')]) {
      expect(again.status).toBe(409);
      expect(again.body.error).toMatch(/voted on wiki photo \d+ already/);
    }
    expect((await wikiVote(normal.key, id, 'confirm')).status).toBe(200);
    const twice = await challengeVote(normal.key, id, 'confirm');
    expect([twice.status, twice.body.error]).toEqual([409, `you voted on wiki photo ${id} already`]);
    expect(await coins(challenger.id)).toBe(1);
    expect(await coins(normal.id)).toBe(0.5);
    expect((await t.app.services.db.prisma.wikiMedia.findUniqueOrThrow({ where: { id } })).confirms).toBe(2);

    const own = await challengeVote(photographer.key, id, 'confirm');
    expect(own.status).toBe(403);
  });

  it('are refused with no active challenge, outside its scope, and once it ended', async () => {
    const inside = await approvedSubject();
    const outside = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const voter = await t.createAccount('ch-voter');
    const inPhoto = await photo(photographer.key, inside.slug);
    const outPhoto = await photo(photographer.key, outside.slug);

    const idle = await challengeVote(voter.key, inPhoto, 'confirm');
    expect(idle.status).toBe(409);
    expect(idle.body.error).toMatch(/^no challenge is active now/);

    const challenge = await openChallenge({ category: inside.category });
    const off = await challengeVote(voter.key, outPhoto, 'confirm');
    expect(off.status).toBe(409);
    expect(off.body.error).toBe(`wiki photo ${outPhoto} is not in challenge ${challenge.id}: its subject ${outside.slug} is outside the challenge's category ${inside.category}`);
    expect((await challengeVote(voter.key, 99_999_999, 'confirm')).status).toBe(404);
    expect(await t.app.services.db.prisma.wikiVote.count({ where: { accountId: voter.id } })).toBe(0);

    const ended = await t.request('POST', `/api/admin/challenges/${challenge.id}/end`, { admin: true });
    expect(ended.status, ended.text).toBe(200);
    expect(ended.body).toMatchObject({ id: challenge.id, status: 'ended', ended_at: expect.any(String) });
    expect(ended.body.ends_at).toBe(ended.body.ended_at);
    expect((await board(voter.key)).body.challenge).toBeNull();
    expect((await challengeVote(voter.key, inPhoto, 'confirm')).status).toBe(409);
    const again = await t.request('POST', `/api/admin/challenges/${challenge.id}/end`, { admin: true });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(new RegExp(`^challenge ${challenge.id} ended already`));
    // The photo still takes normal votes.
    expect((await wikiVote(voter.key, inPhoto, 'confirm')).body).toMatchObject({ coins_earned: 0.5 });
  });
});

describe('windows', () => {
  it('end on their own: a challenge past its end is not active', async () => {
    const subject = await approvedSubject();
    const short = await openChallenge({ category: subject.category, ends_at: at(1_500) });
    const voter = await t.createAccount('ch-voter');
    expect((await board(voter.key)).body.challenge).toMatchObject({ id: short.id });
    await new Promise((resolve) => setTimeout(resolve, 1_700));
    expect((await board(voter.key)).body.challenge).toBeNull();
    const ended = await t.request('GET', '/api/admin/challenges?status=ended', { admin: true });
    expect(ended.body.challenges.find((c: { id: number }) => c.id === short.id)).toMatchObject({ status: 'ended', ended_at: null });
  });

  it('wait when scheduled, never overlap, and a scheduled one can be called off', async () => {
    const subject = await approvedSubject();
    const later = await openChallenge({ category: subject.category, starts_at: at(HOUR), ends_at: at(2 * HOUR) });
    expect(later.status).toBe('scheduled');
    const voter = await t.createAccount('ch-voter');
    expect((await board(voter.key)).body.challenge).toBeNull();

    const clash = await t.request('POST', '/api/admin/challenges', { admin: true, body: { title: 'Clash', category: subject.category, ends_at: at(1.5 * HOUR) } });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatch(new RegExp(`^the window overlaps challenge ${later.id} \\(Check the keeps, `));
    // Back to back is fine: a window ends where the next may start.
    const next = await openChallenge({ category: subject.category, starts_at: later.ends_at, ends_at: at(3 * HOUR) });
    const scheduled = await t.request('GET', '/api/admin/challenges?status=scheduled', { admin: true });
    expect(ids(scheduled.body.challenges)).toEqual([next.id, later.id]);

    const off = await t.request('POST', `/api/admin/challenges/${later.id}/end`, { admin: true });
    expect(off.body).toMatchObject({ status: 'ended', starts_at: later.starts_at, ends_at: later.starts_at });
    // Its window is free again.
    const now = await openChallenge({ category: subject.category, ends_at: at(1.5 * HOUR) });
    expect(now.status).toBe('active');
    expect((await board(voter.key)).body.challenge).toMatchObject({ id: now.id });
  });

  it('never overlap, also when the operator opens several at once', async () => {
    const subject = await approvedSubject();
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((n) => t.request('POST', '/api/admin/challenges', { admin: true, body: { title: `Race ${n}`, category: subject.category, ends_at: at(n * HOUR) } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const refused of answers.filter((a) => a.status === 409)) expect(refused.body.error).toMatch(/^the window overlaps/);
    const active = await t.request('GET', '/api/admin/challenges?status=active', { admin: true });
    expect(active.body.total).toBe(1);
  });

  it('refuse bad input naming the field', async () => {
    const subject = await approvedSubject();
    const base = { title: 'x', category: subject.category, ends_at: at(HOUR) };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, title: undefined }, 'title'],
      [{ ...base, title: '   ' }, 'title'],
      [{ ...base, ends_at: undefined }, 'ends_at'],
      [{ ...base, ends_at: 'tomorrow' }, 'ends_at'],
      [{ ...base, ends_at: '2026-12-01T10:00' }, 'ends_at'],
      [{ ...base, ends_at: '2026-02-30T10:00:00Z' }, 'ends_at'],
      [{ ...base, category: undefined }, 'category'],
      [{ ...base, subjects: [subject.slug] }, 'subjects'],
      [{ ...base, category: 'no-such-category-here' }, 'category'],
      [{ ...base, category: undefined, subjects: ['no-such-subject-here'] }, 'subjects'],
      [{ ...base, category: undefined, subjects: [] }, 'subjects'],
      [{ ...base, category: undefined, subjects: 'a,b' }, 'subjects'],
      [{ ...base, starts_at: at(-HOUR) }, 'starts_at'],
      [{ ...base, starts_at: at(2 * HOUR), ends_at: at(HOUR) }, 'ends_at'],
      [{ ...base, ends_at: at(-HOUR) }, 'ends_at'],
      [{ ...base, ends_at: at(91 * DAY) }, 'ends_at'],
      [{ ...base, starts_at: at(400 * DAY), ends_at: at(401 * DAY) }, 'starts_at'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/admin/challenges', { admin: true, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    expect((await t.request('GET', '/api/admin/challenges', { admin: true })).body.challenges.filter((c: { title: string }) => c.title === 'x')).toEqual([]);

    const { key } = await t.createAccount('ch-careless');
    for (const [path, field] of [['/api/community/challenge?limit=101', 'limit'], ['/api/admin/challenges?status=running', 'status']] as const) {
      const res = await t.request('GET', path, { key, admin: path.startsWith('/api/admin') });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatch(new RegExp(`^${field}`));
    }
    const badVote = await t.request('POST', '/api/community/challenge/vote/1', { key, body: { vote: 'maybe' } });
    expect([badVote.status, badVote.body.error]).toEqual([400, 'vote: expected confirm or reject']);
    expect((await t.request('POST', '/api/community/challenge/vote/abc', { key, body: { vote: 'confirm' } })).status).toBe(400);
    expect((await t.request('POST', '/api/admin/challenges/abc/end', { admin: true })).status).toBe(400);
    expect((await t.request('POST', '/api/admin/challenges/99999999/end', { admin: true })).status).toBe(404);
  });
});

describe('keys', () => {
  it('need a key, the media scope to vote, and the admin token for the operator routes', async () => {
    const subject = await approvedSubject();
    const photographer = await t.createAccount('ch-photographer');
    const id = await photo(photographer.key, subject.slug);
    await openChallenge({ category: subject.category });
    const owner = await t.createAccount('ch-owner');

    expect((await t.request('GET', '/api/community/challenge')).status).toBe(401);
    expect((await t.request('POST', `/api/community/challenge/vote/${id}`, { body: { vote: 'confirm' } })).status).toBe(401);
    for (const [method, path] of [['GET', '/api/admin/challenges'], ['POST', '/api/admin/challenges'], ['POST', '/api/admin/challenges/1/end']] as const) {
      expect((await t.request(method, path, { key: owner.key, body: method === 'POST' ? {} : undefined })).status, path).toBe(401);
    }

    const searchOnly = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes: 'search' } });
    expect((await t.request('GET', '/api/community/challenge', { key: searchOnly.body.sub_key })).status).toBe(200);
    const refused = await challengeVote(searchOnly.body.sub_key, id, 'confirm');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/'media' scope/);

    const media = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes: 'media' } });
    expect((await challengeVote(media.body.sub_key, id, 'confirm')).body).toMatchObject({ coins_earned: 1, balance: 1 });
    expect(await coins(owner.id)).toBe(1);
  });

  it('GraphQL offers the same: communityChallenge for a key, the operator fields for the admin token', async () => {
    const subject = await approvedSubject();
    const opened = await openChallenge({ category: subject.category });
    const { key } = await t.createAccount('ch-graphql');
    const read = await t.graphql('{ communityChallenge { __typename ... on QueryCommunityChallengeSuccess { data { challenge { databaseId status scope } coinsPerVote } } } }', {}, { key });
    expect(read.body.data.communityChallenge.data).toEqual({ challenge: { databaseId: opened.id, status: 'active', scope: 'category' }, coinsPerVote: 1 });
    const refused = await t.graphql('{ adminChallenges { __typename } }', {}, { key });
    expect(refused.body.errors[0]).toMatchObject({ message: expect.stringMatching(/admin token required/), extensions: { status: 401 } });
    const listed = await t.graphql('{ adminChallenges(status: active) { ... on QueryAdminChallengesSuccess { data { total challenges { databaseId pendingPhotos } } } } }', {}, { admin: true });
    expect(listed.body.data.adminChallenges.data).toEqual({ total: 1, challenges: [{ databaseId: opened.id, pendingPhotos: 0 }] });
  });
});
