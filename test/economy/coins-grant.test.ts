// The operator's coin grants (POST /api/admin/accounts/:handle/coins, adminGrantCoins) and the CLI's
// `coins grant` and `account create --referred-by`, run as a child process against a real service.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const grant = (handle: string, body: unknown) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body });

const cli = (args: string[]) => runCli(args, { ADMIN_TOKEN, SERVICE_URL: t.url });

describe('POST /api/admin/accounts/:handle/coins', () => {
  it('adds coins from the grants account; the same idempotency key grants once, with another amount 409', async () => {
    const account = await t.createAccount('coin-grant');
    const first = await grant(account.handle, { amount: 7.5, reference: 'launch bonus', idempotency_key: 'g-1' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ success: true, account_id: account.id, handle: account.handle, amount: 7.5, balance: 7.5, held: 0, transfer_id: 'grant:coins:g-1', replayed: false });
    expect((await grant(account.handle, { amount: 7.5, reference: 'launch bonus', idempotency_key: 'g-1' })).body).toMatchObject({ replayed: true, balance: 7.5 });
    expect((await grant(account.handle, { amount: 8, idempotency_key: 'g-1' })).status).toBe(409);
    // The same key as a credits grant is a different transfer: no clash between currencies.
    expect((await t.request('POST', `/api/admin/accounts/${account.handle}/credits`, { admin: true, body: { amount: 1, idempotency_key: 'g-1' } })).status).toBe(200);
    expect((await t.app.services.ledger.wallet(account.id, 'coins')).balance).toBe(75_000);
    expect(await t.app.services.ledger.systemBalance('grants', 'coins')).toBeLessThanOrEqual(-75_000);
  });

  it('needs the admin token (an API key is a 401) and valid amounts (400 naming amount)', async () => {
    const account = await t.createAccount('coin-grant-bad');
    expect((await t.request('POST', `/api/admin/accounts/${account.handle}/coins`, { key: account.key, body: { amount: 1 } })).status).toBe(401);
    for (const [body, error] of [
      [{}, 'amount is required: the coins to add'],
      [{ amount: -2 }, 'amount: expected a positive amount'],
      [{ amount: 0.00001 }, 'amount: expected at most 4 decimals'],
      [{ amount: 1e10 }, /^amount: expected/],
    ] as const) {
      const res = await grant(account.handle, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toMatch(error);
    }
    expect((await grant('no-such-handle', { amount: 1 })).status).toBe(404);
  });

  it('is the GraphQL mutation adminGrantCoins', async () => {
    const account = await t.createAccount('gql-coin-grant');
    const res = await t.graphql('mutation($h: String!) { adminGrantCoins(handle: $h, amount: 2) { ... on MutationAdminGrantCoinsSuccess { data { amount balance replayed } } } }', { h: account.handle }, { admin: true });
    expect(res.body.data.adminGrantCoins.data).toEqual({ amount: 2, balance: 2, replayed: false });
  });
});

describe('CLI', () => {
  it('coins grant prints one JSON line; account create --referred-by attaches the referral', { timeout: 60_000 }, async () => {
    const referrer = await t.createAccount('cli-referrer');
    const granted = await cli(['coins', 'grant', referrer.handle, '3.5', '--reference', 'cli test', '--idempotency-key', 'cli-1']);
    expect(granted, granted.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(granted.stdout.trim())).toEqual({ account_id: referrer.id, handle: referrer.handle, amount: 3.5, balance: 3.5, transfer_id: 'grant:coins:cli-1', replayed: false });
    const bad = await cli(['coins', 'grant', referrer.handle, 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('amount: expected a number of coins, not lots');

    const code = (await t.request('GET', '/api/economy/referral', { key: referrer.key })).body.referral_code as string;
    const created = await cli(['account', 'create', '--handle', 'cli-referee', '--referred-by', code]);
    expect(created, created.stderr).toMatchObject({ code: 0 });
    expect(JSON.parse(created.stdout.trim())).toMatchObject({ handle: 'cli-referee', api_key: expect.stringMatching(/^mk_/), referred_by: referrer.handle, referral_code: expect.any(String) });
    const unknown = await cli(['account', 'create', '--handle', 'cli-referee-2', '--referred-by', 'ABCDEF012345']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('referred_by: no account has the referral code ABCDEF012345');
    expect((await t.request('GET', '/api/economy/referral', { key: referrer.key })).body.total_referrals).toBe(1);
  });
});
