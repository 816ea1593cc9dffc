// Bounties: the budget escrowed at posting (pending transfers), claims with AI-verified uploads of
// the subject paid at once, the last photo going to exactly one of two racing claims, expiry and
// cancellation returning the rest, and the attacks (own bounty, someone else's upload, an upload
// claiming twice, too few coins, bad input).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { confirmTagsByLabel } from '../helpers/community.js';

let t: TestApp;
let seed = 500;

beforeAll(async () => {
  t = await startTestApp({ vision: { ...loadConfig({}).vision, local: { ...loadConfig({}).vision.local, enabled: false } } });
});
afterAll(() => t?.stop());

const coins = async (accountId: number) => (await t.app.services.ledger.wallet(accountId, 'coins')) ;

async function grant(accountId: number, amount: number) {
  await t.app.services.ledger.transfer({ id: `bounty-test:${accountId}:${Math.random()}`, currency: 'coins', from: { system: 'grants' }, to: { account: accountId }, amount: amount * 10_000, action: 'grant' });
}

/**
 * An upload of the account's, tagged, with each tag confirmed by a vision label as tagging would
 * record it (vision is off here; test/bounties/subject-evidence.test.ts serves it).
 */
async function verifiedUpload(key: string, tags: string[], verified = true): Promise<number> {
  const res = await t.request('POST', '/api/community/contribute', { key, form: form({ body: await scene(++seed), name: 'p.jpg', type: 'image/jpeg' }, { tags: JSON.stringify(tags) }) });
  expect(res.status, res.text).toBe(201);
  if (verified) await confirmTagsByLabel(t, res.body.id);
  return res.body.id as number;
}

async function post(key: string, body: Record<string, unknown>) {
  return t.request('POST', '/api/economy/bounties', { key, body });
}

describe('bounties', () => {
  it('escrows the budget at once, pays each claim at once, and fills', async () => {
    const poster = await t.createAccount('poster');
    const photographer = await t.createAccount('photographer');
    await grant(poster.id, 10);
    const res = await post(poster.key, { subject_name: 'Eiffel Tower', reward_per_photo: 1.5, photos_needed: 2, description: 'from the river' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ success: true, subject_slug: 'eiffel-tower', subject_name: 'Eiffel Tower', reward_per_photo: 1.5, photos_needed: 2, photos_claimed: 0, escrow_remaining: 3, status: 'open', mine: true });
    expect(new Date(res.body.expires_at).getTime() - Date.now()).toBeGreaterThan(29.9 * 86_400_000);
    // Reserved, not yet moved: the poster cannot spend it.
    expect(await coins(poster.id)).toMatchObject({ balance: 10 * 10_000, reserved: 3 * 10_000, available: 7 * 10_000 });

    const first = await verifiedUpload(photographer.key, ['eiffel tower', 'paris']);
    const claimed = await t.request('POST', `/api/economy/bounties/${res.body.id}/claim`, { key: photographer.key, body: { crowdsource_id: first } });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body).toMatchObject({ success: true, bounty_id: res.body.id, crowdsource_id: first, paid: 1.5, balance: 2 + 1.5 });
    expect(claimed.body.bounty).toMatchObject({ photos_claimed: 1, status: 'open', escrow_remaining: 1.5, mine: false });

    const again = await t.request('POST', `/api/economy/bounties/${res.body.id}/claim`, { key: photographer.key, body: { crowdsource_id: first } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/claims once/);

    const second = await verifiedUpload(photographer.key, ['Eiffel-Tower']);
    const filled = await t.request('POST', `/api/economy/bounties/${res.body.id}/claim`, { key: photographer.key, body: { crowdsource_id: second } });
    expect(filled.body.bounty).toMatchObject({ photos_claimed: 2, status: 'filled', escrow_remaining: 0 });
    expect(await coins(poster.id)).toMatchObject({ balance: 7 * 10_000, reserved: 0 });
    const third = await verifiedUpload(photographer.key, ['eiffel-tower']);
    expect((await t.request('POST', `/api/economy/bounties/${res.body.id}/claim`, { key: photographer.key, body: { crowdsource_id: third } })).status).toBe(409);

    const listed = await t.request('GET', '/api/economy/bounties?status=filled&limit=100', { key: photographer.key });
    expect(listed.body.bounties.map((b: { id: number }) => b.id)).toContain(res.body.id);
    // The total counts the bounties of the status asked for, and all of them without one.
    expect(listed.body.total).toBe(await t.app.services.db.prisma.bounty.count({ where: { status: 'filled' } }));
    const all = await t.request('GET', '/api/economy/bounties?limit=1', { key: photographer.key });
    expect(all.body.total).toBe(await t.app.services.db.prisma.bounty.count());
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });

  it('pays exactly one of two claims racing for the last photo', async () => {
    const poster = await t.createAccount('race-poster');
    const a = await t.createAccount('racer-a');
    const b = await t.createAccount('racer-b');
    await grant(poster.id, 1);
    const bounty = (await post(poster.key, { subject_slug: 'lighthouse', reward_per_photo: 1, photos_needed: 1 })).body.id;
    const [ua, ub] = [await verifiedUpload(a.key, ['lighthouse']), await verifiedUpload(b.key, ['lighthouse'])];
    const answers = await Promise.all([
      t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: a.key, body: { crowdsource_id: ua } }),
      t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: b.key, body: { crowdsource_id: ub } }),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    const paid = (await coins(a.id)).balance + (await coins(b.id)).balance;
    expect(paid).toBe((2 + 2 + 1) * 10_000);
    expect(await coins(poster.id)).toMatchObject({ balance: 0, reserved: 0 });
  });

  it('pays each slot once to concurrent claims of one claimant, each answer showing the balance its own claim left', async () => {
    const poster = await t.createAccount('crowd-poster');
    const claimant = await t.createAccount('crowd-claimant');
    await grant(poster.id, 3);
    const bounty = (await post(poster.key, { subject_slug: 'windmill', reward_per_photo: 1, photos_needed: 3 })).body.id;
    const uploads = [];
    for (let i = 0; i < 5; i++) uploads.push(await verifiedUpload(claimant.key, ['windmill']));
    const before = (await coins(claimant.id)).available / 10_000;
    // Five uploads and the first one twice more, all at once, for three slots.
    const answers = await Promise.all(
      [...uploads, uploads[0], uploads[0]].map((id) => t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: claimant.key, body: { crowdsource_id: id } })),
    );
    const paid = answers.filter((r) => r.status === 200);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 409, 409, 409, 409]);
    // Each answer shows the wallet its own claim left: one, two and three coins more than before.
    expect(paid.map((r) => r.body.balance).sort((x, y) => x - y)).toEqual([1, 2, 3].map((n) => before + n));
    expect(paid.map((r) => r.body.bounty.photos_claimed).sort()).toEqual([1, 2, 3]);
    const claims = await t.app.services.db.prisma.bountyClaim.findMany({ where: { bountyId: bounty } });
    expect(claims.map((c) => c.slot).sort()).toEqual([0, 1, 2]);
    expect(new Set(claims.map((c) => c.itemId)).size).toBe(3);
    expect((await coins(claimant.id)).available).toBe((before + 3) * 10_000);
    expect(await coins(poster.id)).toMatchObject({ balance: 0, reserved: 0 });
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });

  it('refuses a claim by the poster, with another account’s upload, an unverified one or one of another subject', async () => {
    const poster = await t.createAccount('strict-poster');
    const other = await t.createAccount('strict-other');
    await grant(poster.id, 5);
    const bounty = (await post(poster.key, { subject_slug: 'red-bridge', reward_per_photo: 1, photos_needed: 3 })).body.id;
    const posters = await verifiedUpload(poster.key, ['red-bridge']);
    expect((await t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: poster.key, body: { crowdsource_id: posters } })).status).toBe(403);
    const others = await verifiedUpload(other.key, ['red-bridge']);
    const thief = await t.createAccount('thief');
    expect((await t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: thief.key, body: { crowdsource_id: others } })).status).toBe(403);
    const unverified = await verifiedUpload(other.key, ['red-bridge'], false);
    expect((await t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: other.key, body: { crowdsource_id: unverified } })).status).toBe(409);
    const offTopic = await verifiedUpload(other.key, ['blue-bridge']);
    const wrong = await t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: other.key, body: { crowdsource_id: offTopic } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatch(/^crowdsource_id: the upload is not of/);
    expect((await t.request('POST', `/api/economy/bounties/${bounty}/claim`, { key: other.key, body: {} })).body.error).toMatch(/^crowdsource_id is required/);
    expect((await t.request('POST', '/api/economy/bounties/99999999/claim', { key: other.key, body: { crowdsource_id: others } })).status).toBe(404);
  });

  it('refuses a bounty the poster cannot pay, and bad input, naming the field', async () => {
    const poster = await t.createAccount('poor-poster');
    await grant(poster.id, 2);
    const poor = await post(poster.key, { subject_slug: 'moon', reward_per_photo: 1, photos_needed: 3 });
    expect(poor.status).toBe(402);
    expect(poor.body.error).toMatch(/3 coins/);
    expect((await t.request('GET', '/api/economy/bounties?limit=100', { key: poster.key })).body.bounties.some((b: { mine: boolean }) => b.mine)).toBe(false);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ reward_per_photo: 1, photos_needed: 1 }, 'subject_slug'],
      [{ subject_slug: 'Not A Slug', reward_per_photo: 1, photos_needed: 1 }, 'subject_slug'],
      [{ subject_slug: 'moon', photos_needed: 1 }, 'reward_per_photo'],
      [{ subject_slug: 'moon', reward_per_photo: -1, photos_needed: 1 }, 'reward_per_photo'],
      [{ subject_slug: 'moon', reward_per_photo: 0.00001, photos_needed: 1 }, 'reward_per_photo'],
      [{ subject_slug: 'moon', reward_per_photo: 1 }, 'photos_needed'],
      [{ subject_slug: 'moon', reward_per_photo: 1, photos_needed: 101 }, 'photos_needed'],
      [{ subject_slug: 'moon', reward_per_photo: 1, photos_needed: 1, expires_days: 0 }, 'expires_days'],
    ];
    for (const [body, field] of cases) {
      const res = await post(poster.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: poster.key, body: { scopes: 'media' } });
    expect((await post(sub.body.sub_key, { subject_slug: 'moon', reward_per_photo: 1, photos_needed: 1 })).status).toBe(403);
    expect((await t.request('GET', '/api/economy/bounties?status=closed', { key: poster.key })).status).toBe(400);
    expect((await t.request('GET', '/api/economy/bounties')).status).toBe(401);
  });

  it('returns the rest of the escrow on cancellation and on expiry (the scheduler’s sweep)', async () => {
    const poster = await t.createAccount('closer');
    const photographer = await t.createAccount('closer-photos');
    await grant(poster.id, 10);
    const cancelled = (await post(poster.key, { subject_slug: 'old-mill', reward_per_photo: 2, photos_needed: 3 })).body.id;
    const upload = await verifiedUpload(photographer.key, ['old-mill']);
    await t.request('POST', `/api/economy/bounties/${cancelled}/claim`, { key: photographer.key, body: { crowdsource_id: upload } });
    expect((await t.request('POST', `/api/economy/bounties/${cancelled}/cancel`, { key: photographer.key })).status).toBe(404);
    const cancel = await t.request('POST', `/api/economy/bounties/${cancelled}/cancel`, { key: poster.key });
    expect(cancel.body).toMatchObject({ status: 'cancelled', photos_claimed: 1, escrow_remaining: 0 });
    expect(await coins(poster.id)).toMatchObject({ balance: 8 * 10_000, reserved: 0 });
    expect((await t.request('POST', `/api/economy/bounties/${cancelled}/cancel`, { key: poster.key })).status).toBe(409);

    const expiring = (await post(poster.key, { subject_slug: 'old-mill', reward_per_photo: 1, photos_needed: 4, expires_days: 1 })).body.id;
    expect(await coins(poster.id)).toMatchObject({ reserved: 4 * 10_000 });
    await t.app.services.db.prisma.bounty.update({ where: { id: expiring }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const late = await verifiedUpload(photographer.key, ['old-mill']);
    expect((await t.request('POST', `/api/economy/bounties/${expiring}/claim`, { key: photographer.key, body: { crowdsource_id: late } })).status).toBe(409);
    expect(await t.app.services.bounties.expireDue()).toBeGreaterThanOrEqual(1);
    expect(await coins(poster.id)).toMatchObject({ balance: 8 * 10_000, reserved: 0 });
    const listed = await t.request('GET', '/api/economy/bounties?status=expired&limit=100', { key: poster.key });
    expect(listed.body.bounties.find((b: { id: number }) => b.id === expiring)).toMatchObject({ status: 'expired', escrow_remaining: 0 });
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });
});
