// Issue 20, "self-dealing pays" and "the leaderboard counts unlisted contributions": tagging one's
// own items paid 0.5 + 0.25 per item and day. Now tagging one's own item earns nothing, a tagger is
// paid once per item, a set that adds no new tag earns nothing, and the verified bonus pays only when
// a tag this tagger added is newly confirmed; tags that leave an item (replace, a merged intel
// proposal) take their confirmation with them, and a caption people edit is never vision's evidence.
// The leaderboard counts listed items only. Vision is a scripted model provider (fixtures/vision).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithScriptedModel, type ScriptedModel } from '../fixtures/vision/scripted-model.js';
import type { TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
let model: ScriptedModel;
let seed = 7300;

beforeAll(async () => {
  ({ t, model } = await startWithScriptedModel());
});
afterAll(async () => {
  await t?.stop();
  await model?.close();
});

type Account = Awaited<ReturnType<TestApp['createAccount']>>;

const coins = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;

/** An account that can pay the model's analyses (API credits). */
async function account(name: string): Promise<Account> {
  const made = await t.createAccount(name);
  await t.app.services.credits.grant(made.id, { amount: 50 });
  return made;
}

async function upload(key: string, fields: Record<string, string> = {}): Promise<number> {
  const res = await t.request('POST', '/api/community/contribute', { key, form: form({ body: await scene(++seed), name: 'p.jpg', type: 'image/jpeg' }, fields) });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

const tag = (key: string, id: number, tags: string[], action = 'add') => t.request('POST', `/api/community/${id}/tag`, { key, body: { tags, action } });
const confirmed = async (itemId: number) =>
  (await t.app.services.db.prisma.communityTagConfirmation.findMany({ where: { itemId }, orderBy: { tag: 'asc' } })).map((c) => [c.tag, c.evidence]);

/** A photo of a dog with a person, as vision sees it. */
const DOG_PHOTO = { text: '', caption: 'A dog and a person on a beach', labels: ['dog', 'person'] };

describe('tagging pays only for new, other people’s work', () => {
  it('pays nothing for tagging one’s own item, yet confirms its tags', async () => {
    const owner = await account('self-tagger');
    const id = await upload(owner.key, { tags: '["dog"]' });
    model.analysis = DOG_PHOTO;
    const own = await tag(owner.key, id, ['dog', 'beach']);
    expect(own.status, own.text).toBe(200);
    expect(own.body).toMatchObject({ coins_earned: 0, verified: true, matched: ['dog', 'beach'], balance: 2 });
    expect(own.body.message).toBe(`you contributed item ${id}: tagging your own items earns nothing`);
    expect(await confirmed(id)).toEqual([
      ['beach', 'caption'],
      ['dog', 'label'],
    ]);
    // Every day, every set: still nothing.
    expect((await tag(owner.key, id, ['sand'])).body.coins_earned).toBe(0);
    expect(await coins(owner.id)).toBe(2);
  });

  it('pays the bonus only for a tag the tagger added that vision newly confirms; copying earns nothing', async () => {
    const owner = await account('bonus-owner');
    const id = await upload(owner.key, { tags: '["dog"]' });
    model.analysis = DOG_PHOTO;
    await tag(owner.key, id, ['dog']);

    // The same tag again, or in another case: no new tag, nothing earned.
    const copier = await account('copier');
    const copy = await tag(copier.key, id, ['Dog']);
    expect(copy.body).toMatchObject({ coins_earned: 0, verified: true, matched: ['dog'] });
    expect(copy.body.message).toMatch(/had every one of these tags already/);

    // A synonym is a new tag: vision confirms it (the dog label), so it pays the rate and the bonus.
    const finder = await account('finder');
    const found = await tag(finder.key, id, ['puppy', 'dog']);
    expect(found.body).toMatchObject({ coins_earned: 0.75, verified: true, matched: ['puppy', 'dog'], balance: 0.75, message: null });

    // A new tag vision does not see pays the rate; a confirmed one added later pays the bonus, once.
    const late = await account('late-finder');
    expect((await tag(late.key, id, ['zebra'])).body).toMatchObject({ coins_earned: 0.5, verified: false, matched: [] });
    expect((await tag(late.key, id, ['person'])).body).toMatchObject({ coins_earned: 0.25, verified: true, balance: 0.75 });
    expect((await tag(late.key, id, ['people', 'women'])).body).toMatchObject({ coins_earned: 0 });
    expect(await coins(late.id)).toBe(0.75);
  });

  it('pays one tagger once when the same item is tagged many times at once', async () => {
    const owner = await account('race-owner');
    const id = await upload(owner.key);
    model.analysis = DOG_PHOTO;
    await tag(owner.key, id, ['beach']);
    const racer = await account('double-tagger');
    const answers = await Promise.all([
      tag(racer.key, id, ['dog']),
      tag(racer.key, id, ['dog']),
      ...Array.from({ length: 6 }, (_, i) => tag(racer.key, id, [i % 2 ? 'person' : `extra${i}`])),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.reduce((sum, a) => sum + a.body.coins_earned, 0)).toBe(0.75);
    expect(await coins(racer.id)).toBe(0.75);
    const item = await t.request('GET', `/api/community/${id}`, { key: racer.key });
    expect(item.body.tags).toEqual(expect.arrayContaining(['beach', 'dog', 'person', 'extra0', 'extra2', 'extra4']));
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });

  it('drops the confirmation of tags that leave the item: replace, and a merged intel proposal', async () => {
    const owner = await account('retag-owner');
    const id = await upload(owner.key);
    model.analysis = DOG_PHOTO;
    expect((await tag(owner.key, id, ['dog'])).body.item.verified).toBe(true);
    const replaced = await tag(owner.key, id, ['cat', 'beach'], 'replace');
    expect(replaced.body).toMatchObject({ verified: true, matched: ['beach'] });
    expect(await confirmed(id)).toEqual([['beach', 'caption']]);
    const cat = await tag(owner.key, id, ['cat'], 'replace');
    expect(cat.body.item).toMatchObject({ tags: ['cat'], verified: false });
    expect(await confirmed(id)).toEqual([]);

    // The owner's own intel proposal merges at once: the tags it sets are checked the same way.
    const merged = await t.request('POST', `/api/wiki/image/${id}/intel`, { key: owner.key, body: { changes: { tags: ['dog', 'cat'] } } });
    expect(merged.body).toMatchObject({ status: 'merged', coins_earned: 0 });
    expect(await confirmed(id)).toEqual([['dog', 'label']]);
    await t.request('POST', `/api/wiki/image/${id}/intel`, { key: owner.key, body: { changes: { tags: ['cat'] } } });
    expect(await confirmed(id)).toEqual([]);
    expect((await t.request('GET', `/api/community/${id}`, { key: owner.key })).body.verified).toBe(false);
  });

  it('never takes a caption people edited (an intel proposal) as vision’s evidence', async () => {
    const owner = await account('caption-owner');
    const id = await upload(owner.key);
    model.analysis = { text: '', caption: 'A grey wall', labels: ['wall'] };
    await tag(owner.key, id, ['wall']);
    const edit = await t.request('POST', `/api/wiki/image/${id}/intel`, { key: owner.key, body: { changes: { caption: 'A castle with a sphinx' } } });
    expect(edit.body.status).toBe('merged');
    expect((await t.request('GET', `/api/community/${id}`, { key: owner.key })).body.caption).toBe('A castle with a sphinx');
    const tagger = await account('caption-tagger');
    const res = await tag(tagger.key, id, ['castle', 'sphinx']);
    expect(res.body).toMatchObject({ verified: false, matched: [], coins_earned: 0.5 });
    expect(await confirmed(id)).toEqual([['wall', 'label']]);
  });
});

describe('the leaderboard', () => {
  it('counts listed items only (public, not removed), for contributions and verified counts', async () => {
    const hidden = await account('only-unlisted');
    for (let i = 0; i < 3; i++) await upload(hidden.key, { public: 'false' });
    const mixed = await account('mixed-lister');
    const listed = await upload(mixed.key);
    const unlisted = await upload(mixed.key, { public: 'false' });
    const removed = await upload(mixed.key);
    model.analysis = DOG_PHOTO;
    for (const id of [listed, unlisted, removed]) expect((await tag(mixed.key, id, ['dog'])).body.item.verified).toBe(true);
    const claimant = await t.createAccount('board-claimant');
    const claim = await t.request('POST', `/api/community/${removed}/claim`, { key: claimant.key, body: { kind: 'removal', reason: 'mine' } });
    expect((await t.request('POST', `/api/admin/claims/${claim.body.id}/approve`, { admin: true })).status).toBe(200);

    const board = await t.request('GET', '/api/community/leaderboard?period=all&limit=100', { key: mixed.key });
    expect(board.status, board.text).toBe(200);
    const handles = board.body.entries.map((e: { handle: string }) => e.handle);
    expect(handles).not.toContain(hidden.handle);
    expect(board.body.entries.find((e: { handle: string }) => e.handle === mixed.handle)).toMatchObject({ contributions: 1, verified: 1 });
  });
});
