// The coin bridge with the local credit partner (the default): GET /api/economy/bridge/rate, POST
// /api/economy/bridge/convert (rounding, 402, idempotency keys, concurrent conversions of the whole
// balance), one conversion by id, keys and hostile amounts, and the GraphQL fields behind them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { conversionAmounts } from '../../src/modules/economy/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const grantCoins = (handle: string, amount: number) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });
const convert = (key: string, body: unknown) => t.request('POST', '/api/economy/bridge/convert', { key, body });
const coinsOf = async (id: number) => (await t.app.services.ledger.wallet(id, 'coins')).balance / 10_000;
const creditsOf = async (id: number) => (await t.app.services.ledger.wallet(id, 'credits')).balance / 10_000;

describe('conversion amounts', () => {
  it('round credits down to minor units and burn only the coins that make them', () => {
    expect(conversionAmounts(10_000, 10)).toEqual({ coins: 10_000, credits: 1_000 });
    // 0.0015 coins make 0.00015 credits: 0.0001 credits for 0.001 coins.
    expect(conversionAmounts(15, 10)).toEqual({ coins: 10, credits: 1 });
    expect(conversionAmounts(9, 10)).toEqual({ coins: 0, credits: 0 });
    // A rate with decimals: 2.5 coins per credit; 1 coin makes 0.4 credits exactly.
    expect(conversionAmounts(10_000, 2.5)).toEqual({ coins: 10_000, credits: 4_000 });
    // 0.0001 coins at 3 coins per credit make nothing; 0.0004 make 0.0001 credits for 0.0003 coins.
    expect(conversionAmounts(1, 3)).toEqual({ coins: 0, credits: 0 });
    expect(conversionAmounts(4, 3)).toEqual({ coins: 3, credits: 1 });
    // Never burns more than asked, never gives more than paid for.
    for (const [coins, rate] of [[7, 0.3], [12_345, 7.0001], [99_999, 0.0001], [1, 0.0001]] as const) {
      const out = conversionAmounts(coins, rate);
      expect(out.coins).toBeLessThanOrEqual(coins);
      expect(out.credits * rate * 10_000).toBeLessThanOrEqual(out.coins * 10_000 + 1e-6);
    }
  });
});

describe('GET /api/economy/bridge/rate', () => {
  it('answers the rate (10 by default), the local partner and that every account is linked to itself', async () => {
    const account = await t.createAccount('rate');
    const res = await t.request('GET', '/api/economy/bridge/rate', { key: account.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, coins_per_credit: 10, partner: 'local', linked: true, partner_account: null, minimum_coins: 0.001 });
    // Any key reads it, a sub-key of any scope too; no key is a 401.
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'scrape' } });
    expect((await t.request('GET', '/api/economy/bridge/rate', { key: sub.body.sub_key })).status).toBe(200);
    expect((await t.request('GET', '/api/economy/bridge/rate')).status).toBe(401);
  });
});

describe('POST /api/economy/bridge/convert (local partner)', () => {
  it('burns coins into the bridge account and adds credits to the caller, in the spec fields first', async () => {
    const account = await t.createAccount('convert');
    await grantCoins(account.handle, 25);
    const res = await convert(account.key, { coins: 12.5 });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body).slice(0, 4)).toEqual(['success', 'coins_burned', 'credits_added', 'new_balance']);
    expect(res.body).toMatchObject({ success: true, coins_burned: 12.5, credits_added: 1.25, new_balance: 12.5, status: 'completed', partner: 'local', replayed: false, message: null, attempts: 1 });
    expect(await coinsOf(account.id)).toBe(12.5);
    expect(await creditsOf(account.id)).toBe(1.25);
    // The credits show in the caller's credit ledger.
    const credits = await t.request('GET', '/api/media/credits', { key: account.key });
    expect(credits.body.entries[0]).toMatchObject({ amount: 1.25, action: 'bridge_convert', reference: res.body.conversion_id });
    // The money balances: coins went to the bridge account, credits came from it.
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
    expect(await t.app.services.ledger.trialBalance('credits')).toBe(0);
    // The conversion reads back by id (its owner only).
    const read = await t.request('GET', `/api/economy/bridge/conversions/${res.body.conversion_id}`, { key: account.key });
    expect(read.body).toMatchObject({ success: true, conversion_id: res.body.conversion_id, status: 'completed', coins_burned: 12.5, credits_added: 1.25 });
    const other = await t.createAccount('convert-other');
    expect((await t.request('GET', `/api/economy/bridge/conversions/${res.body.conversion_id}`, { key: other.key })).status).toBe(404);
  });

  it('rounds credits down and burns only what converts', async () => {
    const account = await t.createAccount('rounding');
    await grantCoins(account.handle, 1);
    const res = await convert(account.key, { coins: 0.0015 });
    expect(res.body).toMatchObject({ coins_burned: 0.001, credits_added: 0.0001, new_balance: 0.999 });
    const tooFew = await convert(account.key, { coins: 0.0009 });
    expect(tooFew.status).toBe(400);
    expect(tooFew.body.error).toBe('coins: 0.0009 coins make no whole 0.0001 credit at 10 coins per credit; convert at least 0.001 coins');
  });

  it('answers 402 without the coins, and moves nothing', async () => {
    const account = await t.createAccount('poor');
    await grantCoins(account.handle, 3);
    const res = await convert(account.key, { coins: 5 });
    expect(res.status).toBe(402);
    expect(res.body).toEqual({ success: false, error: 'this needs 5 coins and the account has 3 coins available' });
    expect([await coinsOf(account.id), await creditsOf(account.id)]).toEqual([3, 0]);
  });

  it('converts once per idempotency key; the key with another amount is a 409', async () => {
    const account = await t.createAccount('idem');
    await grantCoins(account.handle, 50);
    const first = await convert(account.key, { coins: 20, idempotency_key: 'order-1' });
    const again = await convert(account.key, { coins: 20, idempotency_key: 'order-1' });
    expect(again.body).toMatchObject({ conversion_id: first.body.conversion_id, replayed: true, coins_burned: 20, credits_added: 2, new_balance: 30 });
    expect([await coinsOf(account.id), await creditsOf(account.id)]).toEqual([30, 2]);
    const other = await convert(account.key, { coins: 10, idempotency_key: 'order-1' });
    expect([other.status, other.body.error]).toEqual([409, 'idempotency_key: this key converted another amount before']);
    // Another account's same key is its own conversion.
    const someone = await t.createAccount('idem-other');
    await grantCoins(someone.handle, 20);
    expect((await convert(someone.key, { coins: 20, idempotency_key: 'order-1' })).body).toMatchObject({ replayed: false, coins_burned: 20 });
  });

  it('lets exactly one of 8 concurrent conversions of the whole balance through', async () => {
    const account = await t.createAccount('race');
    await grantCoins(account.handle, 10);
    const results = await Promise.all(Array.from({ length: 8 }, () => convert(account.key, { coins: 10 })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402, 402, 402]);
    expect([await coinsOf(account.id), await creditsOf(account.id)]).toEqual([0, 1]);
    const rows = await t.app.services.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "BridgeConversion" WHERE "accountId" = $1`, [account.id]);
    expect(rows[0]!.n).toBe(1);
  });

  it('lets as many concurrent conversions through as the funds allow', async () => {
    const account = await t.createAccount('race-some');
    await grantCoins(account.handle, 7);
    const results = await Promise.all(Array.from({ length: 6 }, () => convert(account.key, { coins: 2 })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402)).toHaveLength(3);
    expect([await coinsOf(account.id), await creditsOf(account.id)]).toEqual([1, 0.6]);
  });

  it('answers each of 12 concurrent conversions of one account the balance its own conversion left, and completes each in the hold\'s statement', async () => {
    const account = await t.createAccount('race-balances');
    await grantCoins(account.handle, 100);
    const results = await Promise.all(Array.from({ length: 12 }, () => convert(account.key, { coins: 1.5 })));
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(200));
    // Serialised on the wallet, the twelve leave 98.5, 97 ... 82: each answer one of them, none twice.
    const balances = results.map((r) => r.body.new_balance as number).sort((a, b) => b - a);
    expect(balances).toEqual(Array.from({ length: 12 }, (_, i) => 100 - 1.5 * (i + 1)));
    expect(results.every((r) => r.body.status === 'completed' && r.body.held === 0 && r.body.attempts === 1)).toBe(true);
    expect([await coinsOf(account.id), await creditsOf(account.id)]).toEqual([82, 1.8]);
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
    expect(await t.app.services.ledger.trialBalance('credits')).toBe(0);
  });

  it('refuses without a key (401), with a sub-key (403: master only) and hostile amounts (400 naming coins)', async () => {
    const account = await t.createAccount('hostile');
    await grantCoins(account.handle, 5);
    expect((await t.request('POST', '/api/economy/bridge/convert', { body: { coins: 1 } })).status).toBe(401);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'scrape,generate,search,media' } });
    const bySub = await convert(sub.body.sub_key, { coins: 1 });
    expect([bySub.status, bySub.body.error]).toEqual([403, 'this operation needs the account master key; sub-keys cannot call it']);
    const cases: Array<[unknown, RegExp]> = [
      [{}, /^coins is required/],
      [{ coins: 'ten' }, /^coins: expected a number/],
      [{ coins: -1 }, /^coins: expected a positive amount/],
      [{ coins: 0 }, /^coins: expected a positive amount/],
      [{ coins: 1.00001 }, /^coins: expected at most 4 decimals/],
      [{ coins: 1e9 + 1 }, /^coins: expected/],
      [{ coins: 1e300 }, /^coins: expected/],
      [{ coins: null }, /^coins/],
      [{ coins: [1] }, /^coins: expected a number/],
      [{ coins: 1, idempotency_key: 'has space' }, /^idempotency_key: /],
    ];
    for (const [body, error] of cases) {
      const res = await convert(account.key, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(error);
    }
    const raw = await t.request('POST', '/api/economy/bridge/convert', { key: account.key, rawBody: '{"coins": 1e999}', headers: { 'Content-Type': 'application/json' } });
    expect(raw.status).toBe(400);
    expect(await coinsOf(account.id)).toBe(5);
  });

  it('is the GraphQL mutation convertCoins and the query bridgeRate', async () => {
    const account = await t.createAccount('gql-convert');
    await grantCoins(account.handle, 4);
    const res = await t.graphql(
      'mutation { convertCoins(coins: 4) { __typename ... on MutationConvertCoinsSuccess { data { coinsBurned creditsAdded newBalance status } } ... on ServiceError { status message } } }',
      {},
      { key: account.key },
    );
    expect(res.body.data.convertCoins).toEqual({ __typename: 'MutationConvertCoinsSuccess', data: { coinsBurned: 4, creditsAdded: 0.4, newBalance: 0, status: 'completed' } });
    const broke = await t.graphql('mutation { convertCoins(coins: 1) { ... on ServiceError { status message } } }', {}, { key: account.key });
    expect(broke.body.data.convertCoins).toEqual({ status: 402, message: 'this needs 1 coins and the account has 0 coins available' });
    const rate = await t.graphql('{ bridgeRate { coinsPerCredit partner linked } }', {}, { key: account.key });
    expect(rate.body.data.bridgeRate).toEqual({ coinsPerCredit: 10, partner: 'local', linked: true });
  });
});

describe('POST /api/economy/bridge/link', () => {
  it('stores the partner account (master key only); under the local partner credits still land here', async () => {
    const account = await t.createAccount('link-local');
    const res = await t.request('POST', '/api/economy/bridge/link', { key: account.key, body: { partner_account: '  acct-42 ' } });
    expect(res.body).toMatchObject({ success: true, partner: 'local', partner_account: 'acct-42', linked_at: expect.stringMatching(/Z$/) });
    expect((await t.request('GET', '/api/economy/bridge/rate', { key: account.key })).body).toMatchObject({ linked: true, partner_account: 'acct-42' });
    const missing = await t.request('POST', '/api/economy/bridge/link', { key: account.key, body: {} });
    expect([missing.status, missing.body.error]).toEqual([400, 'partner_account is required: your account at the credit partner']);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: {} });
    expect((await t.request('POST', '/api/economy/bridge/link', { key: sub.body.sub_key, body: { partner_account: 'x' } })).status).toBe(403);
  });
});
