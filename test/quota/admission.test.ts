// Admission of a request with a key (AdmissionService): a key this process verified before is not
// read and compared again, its state is read with the quota count in one statement, and every
// change of that state (suspension, tier, revocation, expiry) applies to the very next request.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const STATUS = '/api/live-editor/status';

/** The SQL statements of authentication and quota that `fn` made (the status route makes no other). */
async function admissionStatements(fn: () => Promise<void>): Promise<string[]> {
  const spy = vi.spyOn(t.app.services.db, 'query');
  try {
    await fn();
    return spy.mock.calls.map(([sql]) => String(sql)).map((sql) => (/admit_request|consume_quota|FROM "ApiKey"/.exec(sql)?.[0] ?? 'other'));
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
      expect(statements).toEqual(['admit_request']);
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
});
