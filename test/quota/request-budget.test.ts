// A sub-key's request budget (credit_limit) pays for accepted requests only: a request refused for
// its key, scope, input or a missing object gives its unit back, over REST and GraphQL alike; the
// account's daily count still sees every request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function subKey(account: { key: string }, body: Record<string, unknown>): Promise<string> {
  const res = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.sub_key as string;
}

let listings = 0;
async function used(account: { key: string }): Promise<number> {
  listings++;
  const list = await t.request('GET', '/api/platform/sub-keys', { key: account.key });
  return list.body.sub_keys[0].usage.requests_used as number;
}

async function dayCount(accountId: number): Promise<number> {
  const [row] = await t.app.services.db.query<{ count: number }>(`SELECT "count" FROM "UsageCounter" WHERE "key" = $1`, [`acct:${accountId}:day`]);
  return row?.count ?? 0;
}

describe('request budget of a sub-key', () => {
  it('is not spent by requests refused for scope, input or a missing object', async () => {
    const account = await t.createAccount('budget');
    const key = await subKey(account, { scopes: 'media', credit_limit: 5 });
    const dayBefore = await dayCount(account.id);
    listings = 0;
    const refused: Array<[string, string, number, Record<string, unknown>?]> = [
      ['POST', '/api/scrape', 403, { url: 'https://example.org/' }], // scope
      ['GET', '/api/platform/sub-keys', 403], // master only
      ['GET', '/api/media/list?limit=abc', 400], // REST input
      ['GET', '/api/media/list?limit=0', 400], // service validation
      ['GET', '/api/media/999999', 404], // missing object
      ['PATCH', '/api/media/999999', 404, { name: 'x' }], // ServiceError result of a mutation
      ['GET', '/files/999999/a.jpg', 403], // stream route, scope
    ];
    for (const [method, path, status, body] of refused) {
      const res = await t.request(method, path, { key, body });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(status);
      expect(await used(account), `${method} ${path}`).toBe(0);
    }
    expect(await used(account)).toBe(0);

    const graphql: Array<[string, Record<string, unknown>?]> = [
      ['{ viewer { subKeys { totalCount } } }'], // nested field out of scope
      ['query($id: Int!) { media(id: $id) { name } }', { id: 999999 }], // missing
      ['mutation { renameFolder(id: 999999, name: "x") { __typename } }'], // ServiceError in data
      ['{ jobs: viewer { jobs { totalCount } } }'], // scope
    ];
    for (const [query, variables] of graphql) {
      const res = await t.graphql(query, variables, { key });
      expect(res.status, res.text).toBeLessThan(500);
      expect(await used(account), query).toBe(0);
    }
    expect(await used(account)).toBe(0);
    // The account's daily count still saw every one of them (and the listings made to check).
    expect(await dayCount(account.id)).toBe(dayBefore + refused.length + graphql.length + listings);
  });

  it('is spent by accepted requests, and by a GraphQL request with any accepted root field', async () => {
    const account = await t.createAccount('budget-spent');
    const key = await subKey(account, { scopes: 'media', credit_limit: 10 });
    expect((await t.request('GET', '/api/media/list', { key })).status).toBe(200);
    expect(await used(account)).toBe(1);
    const mixed = await t.graphql('query($id: Int!) { folders { name } media(id: $id) { name } }', { id: 999999 }, { key });
    expect(mixed.body.data?.folders ?? mixed.body.errors).toBeDefined();
    expect(await used(account)).toBe(2);
    // A 409 is a refusal of an accepted request: the work was judged, the unit stays spent.
    expect((await t.request('POST', '/api/media/folders', { key, body: { name: 'a' } })).status).toBe(201);
    expect((await t.request('POST', '/api/media/folders', { key, body: { name: 'a' } })).status).toBe(409);
    expect(await used(account)).toBe(4);
  });

  it('stays exact when refused and accepted requests arrive together at the limit', async () => {
    const account = await t.createAccount('budget-race');
    const key = await subKey(account, { scopes: 'media', credit_limit: 2 });
    const refused = await Promise.all(Array.from({ length: 20 }, () => t.request('GET', '/api/media/999999', { key })));
    expect(refused.every((r) => r.status === 404 || r.status === 429)).toBe(true);
    expect(await used(account)).toBe(0);
    const accepted = await Promise.all(Array.from({ length: 6 }, () => t.request('GET', '/api/media/list', { key })));
    expect(accepted.filter((r) => r.status === 200)).toHaveLength(2);
    expect(accepted.filter((r) => r.status === 429)).toHaveLength(4);
    expect(await used(account)).toBe(2);
  });

  it('is not spent by a request without a valid key, and a master key has no budget', async () => {
    expect((await t.request('GET', '/api/media/list', { key: 'sk_not-a-key' })).status).toBe(401);
    const res = await t.request('GET', '/api/media/list', { key: t.ownerKey });
    expect(res.headers.get('x-credit-remaining')).toBeNull();
  });
});
