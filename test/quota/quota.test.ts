import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const STATUS = '/api/live-editor/status';

/**
 * Minute windows are calendar minutes, so requests on both sides of a minute's edge fill two of
 * them: a test that must stay inside one minute starts at least 10 s before the next edge.
 */
async function clearOfMinuteEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('quotas', () => {
  it('counts a day per account: the limit passes, then 429 with Retry-After and RateLimit headers', async () => {
    const account = await t.createAccount('daily', 'tiny'); // 3 a day
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 5; i++) {
      last = await t.request('GET', STATUS, { key: account.key });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.body.error).toMatch(/daily limit \(tiny tier\) of 3 requests exceeded/);
    const retryAfter = Number(last!.headers.get('retry-after'));
    const secondsToMidnight = Math.ceil((86_400_000 - (Date.now() % 86_400_000)) / 1000);
    expect(retryAfter).toBeGreaterThan(0);
    expect(Math.abs(retryAfter - secondsToMidnight)).toBeLessThanOrEqual(2);
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    expect(last!.headers.get('ratelimit-limit')).toBe('3');
    expect(last!.headers.get('ratelimit-policy')).toBe('3;w=86400, 100;w=60');
  });

  it('reports the remaining count on successful requests', async () => {
    const account = await t.createAccount('remaining', 'tiny');
    const first = await t.request('GET', STATUS, { key: account.key });
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    const second = await t.request('GET', STATUS, { key: account.key });
    expect(second.headers.get('ratelimit-remaining')).toBe('1');
  });

  it('enforces the per-minute burst with Retry-After under a minute', async () => {
    await clearOfMinuteEdge();
    const account = await t.createAccount('burst', 'bursty'); // 2 a minute
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await t.request('GET', STATUS, { key: account.key }));
    expect(results.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(results[2]!.body.error).toMatch(/burst limit per minute/);
    expect(Number(results[2]!.headers.get('retry-after'))).toBeLessThanOrEqual(60);
  });

  it('does not count a refused request against the other limits', async () => {
    await clearOfMinuteEdge();
    const account = await t.createAccount('norefundneeded', 'bursty');
    for (let i = 0; i < 5; i++) await t.request('GET', STATUS, { key: account.key });
    const rows = await t.app.services.db.query<{ key: string; count: number }>(
      `SELECT "key", "count" FROM "UsageCounter" WHERE "key" LIKE $1 ORDER BY "key"`,
      [`acct:${account.id}:%`],
    );
    // 2 passed (burst limit 2), 3 refused by the burst limit: the daily count holds only the 2.
    expect(rows).toEqual([
      { key: `acct:${account.id}:day`, count: 2 },
      { key: `acct:${account.id}:minute`, count: 2 },
    ]);
  });

  it('lets exactly the limit through when many requests arrive at once', async () => {
    await clearOfMinuteEdge();
    const account = await t.createAccount('concurrent');
    await t.request('POST', `/api/admin/accounts/${account.handle}/tier`, { admin: true, body: { tier: 'bursty' } });
    // bursty: 2 a minute. Fire 40 at once, twice over with different keys of one account.
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { credit_limit: 1000 } });
    expect(sub.status).toBe(201); // this request was the first of the 2
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.request('GET', STATUS, { key: i % 2 ? account.key : sub.body.sub_key })),
    );
    const passed = responses.filter((r) => r.status === 200).length;
    expect(passed).toBe(1);
    expect(responses.filter((r) => r.status === 429).length).toBe(39);
  });

  it('exact under concurrency at a larger limit', async () => {
    const account = await t.createAccount('concurrent-big');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { credit_limit: 25 } });
    const responses = await Promise.all(Array.from({ length: 60 }, () => t.request('GET', STATUS, { key: sub.body.sub_key })));
    expect(responses.filter((r) => r.status === 200).length).toBe(25);
    expect(responses.filter((r) => r.status === 429).length).toBe(35);
  });

  it('counts sub-key requests against the sub-key credit and the account', async () => {
    const account = await t.createAccount('credit');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { credit_limit: 2 } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.request('GET', STATUS, { key: sub.body.sub_key })).status);
    expect(statuses).toEqual([200, 200, 429]);
    const refused = await t.request('GET', STATUS, { key: sub.body.sub_key });
    expect(refused.body.error).toMatch(/request budget of this sub-key \(credit_limit\) of 2 requests is used up/);
    expect(refused.headers.get('retry-after')).toBeNull();
    expect(refused.headers.get('x-credit-remaining')).toBe('0');
    // The account saw the creation plus the two sub-key requests.
    const [day] = await t.app.services.db.query<{ count: number }>(`SELECT "count" FROM "UsageCounter" WHERE "key" = $1`, [`acct:${account.id}:day`]);
    expect(day!.count).toBe(3);
    const list = await t.request('GET', '/api/platform/sub-keys', { key: account.key });
    expect(list.body.sub_keys[0].usage).toMatchObject({ requests_used: 2, requests_remaining: 0 });
    expect(Date.parse(list.body.sub_keys[0].usage.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('does not count requests without a key', async () => {
    const res = await t.request('GET', STATUS);
    expect(res.status).toBe(401);
    expect(res.headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('sweeping old windows', () => {
  it('deletes ended windows and keeps current ones and lifetime sub-key counters', async () => {
    const account = await t.createAccount('sweep');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: {} });
    await t.request('GET', STATUS, { key: sub.body.sub_key });
    const keys = [`acct:${account.id}:day`, `acct:${account.id}:minute`, `key:${sub.body.id}`];
    const count = async () =>
      (await t.app.services.db.query<{ key: string }>(`SELECT "key" FROM "UsageCounter" WHERE "key" = ANY($1::text[]) ORDER BY "key"`, [keys])).map((r) => r.key);
    expect(await count()).toEqual([...keys].sort());
    // Ten minutes on: the minute window has ended, the day has not.
    await t.app.services.quota.sweep(new Date(Date.now() + 10 * 60_000));
    expect(await count()).toEqual([`acct:${account.id}:day`, `key:${sub.body.id}`]);
    // Three days on: only the lifetime counter stays.
    await t.app.services.quota.sweep(new Date(Date.now() + 3 * 86_400_000));
    expect(await count()).toEqual([`key:${sub.body.id}`]);
  });
});
