// Admission of a request with a key (AdmissionService): a key this process verified before is not
// read and compared again, its state is read with the quota count in one statement, and every
// change of that state (suspension, tier, revocation, expiry) applies to the very next request.
// Requests that arrive together for one key share a statement, with the answers they would have
// had one by one.
import { currentRequestId, requestScope } from '../../src/platform/logger.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Admitted } from '../../src/modules/quota/admission.service.js';
import type { AppError } from '../../src/platform/errors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const STATUS = '/api/live-editor/status';

/**
 * The SQL statements of authentication and quota that `fn` made, over HTTP or calling the service (the
 * status route makes no other). Statements made outside a request's scope (the service's timers:
 * quota and ledger sweeps, job recovery, key watch) do not count: they may run at the same moment.
 */
async function admissionStatements(fn: () => Promise<void>): Promise<string[]> {
  const { db } = t.app.services;
  const query = db.query.bind(db);
  const seen: string[] = [];
  const spy = vi.spyOn(db, 'query').mockImplementation((sql: string, params?: unknown[]) => {
    if (currentRequestId() !== undefined) seen.push(/admit_requests|consume_quota|FROM "ApiKey"/.exec(sql)?.[0] ?? 'other');
    return query(sql, params);
  });
  try {
    await requestScope.run({ requestId: 'direct call' }, fn); // HTTP requests run in their own scope
    return seen;
  } finally {
    spy.mockRestore();
  }
}

describe('admitting a request with a key', () => {
  it('reads and verifies a key once per process; later requests take one statement', async () => {
    const account = await t.createAccount('once');
    expect(await admissionStatements(async () => void (await t.request('GET', STATUS, { key: account.key })))).toEqual(['FROM "ApiKey"', 'consume_quota']);
    for (let i = 0; i < 3; i++) {
      const statements = await admissionStatements(async () => {
        const res = await t.request('GET', STATUS, { key: account.key });
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-remaining')).toBe(String(100_000 - 2 - i));
      });
      expect(statements).toEqual(['admit_requests']);
    }
  });

  it('refuses a remembered key at once when its account is suspended, and admits it again once active', async () => {
    const account = await t.createAccount('susp-known');
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
    await t.request('POST', `/api/admin/accounts/${account.handle}/suspend`, { admin: true });
    const refused = await t.request('GET', STATUS, { key: account.key });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe(`account @${account.handle} is suspended; contact the service administrator`);
    await t.request('POST', `/api/admin/accounts/${account.handle}/activate`, { admin: true });
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
  });

  it("counts under the account's current tier from the next request on", async () => {
    const account = await t.createAccount('tier-known');
    expect((await t.request('GET', STATUS, { key: account.key })).headers.get('ratelimit-limit')).toBe('100000');
    await t.request('POST', `/api/admin/accounts/${account.handle}/tier`, { admin: true, body: { tier: 'tiny' } }); // 3 a day
    const second = await t.request('GET', STATUS, { key: account.key });
    expect(second.status).toBe(200);
    expect(second.headers.get('ratelimit-limit')).toBe('3');
    expect(second.headers.get('ratelimit-remaining')).toBe('1'); // the first request counts in the same day
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
    const refused = await t.request('GET', STATUS, { key: account.key });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatch(/^daily limit \(tiny tier\) of 3 requests exceeded/);
    const day = await t.app.services.db.prisma.usageCounter.findFirstOrThrow({ where: { key: `acct:${account.id}:day` } });
    expect(day.count).toBe(3);
  });

  it('refuses a remembered sub-key at once once it is revoked or has expired', async () => {
    const revoked = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'revoked' } });
    const expiring = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'expiring', expires_days: 1 } });
    for (const created of [revoked, expiring]) expect((await t.request('GET', STATUS, { key: created.body.sub_key })).status).toBe(200);

    await t.request('POST', `/api/platform/sub-keys/${revoked.body.prefix}/revoke`, { key: t.ownerKey });
    const afterRevoke = await t.request('GET', STATUS, { key: revoked.body.sub_key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body.error).toBe('this sub-key has been revoked');

    await t.app.services.db.prisma.apiKey.update({ where: { id: expiring.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const afterExpiry = await t.request('GET', STATUS, { key: expiring.body.sub_key });
    expect(afterExpiry.status).toBe(401);
    expect(afterExpiry.body.error).toMatch(/^this sub-key expired at \d{4}-/);
  });

  it('refuses a remembered key whose row is gone, and a key that only shares its display prefix', async () => {
    const account = await t.createAccount('gone');
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
    // Same display prefix (the first 12 characters), another secret: never taken for the remembered key.
    const lookalike = account.key.slice(0, 12) + 'A'.repeat(account.key.length - 12);
    expect((await t.request('GET', STATUS, { key: lookalike })).status).toBe(401);
    await t.app.services.db.prisma.apiKey.deleteMany({ where: { accountId: account.id } });
    const res = await t.request('GET', STATUS, { key: account.key });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid API key');
  });

  it('admits requests that arrive together in one statement, each with the counts it would have had alone', async () => {
    const account = await t.createAccount('together');
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
    let admitted: Admitted[] = [];
    // Thirty in one tick: the first goes out alone, the other 29 wait for it and go together.
    const statements = await admissionStatements(async () => {
      admitted = await Promise.all(Array.from({ length: 30 }, () => t.app.services.admission.admit(account.key)));
    });
    expect(statements).toEqual(['admit_requests', 'admit_requests']);
    // 100,000 a day, one used before: the thirty saw 99,998 down to 99,969 remaining, in order.
    expect(admitted.map((a) => Number(a.headers['RateLimit-Remaining']))).toEqual(Array.from({ length: 30 }, (_, i) => 99_998 - i));
  });

  it('lets exactly what fits through a statement of many, and refuses the rest with the limit they hit', async () => {
    const owner = await t.createAccount('together-budget');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { credit_limit: 12 } });
    expect((await t.request('GET', STATUS, { key: sub.body.sub_key })).status).toBe(200);
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => t.app.services.admission.admit(sub.body.sub_key)));
    const passed = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    expect(passed.map((a) => Number(a.headers['X-Credit-Remaining']))).toEqual(Array.from({ length: 11 }, (_, i) => 10 - i));
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as AppError] : []));
    expect(refused).toHaveLength(19);
    for (const error of refused) {
      expect(error.status).toBe(429);
      expect(error.message).toBe('request budget of this sub-key (credit_limit) of 12 requests is used up; create a new sub-key');
      expect(error.headers?.['X-Credit-Remaining']).toBe('0');
    }
    const counts = await t.app.services.db.query<{ key: string; count: number }>(`SELECT "key", "count" FROM "UsageCounter" WHERE "key" = ANY($1::text[]) ORDER BY "key"`, [
      [`acct:${owner.id}:day`, `key:${sub.body.id}`],
    ]);
    // The creation and the sub-key's twelve: refused requests count nowhere.
    expect(counts).toEqual([
      { key: `acct:${owner.id}:day`, count: 13 },
      { key: `key:${sub.body.id}`, count: 12 },
    ]);
  });

  it('answers requests sent at once over HTTP as it would one by one', async () => {
    const owner = await t.createAccount('together-http');
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { credit_limit: 25 } });
    const responses = await Promise.all(Array.from({ length: 60 }, () => t.request('GET', STATUS, { key: sub.body.sub_key })));
    const passed = responses.filter((r) => r.status === 200);
    expect(passed.map((r) => Number(r.headers.get('x-credit-remaining'))).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(responses.filter((r) => r.status === 429)).toHaveLength(35);
  });

  it("keeps the previous release's admit_request answering as admit_requests does for one request", async () => {
    const account = await t.createAccount('previous-release');
    const keyId = (await t.app.services.db.prisma.apiKey.findFirstOrThrow({ where: { accountId: account.id } })).id;
    const day = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
    const [row] = await t.app.services.db.query<{ revoked: boolean; status: string; counts: number[]; refused_at: number }>(
      'SELECT * FROM admit_request($1::int, $2::timestamp(3), $3::text[], $4::timestamp(3)[], $5::int[])',
      [keyId, new Date().toISOString(), [`acct:${account.id}:day`], [day], [1]],
    );
    expect(row).toMatchObject({ revoked: false, status: 'active', counts: [1], refused_at: 0 });
    const [again] = await t.app.services.db.query<{ counts: number[]; refused_at: number }>(
      'SELECT * FROM admit_request($1::int, $2::timestamp(3), $3::text[], $4::timestamp(3)[], $5::int[])',
      [keyId, new Date().toISOString(), [`acct:${account.id}:day`], [day], [1]],
    );
    expect(again).toMatchObject({ counts: [1], refused_at: 1 });
  });
});
