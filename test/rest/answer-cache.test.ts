// The shim's kept answers (rest-shim/answer-cache.ts): a list asked again is answered from memory
// with the admission statement as its only SQL, and never after a change of what it lists, whatever
// made the change: the routes, the workers' code or an operator's SQL (the versions are raised by
// database triggers). A sub-key's status turns expired on time, with nothing changed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { currentRequestId } from '../../src/platform/logger.js';
import { form, photo } from '../helpers/images.js';
import { AnswerCache, earliestFuture } from '../../rest-shim/answer-cache.js';
import type { CachedRoute } from '../../rest-shim/route.js';
import type { Context } from '../../src/graphql/context.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

/**
 * The SQL a request made: the admission statement alone when the answer was kept. Only statements
 * made while serving this request count (by its X-Request-Id): the service's own timers (quota and
 * ledger sweeps, job recovery, key watch) may run a statement at the same moment.
 */
async function statementsOf(fn: () => Promise<TestResponse>): Promise<{ result: TestResponse; statements: string[] }> {
  const seen: Array<{ kind: string; requestId: string | undefined }> = [];
  const record = <A extends unknown[], R>(target: object, method: string, kind: (args: A) => string) => {
    const original = (target as Record<string, (...args: A) => R>)[method]!.bind(target);
    return vi.spyOn(target as Record<string, (...args: A) => R>, method).mockImplementation((...args: A) => {
      seen.push({ kind: kind(args), requestId: currentRequestId() });
      return original(...args);
    });
  };
  const { db } = t.app.services;
  const spies = [
    record(db, 'query', ([sql]: unknown[]) => (/admit_requests/.test(String(sql)) ? 'admit_requests' : 'other')),
    record(db.prisma.apiKey, 'findMany', () => 'prisma'),
    record(db.prisma.account, 'findFirst', () => 'prisma'),
  ];
  try {
    const result = await fn();
    const requestId = result.headers.get('x-request-id');
    expect(requestId).toBeTruthy();
    const statements = seen.filter((s) => s.requestId === requestId).map((s) => s.kind);
    // The order the tests expect: SQL on the driver first, then Prisma's reads.
    return { result, statements: [...statements.filter((k) => k !== 'prisma'), ...statements.filter((k) => k === 'prisma')] };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

const listKeys = (key: string) => t.request('GET', '/api/platform/sub-keys', { key });
const listMedia = (key: string) => t.request('GET', '/api/media/list?limit=10', { key });

async function upload(key: string, seed: number): Promise<number> {
  const body = form({ body: await photo('#336699', { seed, width: 48, height: 32 }), name: `kept-${seed}.jpg`, type: 'image/jpeg' });
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { media_id: number }).media_id;
}

describe('kept answers of the sub-key list', () => {
  it('answers the same list again from memory, and afresh after every kind of change', async () => {
    const account = await t.createAccount('kept-keys');
    const created = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'first', credit_limit: 10 } });
    await listKeys(account.key); // the key's first request is verified apart (not through admit_requests)
    const first = await listKeys(account.key);
    const again = await statementsOf(() => listKeys(account.key));
    expect(again.statements).toEqual(['admit_requests']);
    expect(again.result.text).toBe(first.text);

    // A request made with the sub-key changes its usage.
    expect((await t.request('GET', '/api/live-editor/status', { key: created.body.sub_key })).status).toBe(200);
    const used = await statementsOf(() => listKeys(account.key));
    expect(used.statements.length).toBeGreaterThan(1);
    expect(used.result.body.sub_keys[0].usage.requests_used).toBe(1);

    // A new sub-key, a revocation, and an operator's SQL.
    await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'second' } });
    expect((await listKeys(account.key)).body.sub_keys.map((k: { label: string }) => k.label)).toEqual(['second', 'first']);
    await t.request('POST', `/api/platform/sub-keys/${created.body.prefix}/revoke`, { key: account.key });
    expect((await listKeys(account.key)).body.sub_keys[1].status).toBe('revoked');
    await t.app.services.db.query(`UPDATE "ApiKey" SET label = 'renamed' WHERE id = $1`, [created.body.id]);
    expect((await listKeys(account.key)).body.sub_keys[1].label).toBe('renamed');
  });

  it('shows a sub-key as expired once its time has come, with nothing else changed', async () => {
    const account = await t.createAccount('kept-expiry');
    const created = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { label: 'soon' } });
    // Four seconds ahead: the three reads before it must all fall inside, also on a loaded machine
    // (one second was not enough in CI at load 8).
    const expiresAt = Date.now() + 4000;
    await t.app.services.db.query(`UPDATE "ApiKey" SET "expiresAt" = (now() AT TIME ZONE 'UTC') + interval '4 seconds' WHERE id = $1`, [created.body.id]);
    await listKeys(account.key);
    expect((await listKeys(account.key)).body.sub_keys[0].status).toBe('active');
    const kept = await statementsOf(() => listKeys(account.key));
    expect(kept.statements).toEqual(['admit_requests']);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 200));
    expect((await listKeys(account.key)).body.sub_keys[0].status).toBe('expired');
  });

  it("keeps each key's answers apart, and refuses a key whose account was suspended", async () => {
    const one = await t.createAccount('kept-one');
    const two = await t.createAccount('kept-two');
    await t.request('POST', '/api/platform/sub-keys', { key: one.key, body: { label: 'of one' } });
    for (let i = 0; i < 2; i++) {
      expect((await listKeys(one.key)).body.sub_keys).toHaveLength(1);
      expect((await listKeys(two.key)).body.sub_keys).toHaveLength(0);
    }
    await t.request('POST', `/api/admin/accounts/${one.handle}/suspend`, { admin: true });
    expect((await listKeys(one.key)).status).toBe(403);
  });
});

describe('kept answers of the media list', () => {
  it('answers afresh after an upload, an edit through the API, a change by SQL, the trash and a purge', async () => {
    const account = await t.createAccount('kept-media');
    const id = await upload(account.key, 1);
    await listMedia(account.key);
    const first = await listMedia(account.key);
    const again = await statementsOf(() => listMedia(account.key));
    expect(again.statements).toEqual(['admit_requests']);
    expect(again.result.text).toBe(first.text);

    const second = await upload(account.key, 2);
    expect((await listMedia(account.key)).body.items.map((item: { id: number }) => item.id)).toEqual([second, id]);
    await t.request('PATCH', `/api/media/${id}`, { key: account.key, body: { name: 'edited' } });
    expect((await listMedia(account.key)).body.items[1].name).toBe('edited');
    await t.app.services.db.query(`UPDATE "MediaItem" SET caption = 'set by SQL' WHERE id = $1`, [id]);
    expect((await listMedia(account.key)).body.items[1].caption).toBe('set by SQL');
    await t.request('DELETE', `/api/media/${second}`, { key: account.key });
    expect((await listMedia(account.key)).body.items.map((item: { id: number }) => item.id)).toEqual([id]);
    expect((await t.request('GET', '/api/media/trash', { key: account.key })).body.items.map((item: { id: number }) => item.id)).toEqual([second]);
    await t.app.services.db.query(`DELETE FROM "MediaItem" WHERE id = $1`, [second]);
    expect((await t.request('GET', '/api/media/trash', { key: account.key })).body.items).toEqual([]);
  });

  it('does not answer a sub-key without the media scope from what its account was answered', async () => {
    const account = await t.createAccount('kept-scope');
    await upload(account.key, 3);
    const scrapeOnly = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'scrape' } });
    expect(scrapeOnly.status).toBe(201);
    for (let i = 0; i < 2; i++) expect((await listMedia(account.key)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await listMedia(scrapeOnly.body.sub_key)).status).toBe(403);
  });

  it('refuses a key whose scope was taken away although its answer is kept (the media have not changed)', async () => {
    const account = await t.createAccount('kept-scope-lost');
    await upload(account.key, 4);
    const mediaKey = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'media' } });
    for (let i = 0; i < 2; i++) expect((await listMedia(mediaKey.body.sub_key)).status).toBe(200);
    expect((await statementsOf(() => listMedia(mediaKey.body.sub_key))).statements).toEqual(['admit_requests']);
    await t.app.services.db.query(`UPDATE "ApiKey" SET scopes = ARRAY['scrape'] WHERE id = $1`, [mediaKey.body.id]);
    const refused = await listMedia(mediaKey.body.sub_key);
    expect(refused.status).toBe(403);
  });
});

describe('AnswerCache', () => {
  const route = { method: 'GET', path: '/x', cache: { domain: 'media' } } as unknown as CachedRoute;
  const context = (version: number | undefined, keyId = 1) =>
    ({ actor: { keyId }, baseUrl: 'http://h', dataVersions: version === undefined ? {} : { media: version } }) as unknown as Context;

  it('serves an answer only at the version it was made at, and before its time runs out', () => {
    const cache = new AnswerCache(1024 * 1024);
    const place = cache.place(route, context(3), { limit: 5 })!;
    cache.set(place, '{"a":1}', new Date(Date.now() + 60_000));
    expect(cache.get(cache.place(route, context(3), { limit: 5 })!)).toBe('{"a":1}');
    expect(cache.get(cache.place(route, context(4), { limit: 5 })!)).toBeUndefined();
    expect(cache.get(cache.place(route, context(3), { limit: 6 })!)).toBeUndefined();
    expect(cache.get(cache.place(route, context(3, 2), { limit: 5 })!)).toBeUndefined();
    expect(cache.get(place, Date.now() + 61_000)).toBeUndefined();
  });

  it('does not put an older answer over a newer one, keeps nothing without versions, and nothing at 0 MB', () => {
    const cache = new AnswerCache(1024 * 1024);
    const newer = cache.place(route, context(5), {})!;
    cache.set(newer, 'new', null);
    cache.set(cache.place(route, context(4), {})!, 'old', null);
    expect(cache.get(newer)).toBe('new');
    expect(cache.place(route, context(undefined), {})?.version).toBe(0); // a domain never changed
    expect(cache.place(route, { ...context(1), dataVersions: undefined } as Context, {})).toBeUndefined();
    expect(new AnswerCache(0).place(route, context(1), {})).toBeUndefined();
  });

  it('finds the first time still to come', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(earliestFuture(['2025-12-31T00:00:00Z', '2026-03-01T00:00:00Z', null, '2026-02-01T00:00:00Z'], now)?.toISOString()).toBe('2026-02-01T00:00:00.000Z');
    expect(earliestFuture([null, '2025-01-01T00:00:00Z'], now)).toBeNull();
  });
});
