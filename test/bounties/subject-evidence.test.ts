// Issue 20, "a bounty paid for a photo that does not show its subject": an image of the word "CASTLE"
// tagged `castle, sphinx` collected the "Sphinx" bounty (half its tags matched, so it was "verified"),
// and a verified castle upload retagged to `pyramid` collected the "Pyramid" bounty (verification
// never dropped). Now a claim pays only when the subject is among the upload's tags confirmed by what
// vision sees (text read in the image alone does not count), or a verified wiki photo of the subject
// is of the same image; and "a claim on a missing bounty with an unverified upload answers 409, not
// 404": the bounty is looked up first. Vision is a scripted model provider (fixtures/vision).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWithScriptedModel, type ScriptedModel } from '../fixtures/vision/scripted-model.js';
import type { TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;
let model: ScriptedModel;
let seed = 7100;

beforeAll(async () => {
  ({ t, model } = await startWithScriptedModel());
});
afterAll(async () => {
  await t?.stop();
  await model?.close();
});

type Account = Awaited<ReturnType<TestApp['createAccount']>>;

const coins = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'coins')).balance / 10_000;

async function poster(): Promise<Account> {
  const account = await t.createAccount('subject-poster');
  await t.app.services.ledger.transfer({ id: `subject-test:${account.id}`, currency: 'coins', from: { system: 'grants' }, to: { account: account.id }, amount: 50 * 10_000, action: 'grant' });
  return account;
}

/** A photographer who can pay the model's analyses (API credits). */
async function photographer(): Promise<Account> {
  const account = await t.createAccount('subject-photographer');
  await t.app.services.credits.grant(account.id, { amount: 50 });
  return account;
}

async function bounty(key: string, subjectName: string): Promise<number> {
  const res = await t.request('POST', '/api/economy/bounties', { key, body: { subject_name: subjectName, reward_per_photo: 3, photos_needed: 2 } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

async function upload(key: string, image?: Buffer): Promise<number> {
  const res = await t.request('POST', '/api/community/contribute', { key, form: form({ body: image ?? (await scene(++seed)), name: 'p.jpg', type: 'image/jpeg' }) });
  expect(res.status, res.text).toBe(201);
  return res.body.id as number;
}

const tag = (key: string, id: number, tags: string[], action = 'add') => t.request('POST', `/api/community/${id}/tag`, { key, body: { tags, action } });
const claim = (key: string, bountyId: number, itemId: number) => t.request('POST', `/api/economy/bounties/${bountyId}/claim`, { key, body: { crowdsource_id: itemId } });

/** What the scripted model answers for an image of the word CASTLE (the local provider's caption quotes the text it read). */
const CASTLE_WORD = { text: 'CASTLE', caption: "An image with the text 'CASTLE'", labels: ['text'] };
/** ... and for a photo of a castle. */
const CASTLE_PHOTO = { text: '', caption: 'A stone castle on a hill', labels: ['castle', 'building'] };

describe('a bounty pays only for an upload that shows its subject', () => {
  let owner: Account;
  let sphinx: number;
  let castle: number;
  let pyramid: number;

  beforeAll(async () => {
    owner = await poster();
    sphinx = await bounty(owner.key, 'Sphinx');
    castle = await bounty(owner.key, 'Castle');
    pyramid = await bounty(owner.key, 'Pyramid');
  });

  it('refuses an image of the word "CASTLE" tagged castle, sphinx for the Sphinx and the Castle bounty, even when a model reads the word', async () => {
    const cheat = await photographer();
    const id = await upload(cheat.key);
    model.analysis = CASTLE_WORD;
    model.judgement = ['castle'];
    const tagged = await tag(cheat.key, id, ['castle', 'sphinx']);
    expect(tagged.status, tagged.text).toBe(200);
    // "castle" is confirmed, by the text read in the image: the item is verified (the tagging bonus's rule), "sphinx" is not.
    expect(tagged.body).toMatchObject({ verified: true, matched: ['castle'] });
    expect(tagged.body.item.verified).toBe(true);
    const confirmations = await t.app.services.db.prisma.communityTagConfirmation.findMany({ where: { itemId: id } });
    expect(confirmations.map((c) => [c.tag, c.evidence])).toEqual([['castle', 'text']]);

    const forSphinx = await claim(cheat.key, sphinx, id);
    expect(forSphinx.status).toBe(409);
    expect(forSphinx.body.error).toMatch(/^crowdsource_id: community item \d+'s tag "sphinx" is not AI-verified/);
    const forCastle = await claim(cheat.key, castle, id);
    expect(forCastle.status).toBe(409);
    expect(forCastle.body.error).toMatch(/tag "castle" is confirmed only by text read in the image \(OCR\), which does not show Castle/);
    expect(await coins(cheat.id)).toBe(2);
    const open = await t.request('GET', `/api/economy/bounties?status=open&limit=100`, { key: cheat.key });
    for (const b of open.body.bounties.filter((b: { id: number }) => [sphinx, castle].includes(b.id))) expect(b.photos_claimed).toBe(0);
  });

  it('pays a photo whose castle tag vision saw, and refuses it once its tags were replaced with pyramid', async () => {
    const photographerA = await photographer();
    const good = await upload(photographerA.key);
    model.analysis = CASTLE_PHOTO;
    model.judgement = ['castle'];
    expect((await tag(photographerA.key, good, ['Castle'])).body).toMatchObject({ verified: true, matched: ['castle'] });
    const paid = await claim(photographerA.key, castle, good);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body).toMatchObject({ paid: 3, balance: 2 + 3 });

    const retagged = await upload(photographerA.key);
    expect((await tag(photographerA.key, retagged, ['castle'])).body.item.verified).toBe(true);
    const replaced = await tag(photographerA.key, retagged, ['pyramid'], 'replace');
    expect(replaced.status, replaced.text).toBe(200);
    // The castle tag left with its confirmation; vision never saw a pyramid: the item is no longer verified.
    expect(replaced.body).toMatchObject({ verified: false, matched: [] });
    expect(replaced.body.item).toMatchObject({ tags: ['pyramid'], verified: false });
    expect(await t.app.services.db.prisma.communityTagConfirmation.count({ where: { itemId: retagged } })).toBe(0);
    const forPyramid = await claim(photographerA.key, pyramid, retagged);
    expect(forPyramid.status).toBe(409);
    expect(forPyramid.body.error).toMatch(/tag "pyramid" is not AI-verified/);
    const forCastle = await claim(photographerA.key, castle, retagged);
    expect(forCastle.status).toBe(400);
    expect(forCastle.body.error).toMatch(/^crowdsource_id: the upload is not of Castle: none of its tags is "castle"/);
    expect(await coins(photographerA.id)).toBe(4 + 3);
  });

  it('finds only uploads that show the word in the atlas: not the image of the word, not a retagged one', async () => {
    const query = 'query($q: String) { atlas(query: $q, limit: 100) { ... on QueryAtlasSuccess { data { source databaseId } } } }';
    const photographerB = await photographer();
    const shown = await upload(photographerB.key);
    model.analysis = CASTLE_PHOTO;
    model.judgement = null;
    await tag(photographerB.key, shown, ['castles']);
    const word = await upload(photographerB.key);
    model.analysis = CASTLE_WORD;
    await tag(photographerB.key, word, ['castle']);
    const found = (await t.graphql(query, { q: 'castle' })).body.data.atlas.data.map((e: { databaseId: number }) => e.databaseId);
    expect(found).toContain(shown);
    expect(found).not.toContain(word);
    expect((await t.graphql(query, { q: 'pyramid' })).body.data.atlas.data).toEqual([]);
  });

  it('pays an upload whose image is a wiki photo verified for the subject by three votes, without a tag', async () => {
    const creator = await t.createAccount('sphinx-creator');
    const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: 'Sphinx', category: 'landmark' } });
    expect(made.status, made.text).toBe(201);
    expect((await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/approve`, { admin: true })).status).toBe(200);
    const photographerC = await t.createAccount('sphinx-photographer');
    const image = await scene(++seed);
    const photo = await t.request('POST', `/api/wiki/subjects/${encodeURIComponent(made.body.slug)}/contribute`, { key: photographerC.key, form: form({ body: image, name: 'p.jpg', type: 'image/jpeg' }) });
    expect(photo.status, photo.text).toBe(201);
    const id = await upload(photographerC.key, image);
    const early = await claim(photographerC.key, sphinx, id);
    expect(early.status).toBe(400);
    expect(early.body.error).toMatch(/or a verified wiki photo of sphinx of the same image/);
    for (let i = 0; i < 3; i++) {
      const voter = await t.createAccount('sphinx-voter');
      expect((await t.request('POST', `/api/wiki/metadata/${photo.body.photo.id}/vote`, { key: voter.key, body: { vote: 'confirm' } })).status).toBe(200);
    }
    const paid = await claim(photographerC.key, sphinx, id);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.body.paid).toBe(3);
  });
});

describe('a claim on a missing bounty', () => {
  it('answers 404 whatever the upload: unverified, someone else’s, missing', async () => {
    const a = await photographer();
    const b = await photographer();
    const unverified = await upload(a.key);
    const others = await upload(b.key);
    for (const itemId of [unverified, others, 99_999_999]) {
      const res = await claim(a.key, 99_999_999, itemId);
      expect(res.status, `item ${itemId}`).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'no bounty 99999999' });
    }
  });
});
