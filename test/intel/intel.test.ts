// Image intel through REST and GraphQL: comments on open images (paid once each), proposals on
// restricted images (paid on submission, and on merge exactly once even when approvals race), the
// owner's policy and decisions, locked and taken-down images, and the refusals (input, keys, others).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
const NO_VISION = { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } };

beforeAll(async () => {
  t = await startTestApp({ vision: NO_VISION });
});
afterAll(() => t?.stop());

let seed = 31_000;
/** A community item contributed by the key's account (unlisted when public is false). */
async function item(key: string, fields: Record<string, string> = {}): Promise<number> {
  const res = await t.request('POST', '/api/community/contribute', { key, form: form({ body: await scene(++seed), name: 'i.jpg', type: 'image/jpeg' }, { name: 'harbour', tags: '["boats"]', ...fields }) });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

async function coins(accountId: number): Promise<number> {
  return (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;
}

/** Reward transfers of an action paid to an account. */
async function rewards(accountId: number, action: string): Promise<number> {
  const rows = await t.app.services.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM "LedgerTransfer" t JOIN "LedgerAccount" w ON w."id" = t."creditAccountId" WHERE w."ownerId" = $1 AND w."currency" = 'coins' AND t."action" = $2`,
    [accountId, `reward:${action}`],
  );
  return rows[0]!.n;
}

const intel = (key: string | undefined, id: number, body: unknown) => t.request('POST', `/api/wiki/image/${id}/intel`, { key, body });
const resolve = (key: string | undefined, id: number, body: unknown) => t.request('POST', `/api/wiki/image/intel/${id}/resolve`, { key, body });
const policy = (key: string | undefined, id: number, value: unknown) => t.request('POST', `/api/wiki/image/${id}/policy`, { key, body: { policy: value } });

describe('open images: comments', () => {
  it('publishes a comment at once and pays 0.1 coins once per author and image; duplicates (case, spaces, punctuation folded) and empty texts are refused', async () => {
    const owner = await t.createAccount('intel-owner');
    const commenter = await t.createAccount('intel-commenter');
    const id = await item(owner.key);

    const first = await intel(commenter.key, id, { text: 'Taken from the north pier at dawn.' });
    expect(first.status, first.text).toBe(201);
    expect(first.body).toMatchObject({ success: true, kind: 'comment', status: 'approved', coins_earned: 0.1, balance: 0.1, message: null });
    expect(first.body.post).toMatchObject({ id: first.body.id, item_id: id, author: commenter.handle, mine: true, kind: 'comment', text: 'Taken from the north pier at dawn.', changes: null, status: 'approved', resolved_at: null });

    // The same text again (other case and spacing) is a duplicate: 409 naming text, nothing paid.
    const again = await intel(commenter.key, id, { text: '  taken from the NORTH pier   at dawn. ' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: expect.stringMatching(new RegExp(`already posted this intel on image ${id} \\(intel post ${first.body.id}, approved\\)`)) });

    // Punctuation folded: the same words with other punctuation are the same post (issue 20: "nice pic." after "Nice pic" was paid).
    const punctuated = await intel(commenter.key, id, { text: 'Taken from the north pier, at dawn!!' });
    expect(punctuated.status).toBe(409);

    // Another comment on the same image is published; the image paid this author once (issue 20: it paid per comment).
    const second = await intel(commenter.key, id, { text: 'The boats belong to the rowing club.' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ coins_earned: 0, balance: 0.1 });
    expect(second.body.message).toMatch(/paid before: one is paid per image/);
    expect(await rewards(commenter.id, 'intel_comment')).toBe(1);

    // The same comment sent several times at once is posted once.
    const race = await Promise.all(Array.from({ length: 5 }, () => intel(commenter.key, id, { text: 'Sent five times at once.' })));
    expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    expect(await rewards(commenter.id, 'intel_comment')).toBe(1);
    expect(await coins(commenter.id)).toBeCloseTo(0.1, 6);

    for (const body of [{ text: '' }, { text: '   ' }, { text: '?!. …' }, {}]) {
      const empty = await intel(commenter.key, id, body);
      expect(empty.status, JSON.stringify(body)).toBe(400);
      expect(empty.body.error).toMatch(/^text/);
    }

    // Published: anyone who can see the image reads it, newest first.
    const reader = await t.createAccount('intel-reader');
    const listed = await t.request('GET', `/api/wiki/image/${id}/intel`, { key: reader.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body).toMatchObject({ item_id: id, policy: 'open', total: 3, limit: 20, offset: 0 });
    const raced = race.find((r) => r.status === 201)!.body.id;
    expect(listed.body.posts.map((p: { id: number; mine: boolean }) => [p.id, p.mine])).toEqual([
      [raced, false],
      [second.body.id, false],
      [first.body.id, false],
    ]);
  });

  it("lets the owner post on their own image: published at once, earning nothing; changes are merged at once", async () => {
    const owner = await t.createAccount('intel-self');
    const id = await item(owner.key);
    const note = await intel(owner.key, id, { text: 'My own note.' });
    expect(note.status).toBe(201);
    expect(note.body).toMatchObject({ kind: 'comment', status: 'approved', coins_earned: 0, balance: 2, message: 'your own image: intel on it earns nothing' });
    const change = await intel(owner.key, id, { changes: { caption: 'The harbour at dawn' } });
    expect(change.body).toMatchObject({ kind: 'proposal', status: 'merged', coins_earned: 0 });
    expect(change.body.post.resolved_at).not.toBeNull();
    expect((await t.request('GET', `/api/community/${id}`, { key: owner.key })).body.caption).toBe('The harbour at dawn');
    expect(await rewards(owner.id, 'intel_comment')).toBe(0);
    expect(await rewards(owner.id, 'intel_proposal')).toBe(0);
    expect(await coins(owner.id)).toBe(2);
  });

  it('keeps a comment over the daily cap but pays nothing, and says why', async () => {
    const owner = await t.createAccount('intel-cap-owner');
    const commenter = await t.createAccount('intel-capped');
    const id = await item(owner.key);
    const patch = await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { daily_caps: { intel_comment: 1 } } });
    expect(patch.status).toBe(200);
    try {
      (t.app.services.rewards as unknown as { cached: null }).cached = null;
      expect((await intel(commenter.key, id, { text: 'one' })).body.coins_earned).toBe(0.1);
      const over = await intel(commenter.key, await item(owner.key), { text: 'two' });
      expect(over.status).toBe(201);
      expect(over.body).toMatchObject({ status: 'approved', coins_earned: 0, balance: 0.1 });
      expect(over.body.message).toMatch(/daily cap/);
    } finally {
      await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { daily_caps: { intel_comment: 100 } } });
      (t.app.services.rewards as unknown as { cached: null }).cached = null;
    }
  });
});

describe('restricted images: proposals', () => {
  let owner: { key: string; id: number; handle: string };
  let proposer: { key: string; id: number; handle: string };
  let third: { key: string; id: number; handle: string };
  let id: number;

  beforeAll(async () => {
    owner = await t.createAccount('intel-restrict');
    proposer = await t.createAccount('intel-proposer');
    third = await t.createAccount('intel-third');
    id = await item(owner.key);
    const set = await policy(owner.key, id, 'restricted');
    expect(set.status, set.text).toBe(200);
    expect(set.body).toEqual({ success: true, item_id: id, policy: 'restricted' });
  });

  it('turns a post into a pending proposal paid 0.1 coins on submission, visible to its author and the owner only', async () => {
    const text = await intel(proposer.key, id, { text: 'This is the old ferry, not a fishing boat.' });
    expect(text.status, text.text).toBe(201);
    expect(text.body).toMatchObject({ kind: 'proposal', status: 'pending', coins_earned: 0.1 });
    // A second proposal on the same image: submissions pay once per author and image (issue 20: per proposal).
    const change = await intel(proposer.key, id, { text: 'Better caption', changes: { caption: 'Old ferry, north pier', tags: ['Ferry', 'harbour'], latitude: 59.91234, longitude: 10.75678 } });
    expect(change.body).toMatchObject({ kind: 'proposal', status: 'pending', coins_earned: 0, balance: 0.1 });
    expect(change.body.post.changes).toEqual({ caption: 'Old ferry, north pier', tags: ['ferry', 'harbour'], name: null, latitude: 59.91234, longitude: 10.75678 });
    expect(await rewards(proposer.id, 'intel_proposal')).toBe(1);

    // Not published; the owner sees both, the proposer their own, others none.
    expect((await t.request('GET', `/api/wiki/image/${id}/intel`, { key: third.key })).body.total).toBe(0);
    const forOwner = await t.request('GET', `/api/wiki/image/${id}/proposals`, { key: owner.key });
    expect(forOwner.status, forOwner.text).toBe(200);
    expect(forOwner.body).toMatchObject({ item_id: id, policy: 'restricted', total: 2 });
    expect(forOwner.body.proposals.map((p: { id: number }) => p.id)).toEqual([text.body.id, change.body.id]);
    expect((await t.request('GET', `/api/wiki/image/${id}/proposals`, { key: proposer.key })).body.total).toBe(2);
    expect((await t.request('GET', `/api/wiki/image/${id}/proposals`, { key: third.key })).body).toMatchObject({ total: 0, proposals: [] });
    const gql = '{ intelPost(id: ID) { ... on QueryIntelPostSuccess { data { databaseId status } } ... on ServiceError { status } } }';
    const asThird = await t.graphql(gql.replace('ID', String(change.body.id)), {}, { key: third.key });
    expect(asThird.body.data.intelPost).toEqual({ status: 404 });
  });

  it('merges an approved proposal once: the image changes and the proposer is paid 0.5, even when approvals race', async () => {
    const made = await intel(proposer.key, id, { changes: { name: 'Ferry at the pier', tags: ['ferry'] } });
    expect(made.status, made.text).toBe(201);
    const before = await coins(proposer.id);

    const answers = await Promise.all(Array.from({ length: 6 }, () => resolve(owner.key, made.body.id, { action: 'approve' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const won = answers.find((a) => a.status === 200)!;
    expect(won.body).toMatchObject({ success: true, id: made.body.id, status: 'merged', proposer_paid: 0.5, message: null });
    expect(won.body.post).toMatchObject({ status: 'merged', mine: false, author: proposer.handle });
    expect(won.body.item).toMatchObject({ id, name: 'Ferry at the pier', tags: ['ferry'] });
    for (const lost of answers.filter((a) => a.status === 409)) expect(lost.body.error).toBe(`intel proposal ${made.body.id} was already merged`);
    expect(await coins(proposer.id)).toBeCloseTo(before + 0.5, 6);
    expect(await rewards(proposer.id, 'intel_merged')).toBe(1);
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);

    // Resolving again is a 409, whatever the action.
    expect((await resolve(owner.key, made.body.id, { action: 'reject' })).status).toBe(409);
    // Merged intel is published.
    const published = await t.request('GET', `/api/wiki/image/${id}/intel`, { key: third.key });
    expect(published.body.posts.map((p: { id: number }) => p.id)).toContain(made.body.id);
  });

  it('rejects a proposal without paying or changing anything', async () => {
    const made = await intel(proposer.key, id, { changes: { caption: 'Wrong caption' } });
    const before = await coins(proposer.id);
    const rejected = await resolve(owner.key, made.body.id, { action: 'reject' });
    expect(rejected.status, rejected.text).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', proposer_paid: 0 });
    expect(rejected.body.item.caption).not.toBe('Wrong caption');
    expect(await coins(proposer.id)).toBe(before);
    expect((await resolve(owner.key, made.body.id, { action: 'approve' })).status).toBe(409);
    const listed = await t.request('GET', `/api/wiki/image/${id}/proposals?status=rejected`, { key: owner.key });
    expect(listed.body.proposals.map((p: { id: number }) => p.id)).toEqual([made.body.id]);
  });

  it('lets no one but the owner resolve (404, as for a missing one) or set the policy (403)', async () => {
    const made = await intel(proposer.key, id, { changes: { caption: 'Mine to approve?' } });
    for (const key of [proposer.key, third.key]) {
      const res = await resolve(key, made.body.id, { action: 'approve' });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe(`no intel post ${made.body.id}`);
    }
    expect((await resolve(owner.key, 99_999_999, { action: 'approve' })).body.error).toBe('no intel post 99999999');
    const refused = await policy(third.key, id, 'open');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/^policy: only the contributor/);
    // An image the caller cannot see at all is a 404.
    const unlisted = await item(owner.key, { public: 'false' });
    expect((await policy(third.key, unlisted, 'open')).status).toBe(404);
    expect((await intel(third.key, unlisted, { text: 'hello' })).status).toBe(404);
    expect((await t.request('GET', `/api/wiki/image/${unlisted}/intel`, { key: third.key })).status).toBe(404);
    // A comment is not resolvable.
    const open = await item(owner.key);
    const comment = await intel(proposer.key, open, { text: 'just a comment' });
    const resolved = await resolve(owner.key, comment.body.id, { action: 'approve' });
    expect(resolved.status).toBe(409);
    expect(resolved.body.error).toMatch(/is a comment/);
  });

  it('shows a proposed position exactly to its author and the owner, to 2 decimals to others once merged', async () => {
    const image = await item(owner.key);
    const made = await intel(proposer.key, image, { changes: { latitude: 48.858372, longitude: 2.294481 } });
    await resolve(owner.key, made.body.id, { action: 'approve' });
    const seen = async (key: string) => (await t.request('GET', `/api/wiki/image/${image}/intel`, { key })).body.posts[0].changes;
    expect(await seen(proposer.key)).toMatchObject({ latitude: 48.858372, longitude: 2.294481 });
    expect(await seen(owner.key)).toMatchObject({ latitude: 48.858372, longitude: 2.294481 });
    expect(await seen(third.key)).toMatchObject({ latitude: 48.86, longitude: 2.29 });
    expect((await t.request('GET', `/api/community/${image}`, { key: third.key })).body.latitude).toBe(48.86);
  });
});

describe('locked and taken-down images', () => {
  it('refuses intel on a locked image (409), the owner included; pending proposals can still be resolved', async () => {
    const owner = await t.createAccount('intel-lock');
    const other = await t.createAccount('intel-locked-out');
    const id = await item(owner.key);
    const pending = await intel(other.key, id, { changes: { caption: 'Before the lock' } });
    expect((await policy(owner.key, id, 'locked')).body.policy).toBe('locked');
    for (const key of [other.key, owner.key]) {
      const res = await intel(key, id, { text: 'anything' });
      expect(res.status).toBe(409);
      expect(res.body.error).toBe(`image ${id} is locked: its owner takes no intel on it`);
    }
    expect((await resolve(owner.key, pending.body.id, { action: 'approve' })).status).toBe(200);
    expect(await coins(other.id)).toBe(0.6);
  });

  it('takes no intel on an item taken down by a removal claim, and merges nothing into it', async () => {
    const owner = await t.createAccount('intel-removed');
    const claimant = await t.createAccount('intel-claimant');
    const id = await item(owner.key);
    const pending = await intel(claimant.key, id, { changes: { caption: 'Before the removal' } });
    const claim = await t.request('POST', `/api/community/${id}/claim`, { key: claimant.key, body: { kind: 'removal', reason: 'mine' } });
    expect((await t.request('POST', `/api/admin/claims/${claim.body.id}/approve`, { admin: true })).status).toBe(200);
    expect((await intel(claimant.key, id, { text: 'gone?' })).status).toBe(404);
    const own = await intel(owner.key, id, { text: 'still mine' });
    expect(own.status).toBe(409);
    expect(own.body.error).toMatch(/taken down/);
    expect((await resolve(owner.key, pending.body.id, { action: 'approve' })).status).toBe(409);
    expect((await resolve(owner.key, pending.body.id, { action: 'reject' })).status).toBe(200);
  });
});

describe('refusals', () => {
  let owner: { key: string; id: number };
  let id: number;
  beforeAll(async () => {
    owner = await t.createAccount('intel-bad');
    id = await item(owner.key);
  });

  it('answers bad input with a 400 naming the field', async () => {
    const other = (await t.createAccount('intel-bad-other')).key;
    const cases: Array<[unknown, RegExp]> = [
      [{ text: 'x'.repeat(2001) }, /^text: expected at most 2000/],
      [{ text: 5 }, /^text: /],
      [{ changes: {} }, /^changes: expected at least one of caption, tags, name, latitude, longitude/],
      [{ changes: { colour: 'red' } }, /^changes: colour: unknown field/],
      [{ changes: { latitude: 10 } }, /^changes\.longitude: latitude and longitude go together/],
      [{ changes: { latitude: 91, longitude: 0 } }, /^changes\.latitude: expected a number from -90 to 90/],
      [{ changes: { tags: 'sea' } }, /^changes\.tags: /],
      [{ changes: { name: 'harbour' } }, /^changes: every proposed value is the image/],
    ];
    for (const [body, error] of cases) {
      const res = await intel(other, id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(error);
    }
    const action = await resolve(owner.key, 1, { action: 'merge' });
    expect(action.status).toBe(400);
    expect(action.body.error).toBe('action: expected one of approve, reject');
    expect((await resolve(owner.key, 1, {})).body.error).toBe('action is required: one of approve, reject');
    const bad = await policy(owner.key, id, 'secret');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('policy: expected one of open, restricted, locked');
    expect((await t.request('GET', `/api/wiki/image/${id}/proposals?status=open`, { key: owner.key })).body.error).toMatch(/^status: expected one of pending, merged, rejected/);
    expect((await t.request('GET', `/api/wiki/image/abc/intel`, { key: owner.key })).status).toBe(400);
  });

  it('needs a key (401), the media scope to post, and the master key to resolve or set a policy (403)', async () => {
    expect((await intel(undefined, id, { text: 'who?' })).status).toBe(401);
    expect((await resolve(undefined, 1, { action: 'approve' })).status).toBe(401);
    expect((await policy(undefined, id, 'open')).status).toBe(401);
    expect((await t.request('GET', `/api/wiki/image/${id}/intel`)).status).toBe(401);
    expect((await t.request('GET', `/api/wiki/image/${id}/proposals`)).status).toBe(401);

    const sub = async (scopes: string) => (await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes } })).body.sub_key as string;
    const scrape = await sub('scrape');
    const media = await sub('media');
    const refused = await intel(scrape, id, { text: 'scrape key' });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/'media' scope/);
    expect((await intel(media, id, { text: 'media key' })).status).toBe(201);
    expect((await t.request('GET', `/api/wiki/image/${id}/intel`, { key: scrape })).status).toBe(200);
    for (const res of [await policy(media, id, 'locked'), await resolve(media, 1, { action: 'approve' })]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatch(/master key/);
    }
  });
});

describe('GraphQL', () => {
  it('posts, reads through node and intelPost, resolves, and exposes the policy on the community item', async () => {
    const owner = await t.createAccount('intel-gql-owner');
    const proposer = await t.createAccount('intel-gql-proposer');
    const id = await item(owner.key);
    const set = await t.graphql('mutation($id: Int!) { setIntelPolicy(itemId: $id, policy: restricted) { ... on MutationSetIntelPolicySuccess { data { databaseId intelPolicy } } } }', { id }, { key: owner.key });
    expect(set.body.data.setIntelPolicy.data).toEqual({ databaseId: id, intelPolicy: 'restricted' });
    const posted = await t.graphql(
      'mutation($id: Int!, $c: IntelChangesInput) { postIntel(itemId: $id, changes: $c) { ... on MutationPostIntelSuccess { data { coinsEarned post { id databaseId kind status changes { caption tags } } } } } }',
      { id, c: { caption: 'From GraphQL' } },
      { key: proposer.key },
    );
    const data = posted.body.data.postIntel.data;
    expect(data).toMatchObject({ coinsEarned: 0.1, post: { kind: 'proposal', status: 'pending', changes: { caption: 'From GraphQL', tags: null } } });
    const node = await t.graphql('query($id: ID!) { node(id: $id) { ... on IntelPost { databaseId } } }', { id: data.post.id }, { key: owner.key });
    expect(node.body.data.node).toEqual({ databaseId: data.post.databaseId });
    const resolved = await t.graphql(
      'mutation($id: Int!) { resolveIntel(id: $id, action: approve) { ... on MutationResolveIntelSuccess { data { proposerPaid post { status } item { caption intelPolicy } } } } }',
      { id: data.post.databaseId },
      { key: owner.key },
    );
    expect(resolved.body.data.resolveIntel.data).toEqual({ proposerPaid: 0.5, post: { status: 'merged' }, item: { caption: 'From GraphQL', intelPolicy: 'restricted' } });
    const refused = await t.graphql('mutation($id: Int!) { resolveIntel(id: $id, action: approve) { ... on ServiceError { status message } } }', { id: data.post.databaseId }, { key: owner.key });
    expect(refused.body.data.resolveIntel.status).toBe(409);
  });
});
