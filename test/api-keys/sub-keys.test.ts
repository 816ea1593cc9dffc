import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe('POST /api/platform/sub-keys', () => {
  it('creates a sub-key with the documented fields and defaults', async () => {
    const res = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'ci' } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).slice(0, 6)).toEqual(['success', 'sub_key', 'label', 'credit_limit', 'scopes', 'expires_at']);
    expect(res.body).toMatchObject({ success: true, label: 'ci', credit_limit: 50, scopes: 'scrape,generate,search,media', expires_at: null });
    expect(res.body.sub_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(res.body.sub_key.startsWith(res.body.prefix)).toBe(true);
  });

  it('sets expires_at from expires_days and keeps only the asked scopes', async () => {
    const before = Date.now();
    const res = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { scopes: 'media, search', expires_days: 2, credit_limit: 7 } });
    expect(res.status).toBe(201);
    expect(res.body.scopes).toBe('search,media');
    expect(res.body.credit_limit).toBe(7);
    const expires = Date.parse(res.body.expires_at);
    expect(expires - before).toBeGreaterThanOrEqual(2 * 86_400_000 - 1000);
    expect(expires - before).toBeLessThan(2 * 86_400_000 + 60_000);
  });

  it.each([
    [{ scopes: 'media,admin' }, /unknown scope admin/],
    // Given but naming no scope: never read as "all four" (a key always has at least one scope).
    [{ scopes: '' }, /^scopes: expected at least one scope/],
    [{ scopes: ' , ,' }, /^scopes: expected at least one scope/],
    [{ credit_limit: 0 }, /credit_limit: expected at least 1/],
    [{ credit_limit: 'many' }, /credit_limit: expected an integer/],
    [{ expires_days: 1.5 }, /expires_days: expected an integer/],
    [{ label: 5 }, /label: expected a string/],
  ])('refuses %j with 400 naming the field', async (body, message) => {
    const res = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toMatch(message);
  });
});

describe('sub-key scopes', () => {
  const create = async (body: Record<string, unknown>) => (await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body })).body.sub_key as string;

  it('lets a sub-key call what its scopes cover, and answers 403 naming the missing scope otherwise', async () => {
    const mediaOnly = await create({ scopes: 'media' });
    const denied = await t.request('GET', '/api/search-links?query=cats', { key: mediaOnly });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ success: false, error: "this sub-key lacks the 'search' scope needed for this operation" });
    const searcher = await create({ scopes: 'search' });
    expect((await t.request('GET', '/api/search-links?query=cats', { key: searcher })).status).toBe(200);
    // Routes that need only a valid key accept any sub-key.
    expect((await t.request('GET', '/api/live-editor/status', { key: mediaOnly })).status).toBe(200);
  });

  it('refuses an empty scope list in GraphQL too, and creates no key', async () => {
    const before = (await t.request('GET', '/api/platform/sub-keys', { key: t.ownerKey })).body.sub_keys.length;
    const res = await t.graphql('mutation { createSubKey(input: { scopes: "" }) { __typename ... on MutationCreateSubKeySuccess { data { secret } } ... on ServiceError { message } } }', {}, { key: t.ownerKey });
    expect(JSON.stringify(res.body)).toMatch(/scopes: expected at least one scope/);
    expect(JSON.stringify(res.body)).not.toMatch(/sk_/);
    expect((await t.request('GET', '/api/platform/sub-keys', { key: t.ownerKey })).body.sub_keys.length).toBe(before);
  });

  it('applies the same scope check to GraphQL', async () => {
    const mediaOnly = await create({ scopes: 'media' });
    const res = await t.graphql('{ searchLinks(query: "x") { __typename } }', {}, { key: mediaOnly });
    // Authorisation failures are GraphQL errors (not ServiceError results), with the REST status in extensions.
    expect(res.body.errors[0]).toMatchObject({
      message: "this sub-key lacks the 'search' scope needed for this operation",
      path: ['searchLinks'],
      extensions: { code: 'FORBIDDEN', status: 403 },
    });
  });

  it('does not let a sub-key create, list or revoke sub-keys', async () => {
    const sub = await create({});
    for (const [method, path] of [
      ['POST', '/api/platform/sub-keys'],
      ['GET', '/api/platform/sub-keys'],
      ['POST', `/api/platform/sub-keys/${sub.slice(0, 12)}/revoke`],
    ] as const) {
      const res = await t.request(method, path, { key: sub, body: method === 'POST' ? { scopes: 'scrape,generate,search,media' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error).toMatch(/master key/);
    }
  });
});

describe('revocation and expiry', () => {
  it('revokes by prefix: the sub-key gets 401 on its very next request', async () => {
    const created = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'short-lived' } });
    const key = created.body.sub_key as string;
    expect((await t.request('GET', '/api/live-editor/status', { key })).status).toBe(200);
    const revoked = await t.request('POST', `/api/platform/sub-keys/${created.body.prefix}/revoke`, { key: t.ownerKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ success: true, revoked: true, prefix: created.body.prefix });
    expect(revoked.body.sub_key.status).toBe('revoked');
    const after = await t.request('GET', '/api/live-editor/status', { key });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('this sub-key has been revoked');
    // Revoking again is harmless (a retried call must not fail).
    expect((await t.request('POST', `/api/platform/sub-keys/${key}/revoke`, { key: t.ownerKey })).status).toBe(200);
  });

  it("answers 404 for another account's sub-key and for a wrong full key", async () => {
    const other = await t.createAccount('other');
    const theirs = await t.request('POST', '/api/platform/sub-keys', { key: other.key, body: {} });
    const res = await t.request('POST', `/api/platform/sub-keys/${theirs.body.sub_key}/revoke`, { key: t.ownerKey });
    expect(res.status).toBe(404);
    const byPrefix = await t.request('POST', `/api/platform/sub-keys/${theirs.body.prefix}/revoke`, { key: t.ownerKey });
    expect(byPrefix.status).toBe(404);
    const forged = `${theirs.body.prefix}${'x'.repeat(theirs.body.sub_key.length - 12)}`;
    expect((await t.request('POST', `/api/platform/sub-keys/${forged}/revoke`, { key: other.key })).status).toBe(404);
    // Still working: nothing was revoked.
    expect((await t.request('GET', '/api/live-editor/status', { key: theirs.body.sub_key })).status).toBe(200);
  });

  it('GraphQL revokeSubKey reads the key by the same rule: a blank one is a 400 naming it', async () => {
    const res = await t.graphql('mutation { revokeSubKey(key: "  ") { ... on ServiceError { status field message } } }', {}, { key: t.ownerKey });
    expect(res.body.data.revokeSubKey).toEqual({ status: 400, field: 'key', message: 'key is required: the sub-key or its prefix' });
  });

  it('refuses an expired sub-key with 401 at once', async () => {
    const created = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { expires_days: 1 } });
    await t.app.services.db.prisma.apiKey.update({ where: { id: created.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const res = await t.request('GET', '/api/live-editor/status', { key: created.body.sub_key });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/^this sub-key expired at \d{4}-/);
  });

  it("lists only the caller's sub-keys, newest first, with status and usage, and never the secret", async () => {
    const account = await t.createAccount('lister');
    const a = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'a' } });
    const b = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'b', scopes: 'media' } });
    await t.request('GET', '/api/live-editor/status', { key: b.body.sub_key });
    await t.request('POST', `/api/platform/sub-keys/${a.body.prefix}/revoke`, { key: account.key });
    const res = await t.request('GET', '/api/platform/sub-keys', { key: account.key });
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(2);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.sub_keys.map((k: { label: string }) => k.label)).toEqual(['b', 'a']);
    expect(res.body.sub_keys[0]).toMatchObject({ scopes: 'media', status: 'active', credit_limit: 50, usage: { requests_used: 1, requests_remaining: 49 } });
    expect(res.body.sub_keys[1]).toMatchObject({ status: 'revoked', usage: { requests_used: 0, last_used_at: null } });
    expect(res.text).not.toContain(a.body.sub_key);
    expect(res.text).not.toContain(b.body.sub_key);
  });

  it('pages with limit and cursor', async () => {
    const account = await t.createAccount('pager');
    for (const label of ['1', '2', '3']) await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label } });
    const first = await t.request('GET', '/api/platform/sub-keys?limit=2', { key: account.key });
    expect(first.body.sub_keys.map((k: { label: string }) => k.label)).toEqual(['3', '2']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await t.request('GET', `/api/platform/sub-keys?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, { key: account.key });
    expect(second.body.sub_keys.map((k: { label: string }) => k.label)).toEqual(['1']);
    expect(second.body.next_cursor).toBeNull();
    const bad = await t.request('GET', '/api/platform/sub-keys?limit=ten', { key: account.key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('limit: expected an integer');
  });

  it('caps live sub-keys per account with 409', async () => {
    const account = await t.createAccount('capped');
    const service = t.app.services.subKeys as unknown as { maxPerAccount: number };
    const saved = service.maxPerAccount;
    service.maxPerAccount = 2;
    try {
      for (let i = 0; i < 2; i++) expect((await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: {} })).status).toBe(201);
      const res = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: {} });
      expect(res.status).toBe(409);
      expect(res.body.error).toMatch(/limit is 2/);
    } finally {
      service.maxPerAccount = saved;
    }
  });
});
