// Issue 20, "a balance that is not spendable": after escrowing 12 of 50 coins for a bounty, every
// answer that shows a balance said 50 while the next spend was refused with "the account has 38
// coins available". Now every `balance` / `new_balance` is the spendable amount and `held` beside it
// counts what pending transfers reserve: a bounty's escrow, a conversion waiting for the credit
// partner. The next spend of 39 is refused, 38 succeeds (and of two racing spends of 38, one).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_ECONOMY } from '../../src/modules/economy/index.js';
import { DEFAULT_REWARD_RATES } from '../../src/modules/ledger/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { confirmTagsByLabel } from '../helpers/community.js';

/** A credit partner that confirms, or (down) answers 503 so that a conversion stays pending. */
let partnerDown = false;
let partner: Server;
let t: TestApp;
let seed = 2000;

beforeAll(async () => {
  partner = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(partnerDown ? 503 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(partnerDown ? { error: 'down' } : { reference: 'ok' }));
    });
  });
  await new Promise<void>((resolve) => partner.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(partner.address() as AddressInfo).port}/credits`;
  const vision = loadConfig({}).vision;
  t = await startTestApp({
    vision: { ...vision, local: { ...vision.local, enabled: false } },
    economy: { ...DEFAULT_ECONOMY, premiumStyles: { noir: 0.5 }, partner: { kind: 'http', url, secret: 'partner-shared-secret-0123456789', timeoutMs: 2_000 } },
  });
});
afterAll(async () => {
  await t?.stop();
  partner.closeAllConnections();
  await new Promise<void>((resolve) => partner.close(() => resolve()));
});

const grantCoins = (handle: string, amount: number) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });
const upload = async () => ({ body: await scene(++seed), name: `p${seed}.jpg`, type: 'image/jpeg' });
const setRates = (rates: Record<string, number>) => t.request('PATCH', '/api/admin/rewards', { admin: true, body: { rates } });
/** The posted total, from the ledger's own totals (minor units): what balance + held must add up to. */
const posted = async (id: number) => (await t.app.services.ledger.wallet(id, 'coins')).balance / 10_000;

/** GET /api/community/my, GraphQL wallet and myCommunity, and the private portfolio: all the same two numbers. */
async function reads(key: string): Promise<Array<{ balance: number; held: number }>> {
  const my = await t.request('GET', '/api/community/my', { key });
  expect(my.status, my.text).toBe(200);
  const gql = await t.graphql(
    `{ wallet { ... on QueryWalletSuccess { data { balance held available reserved } } }
       myCommunity { ... on QueryMyCommunitySuccess { data { balance held } } } }`,
    {},
    { key },
  );
  const wallet = gql.body.data.wallet.data;
  // The deprecated names answer the same amounts.
  expect([wallet.available, wallet.reserved]).toEqual([wallet.balance, wallet.held]);
  const portfolio = await t.request('GET', '/api/community/portfolio', { key });
  return [
    { balance: my.body.balance, held: my.body.held },
    { balance: wallet.balance, held: wallet.held },
    gql.body.data.myCommunity.data,
    { balance: portfolio.body.private.balance, held: portfolio.body.private.held },
  ];
}

describe('balances people can spend', () => {
  it('after escrowing 12 of 50 coins every answer shows 38 with 12 held; 39 is refused, 38 is spent once', async () => {
    const saver = await t.createAccount('saver');
    const seller = await t.createAccount('seller');
    const granted = await grantCoins(saver.handle, 50);
    expect(granted.body).toMatchObject({ balance: 50, held: 0 });

    const bounty = await t.request('POST', '/api/economy/bounties', { key: saver.key, body: { subject_slug: 'old-lighthouse', reward_per_photo: 4, photos_needed: 3 } });
    expect(bounty.status, bounty.text).toBe(201);
    expect(await posted(saver.id)).toBe(50);
    for (const read of await reads(saver.key)) expect(read).toEqual({ balance: 38, held: 12 });

    // Answers of the routes that pay (at a rate of 0 for now, so that the balance stays 38).
    expect((await setRates({ community_upload: 0, tagging: 0, tag_verified_bonus: 0 })).status).toBe(200);
    const contributed = await t.request('POST', '/api/community/contribute', { key: saver.key, form: form(await upload(), { tags: '["harbour"]' }) });
    expect(contributed.status, contributed.text).toBe(201);
    expect(contributed.body).toMatchObject({ coins_earned: 0, balance: 38, held: 12 });
    const ingested = await t.request('POST', '/api/community/ingest', { key: saver.key, form: form(await upload()) });
    expect(ingested.status, ingested.text).toBe(201);
    expect(ingested.body).toMatchObject({ coins_harvested: 0, balance: 38, held: 12 });
    const theirs = await t.request('POST', '/api/community/ingest', { key: seller.key, form: form(await upload(), { unlock_price: '39' }) });
    const tagged = await t.request('POST', `/api/community/${theirs.body.intel_id}/tag`, { key: saver.key, body: { tags: ['sea'], action: 'add' } });
    expect(tagged.status, tagged.text).toBe(200);
    expect(tagged.body).toMatchObject({ coins_earned: 0, balance: 38, held: 12 });

    // The next spend: 39 is refused with the same number the answers showed; 38 succeeds.
    const tooMuch = await t.request('POST', `/api/community/${theirs.body.intel_id}/unlock`, { key: saver.key });
    expect([tooMuch.status, tooMuch.body.error]).toEqual([402, 'this needs 39 coins and the account has 38 coins available']);
    const [a, b] = [
      await t.request('POST', '/api/community/ingest', { key: seller.key, form: form(await upload(), { unlock_price: '38' }) }),
      await t.request('POST', '/api/community/ingest', { key: seller.key, form: form(await upload(), { unlock_price: '38' }) }),
    ];
    // Two spends of the last 38 at once: exactly one is paid.
    const unlocks = await Promise.all([a, b].map((item) => t.request('POST', `/api/community/${item.body.intel_id}/unlock`, { key: saver.key })));
    expect(unlocks.map((r) => r.status).sort()).toEqual([200, 402]);
    expect(unlocks.find((r) => r.status === 200)!.body).toMatchObject({ charged: 38, balance: 0, held: 12 });
    for (const read of await reads(saver.key)) expect(read).toEqual({ balance: 0, held: 12 });
    expect(await posted(saver.id)).toBe(12);

    // Paid again: the award's answer is the spendable balance too.
    await setRates({ community_upload: DEFAULT_REWARD_RATES.community_upload, tagging: DEFAULT_REWARD_RATES.tagging, tag_verified_bonus: DEFAULT_REWARD_RATES.tag_verified_bonus });
    const paid = await t.request('POST', '/api/community/contribute', { key: saver.key, form: form(await upload()) });
    expect(paid.body).toMatchObject({ coins_earned: 2, balance: 2, held: 12 });
    const style = await t.request('POST', '/api/economy/styles/noir/unlock', { key: saver.key });
    expect(style.body).toMatchObject({ charged: 0.5, new_balance: 1.5, held: 12 });
    const regranted = await grantCoins(saver.handle, 10);
    expect(regranted.body).toMatchObject({ balance: 11.5, held: 12 });
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });

  it('shows a conversion waiting for the credit partner as held, and releases it into the balance when it completes', async () => {
    const account = await t.createAccount('converter');
    await grantCoins(account.handle, 20);
    expect((await t.request('POST', '/api/economy/bridge/link', { key: account.key, body: { partner_account: `p-${account.handle}` } })).status).toBe(200);
    const done = await t.request('POST', '/api/economy/bridge/convert', { key: account.key, body: { coins: 5 } });
    expect(done.body).toMatchObject({ status: 'completed', coins_burned: 5, new_balance: 15, held: 0 });

    partnerDown = true;
    try {
      const pending = await t.request('POST', '/api/economy/bridge/convert', { key: account.key, body: { coins: 6 } });
      expect(pending.status, pending.text).toBe(200);
      expect(pending.body).toMatchObject({ status: 'pending', coins_burned: 6, new_balance: 9, held: 6 });
      for (const read of await reads(account.key)) expect(read).toEqual({ balance: 9, held: 6 });
      const refused = await t.request('POST', '/api/economy/bridge/convert', { key: account.key, body: { coins: 10 } });
      expect([refused.status, refused.body.error]).toEqual([402, 'this needs 10 coins and the account has 9 coins available']);
    } finally {
      partnerDown = false;
    }
    await t.app.services.db.query(`UPDATE "BridgeConversion" SET "nextAttemptAt" = timezone('UTC', now()) - interval '1 second' WHERE "status" = 'pending' AND "accountId" = $1`, [account.id]);
    await t.app.services.economy.bridge.retryDue();
    for (const read of await reads(account.key)) expect(read).toEqual({ balance: 9, held: 0 });
  });

  it('answers the bounty claimant its spendable balance beside what its own bounty holds', async () => {
    const poster = await t.createAccount('claim-poster');
    const claimant = await t.createAccount('claimant');
    await grantCoins(poster.handle, 10);
    await grantCoins(claimant.handle, 10);
    const theirs = (await t.request('POST', '/api/economy/bounties', { key: poster.key, body: { subject_slug: 'windmill', reward_per_photo: 3, photos_needed: 1 } })).body.id;
    expect((await t.request('POST', '/api/economy/bounties', { key: claimant.key, body: { subject_slug: 'tower', reward_per_photo: 2, photos_needed: 2 } })).status).toBe(201);
    const item = await t.request('POST', '/api/community/contribute', { key: claimant.key, form: form(await upload(), { tags: '["windmill"]' }) });
    // Its tags confirmed by a vision label (vision is off here).
    await confirmTagsByLabel(t, item.body.id);
    const claimed = await t.request('POST', `/api/economy/bounties/${theirs}/claim`, { key: claimant.key, body: { crowdsource_id: item.body.id } });
    expect(claimed.status, claimed.text).toBe(200);
    // 10 granted + 2 for the upload + 3 paid - 4 held by its own bounty.
    expect(claimed.body).toMatchObject({ paid: 3, balance: 11, held: 4 });
  });
});
