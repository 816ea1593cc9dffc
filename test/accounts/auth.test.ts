import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

const STATUS = '/api/live-editor/status';

describe('API key authentication', () => {
  it('accepts the key in X-API-Key', async () => {
    const res = await t.request('GET', STATUS, { key: t.ownerKey });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
  });

  it('accepts the key as the JSON body field api_key', async () => {
    const res = await t.request('POST', '/api/platform/sub-keys', { body: { api_key: t.ownerKey, label: 'from body' } });
    expect(res.status).toBe(201);
    expect(res.body.label).toBe('from body');
  });

  it('answers 401 with a clear message for a missing key', async () => {
    const res = await t.request('GET', STATUS);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/API key required.*X-API-Key/) });
  });

  it.each([
    ['garbage', 'not-a-key'],
    ['well-formed but unknown', `mk_${'A'.repeat(43)}`],
    ['a real prefix with a wrong secret', ''],
  ])('answers 401 for an unknown key (%s)', async (_what, key) => {
    const presented = key || t.ownerKey.slice(0, 12) + 'B'.repeat(t.ownerKey.length - 12);
    const res = await t.request('GET', STATUS, { key: presented });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, error: 'invalid API key' });
  });

  it('answers 403 for suspended and inactive accounts, and works again when activated', async () => {
    const account = await t.createAccount('susp');
    for (const [action, status] of [['suspend', 'suspended'], ['deactivate', 'inactive']] as const) {
      const changed = await t.request('POST', `/api/admin/accounts/${account.handle}/${action}`, { admin: true });
      expect(changed.body.status).toBe(status);
      const res = await t.request('GET', STATUS, { key: account.key });
      expect(res.status).toBe(403);
      expect(res.body.error).toContain(`is ${status}`);
    }
    await t.request('POST', `/api/admin/accounts/${account.handle}/activate`, { admin: true });
    expect((await t.request('GET', STATUS, { key: account.key })).status).toBe(200);
  });

  it('rotation stops the old key at once and the new one works', async () => {
    const account = await t.createAccount('rot');
    const rotated = await t.request('POST', `/api/admin/accounts/${account.handle}/rotate-key`, { admin: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.api_key).toMatch(/^mk_/);
    expect(rotated.body.api_key).not.toBe(account.key);
    const old = await t.request('GET', STATUS, { key: account.key });
    expect(old.status).toBe(401);
    expect(old.body.error).toMatch(/rotated/);
    expect((await t.request('GET', STATUS, { key: rotated.body.api_key })).status).toBe(200);
  });

  it('stores keys hashed: no table holds the key in clear', async () => {
    const rows = await t.app.services.db.query<{ prefix: string; secretHash: string }>('SELECT prefix, "secretHash" FROM "ApiKey"');
    expect(rows.length).toBeGreaterThan(0);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(t.ownerKey);
    expect(rows.some((r) => t.ownerKey.startsWith(r.prefix))).toBe(true);
  });
});

describe('admin surface', () => {
  it('refuses admin routes without the admin token (401) and with a wrong one (401)', async () => {
    const none = await t.request('POST', '/api/admin/accounts', { body: { handle: 'x1' } });
    expect(none.status).toBe(401);
    const wrong = await t.request('POST', '/api/admin/accounts', { body: { handle: 'x1' }, headers: { 'X-Admin-Token': 'nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('invalid admin token');
  });

  it('takes Authorization: Bearer as the admin token, and ignores it beside an API key', async () => {
    const bearer = await t.request('GET', '/api/admin/rewards', { headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(bearer.status).toBe(200);
    const wrongBearer = await t.request('GET', '/api/admin/rewards', { headers: { Authorization: 'Bearer nope' } });
    expect(wrongBearer.status).toBe(401);
    // A proxy's or a tool's own bearer beside a valid key does not turn the request into a failed admin login.
    const beside = await t.request('GET', '/api/media/list', { key: t.ownerKey, headers: { Authorization: 'Bearer x' } });
    expect(beside.status).toBe(200);
    const graphql = await t.request('POST', '/graphql', { key: t.ownerKey, headers: { Authorization: 'Bearer x' }, body: { query: '{ viewer { handle } }' } });
    expect(graphql.status).toBe(200);
    expect(graphql.body.data.viewer.handle).toBeTruthy();
    // An explicit X-Admin-Token is still judged.
    const wrongAdmin = await t.request('GET', '/api/media/list', { key: t.ownerKey, headers: { 'X-Admin-Token': 'nope' } });
    expect(wrongAdmin.status).toBe(401);
  });

  it('refuses an API key on admin routes', async () => {
    const res = await t.request('POST', '/api/admin/accounts', { key: t.ownerKey, body: { handle: 'x2' } });
    expect(res.status).toBe(401);
  });

  it('validates the handle and refuses duplicates with 409', async () => {
    const bad = await t.request('POST', '/api/admin/accounts', { admin: true, body: { handle: 'no spaces!' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^handle: expected/);
    const first = await t.request('POST', '/api/admin/accounts', { admin: true, body: { handle: 'dupe' } });
    expect(first.status).toBe(201);
    const second = await t.request('POST', '/api/admin/accounts', { admin: true, body: { handle: 'DUPE' } });
    expect(second.status).toBe(409);
    expect(second.body.error).toMatch(/handle already exists/);
  });

  it('sets a tier only to a configured one', async () => {
    const account = await t.createAccount('tiers');
    const ok = await t.request('POST', `/api/admin/accounts/${account.handle}/tier`, { admin: true, body: { tier: 'tiny' } });
    expect(ok.body).toMatchObject({ success: true, tier: 'tiny' });
    const bad = await t.request('POST', `/api/admin/accounts/${account.handle}/tier`, { admin: true, body: { tier: 'gold' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/tier must be one of operator, standard, tiny, bursty/);
  });

  it('answers 404 for an unknown handle', async () => {
    const res = await t.request('POST', '/api/admin/accounts/nobody-here/suspend', { admin: true });
    expect(res.status).toBe(404);
  });
});
