// API credits and rewards through the service's HTTP API: GET /api/media/credits from the ledger,
// the admin routes that grant credits and change reward settings, and the GraphQL fields behind them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerActionName } from '../../src/modules/ledger/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const grant = (handle: string, body: Record<string, unknown>) => t.request('POST', `/api/admin/accounts/${handle}/credits`, { admin: true, body });

describe('GET /api/media/credits', () => {
  it('answers the wallet from the ledger: balance, totals and entries newest first, paged', async () => {
    const account = await t.createAccount('wallet');
    await grant(account.handle, { amount: 10, reference: 'welcome' });
    await t.app.services.credits.charge(account.id, { id: `q-${account.id}`, credits: 0.25, action: 'wiki_query' as LedgerActionName, reference: 'subject:eiffel-tower' });
    // An analysis in progress holds 2 credits: balance is what can be spent, held beside it.
    await t.app.services.credits.hold(account.id, 2, { action: 'vision' });
    const res = await t.request('GET', '/api/media/credits', { key: account.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'balance', 'held', 'total_added', 'total_spent', 'entries', 'total', 'limit', 'offset']);
    expect(res.body).toMatchObject({ success: true, balance: 7.75, held: 2, total_added: 10, total_spent: 0.25, total: 2, limit: 50, offset: 0 });
    expect(res.body.entries).toEqual([
      { id: expect.any(Number), amount: -0.25, action: 'wiki_query', reference: 'subject:eiffel-tower', created_at: expect.stringMatching(/Z$/) },
      { id: expect.any(Number), amount: 10, action: 'grant', reference: 'welcome', created_at: expect.stringMatching(/Z$/) },
    ]);
    expect(res.body.entries[0].id).toBeGreaterThan(res.body.entries[1].id);
    const page = await t.request('GET', '/api/media/credits?limit=1&offset=1', { key: account.key });
    expect([page.body.total, page.body.entries.map((e: { action: string }) => e.action)]).toEqual([2, ['grant']]);
    const bad = await t.request('GET', '/api/media/credits?limit=0', { key: account.key });
    expect([bad.status, bad.body.error]).toEqual([400, 'limit: expected at least 1']);
  });

  it('answers zeros for an account that never had credits, and needs the media scope', async () => {
    const account = await t.createAccount('empty-wallet');
    const res = await t.request('GET', '/api/media/credits', { key: account.key });
    expect(res.body).toEqual({ success: true, balance: 0, held: 0, total_added: 0, total_spent: 0, entries: [], total: 0, limit: 50, offset: 0 });
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'search' } });
    expect((await t.request('GET', '/api/media/credits', { key: sub.body.sub_key })).status).toBe(403);
  });

  it('GraphQL credits: also the transfer id of each entry and what holds reserve', async () => {
    const account = await t.createAccount('gql-wallet');
    await grant(account.handle, { amount: 3, idempotency_key: `gql-${account.id}` });
    const res = await t.graphql('{ credits { ... on QueryCreditsSuccess { data { balance held reserved entries { transferId amount } } } } }', {}, { key: account.key });
    expect(res.body.data.credits.data).toEqual({ balance: 3, held: 0, reserved: 0, entries: [{ transferId: `grant:gql-${account.id}`, amount: 3 }] });
  });
});

describe('GraphQL wallet', () => {
  const wallet = `query ($currency: Currency, $limit: Int, $offset: Int) { wallet(currency: $currency, limit: $limit, offset: $offset) {
    ... on QueryWalletSuccess { data { currency balance held reserved available totalIn totalOut history { total limit offset entries { seq transferId kind amount action reference } } } }
    ... on ServiceError { message field } } }`;

  it("answers the caller's coins by default, or its credits with the history of posted movements, paged", async () => {
    const account = await t.createAccount('gql-ledger');
    await grant(account.handle, { amount: 10, reference: 'welcome', idempotency_key: `w-${account.id}` });
    await t.app.services.credits.charge(account.id, { id: `wq-${account.id}`, credits: 0.25, action: 'wiki_query' as LedgerActionName, reference: 'subject:louvre' });
    await t.app.services.credits.hold(account.id, 2, { action: 'vision' });
    const coins = await t.graphql(wallet, {}, { key: account.key });
    expect(coins.body.data.wallet.data).toEqual({ currency: 'coins', balance: 0, held: 0, reserved: 0, available: 0, totalIn: 0, totalOut: 0, history: { total: 0, limit: 50, offset: 0, entries: [] } });
    const credits = await t.graphql(wallet, { currency: 'credits' }, { key: account.key });
    const { history, ...totals } = credits.body.data.wallet.data;
    expect(totals).toEqual({ currency: 'credits', balance: 7.75, held: 2, reserved: 2, available: 7.75, totalIn: 10, totalOut: 0.25 });
    expect(history).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(history.entries).toEqual([
      { seq: expect.any(Number), transferId: `wq-${account.id}`, kind: 'single', amount: -0.25, action: 'wiki_query', reference: 'subject:louvre' },
      { seq: expect.any(Number), transferId: `grant:w-${account.id}`, kind: 'single', amount: 10, action: 'grant', reference: 'welcome' },
    ]);
    const page = await t.graphql(wallet, { currency: 'credits', limit: 1, offset: 1 }, { key: account.key });
    expect(page.body.data.wallet.data.history.entries.map((e: { action: string }) => e.action)).toEqual(['grant']);
    const bad = await t.graphql(wallet, { limit: 0 }, { key: account.key });
    expect(bad.body.data.wallet).toEqual({ message: 'limit: expected at least 1', field: 'limit' });
  });
});

describe('POST /api/admin/accounts/:handle/credits', () => {
  it('grants credits; an idempotency key grants once; the same key for another grant is a 409', async () => {
    const account = await t.createAccount('granted');
    const first = await grant(account.handle, { amount: 5.5, reference: 'support ticket 12', idempotency_key: `t12-${account.id}` });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, account_id: account.id, handle: account.handle, amount: 5.5, balance: 5.5, held: 0, transfer_id: `grant:t12-${account.id}`, replayed: false });
    const again = await grant(account.handle, { amount: 5.5, reference: 'support ticket 12', idempotency_key: `t12-${account.id}` });
    expect(again.body).toMatchObject({ balance: 5.5, replayed: true });
    const other = await grant(account.handle, { amount: 6, idempotency_key: `t12-${account.id}` });
    expect([other.status, other.body.error]).toEqual([409, `transfer grant:t12-${account.id} exists already with other fields`]);
    // Without a key every grant counts.
    await grant(account.handle, { amount: 1 });
    expect((await grant(account.handle, { amount: 1 })).body.balance).toBe(7.5);
  });

  it('refuses bad input with 400s naming the field, unknown handles with 404, and callers without the admin token', async () => {
    const account = await t.createAccount('grant-errors');
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'amount is required: the credits to add'],
      [{ amount: 'ten' }, 'amount: expected a number'],
      [{ amount: 0 }, 'amount: expected a positive amount'],
      [{ amount: 1.00001 }, 'amount: expected at most 4 decimals'],
      [{ amount: 1, idempotency_key: 'has spaces' }, 'idempotency_key: expected 1 to 120 printable characters without spaces'],
      [{ amount: 1, reference: 42 }, 'reference: expected a string'],
    ];
    for (const [body, error] of cases) {
      const res = await grant(account.handle, body);
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, { success: false, error }]);
    }
    expect((await grant('no-such-handle', { amount: 1 })).status).toBe(404);
    const keyed = await t.request('POST', `/api/admin/accounts/${account.handle}/credits`, { key: account.key, body: { amount: 100 } });
    expect(keyed.status).toBe(401);
  });
});

describe('/api/admin/rewards', () => {
  it('GET answers rates, factors and caps; PATCH changes them for every process', async () => {
    const shown = await t.request('GET', '/api/admin/rewards', { admin: true });
    expect(shown.body).toMatchObject({
      success: true,
      rates: { community_upload: 2, tagging: 0.5, tag_verified_bonus: 0.25, wiki_photo: 5, wiki_subject: 10, wiki_vote: 0.5, intel_comment: 0.1, intel_proposal: 0.1, intel_merged: 0.5, bulk_mirror_match: 0.5, coin_multiplier: 1, referral_commission_percent: 10, challenge_multiplier: 2 },
      daily_caps: { community_upload: 100, tagging: 200 },
    });
    const changed = await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { rates: { wiki_vote: 0.75 }, daily_caps: { wiki_vote: 20, tagging: null } } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ rates: { wiki_vote: 0.75, tagging: 0.5 }, daily_caps: { wiki_vote: 20, tagging: null }, updated_at: expect.stringMatching(/Z$/) });
    const account = await t.createAccount('rewarded');
    expect(await t.app.services.rewards.award(account.id, 'wiki_vote', 'vote:1')).toMatchObject({ coins: 0.75, dailyCap: 20 });
    await t.request('PATCH', '/api/admin/rewards', { admin: true, body: { rates: { wiki_vote: 0.5 }, daily_caps: { wiki_vote: 200, tagging: 200 } } });
  });

  it('PATCH refuses bad input with 400s naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'rates or daily_caps is required'],
      [{ rates: [1] }, 'rates: expected an object of names and values'],
      [{ rates: { tagging: 'a lot' } }, 'rates.tagging: expected a number'],
      [{ rates: { tagging: -1 } }, 'rates.tagging: expected 0 to 10000'],
      [{ rates: { jackpot: 1 } }, expect.stringMatching(/^rates\.jackpot: unknown rate; expected one of community_upload, /)],
      [{ daily_caps: { tagging: 1.5 } }, 'daily_caps.tagging: expected a whole number of awards, 1 or more, or null for no cap'],
      [{ daily_caps: { tagging: 0 } }, 'daily_caps.tagging: expected a whole number of awards, 1 or more, or null for no cap'],
      [{ rates: { tagging: 0.5 }, rate: { tagging: 1 } }, 'rate: unknown field; expected rates or daily_caps'],
    ];
    for (const [body, error] of cases) {
      const res = await t.request('PATCH', '/api/admin/rewards', { admin: true, body });
      expect([res.status, res.body], JSON.stringify(body)).toEqual([400, { success: false, error }]);
    }
    expect((await t.request('GET', '/api/admin/rewards', { key: t.ownerKey })).status).toBe(401);
  });
});
