// Work is counted by root field: aliases cannot multiply work behind one unit of a quota. The first
// root field is paid by the request; each further one takes a unit of every counter or gets a 429.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function dayCount(accountId: number): Promise<number> {
  const [row] = await t.app.services.db.query<{ count: number }>(`SELECT "count" FROM "UsageCounter" WHERE "key" = $1`, [`acct:${accountId}:day`]);
  return row?.count ?? 0;
}

describe('quotas count root fields', () => {
  it('takes a unit per root field, and refuses the fields beyond the limit with 429', async () => {
    const account = await t.createAccount('aliases', 'tiny'); // 3 a day
    const two = await t.graphql('{ a: folders { name } b: folders { name } }', undefined, { key: account.key });
    expect(two.body.errors, two.text).toBeUndefined();
    expect(await dayCount(account.id)).toBe(2);
    const three = await t.graphql('{ a: folders { name } b: folders { name } c: folders { name } }', undefined, { key: account.key });
    // folders is non-null, so a refused field nulls the answer; the refusals are 429s of the further fields.
    expect(three.body.errors.length, three.text).toBeGreaterThan(0);
    for (const error of three.body.errors) {
      expect(error.extensions.status).toBe(429);
      expect(['b', 'c']).toContain(error.path[0]);
    }
    expect(await dayCount(account.id)).toBe(3);
  });

  it("spends a sub-key's budget per accepted root field and gives back a refused one's", async () => {
    const account = await t.createAccount('alias-budget');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'media', credit_limit: 10 } });
    const used = async () => (await t.request('GET', '/api/platform/sub-keys', { key: account.key })).body.sub_keys[0].usage.requests_used as number;
    await t.graphql('{ a: folders { name } b: folders { name } c: folders { name } }', undefined, { key: sub.body.sub_key });
    expect(await used()).toBe(3);
    const mixed = await t.graphql('query($id: Int!) { a: folders { name } b: media(id: $id) { name } }', { id: 999_999 }, { key: sub.body.sub_key });
    expect(mixed.body.errors?.[0]?.extensions?.status, mixed.text).toBe(404);
    expect(await used()).toBe(4);
  });

  it('keeps one unit for a REST call (one root field)', async () => {
    const account = await t.createAccount('rest-one');
    await t.request('GET', '/api/media/list', { key: account.key });
    expect(await dayCount(account.id)).toBe(1);
  });
});
