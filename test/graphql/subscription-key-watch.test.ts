// Open subscriptions end when their key may no longer be used (issue 20: after a sub-key was
// revoked, the master key rotated or the account suspended, an open graphql-ws subscription kept
// receiving events while REST refused the same key at once). Over graphql-ws the socket closes with
// 4401/4403 and the reason a request would be told; over SSE the stream ends with that error. With
// REDIS_URL, a revocation made through one process ends the subscription another one holds.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, TEST_TIERS, type TestApp } from '../helpers/app.js';
import { createTestDatabase, usePostgres } from '../helpers/database.js';
import { until } from '../helpers/until.js';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';

const QUERY = 'subscription { followedSubjectEvents { type } }';

let t: TestApp;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await t.stop();
});

interface Open {
  /** Resolves once the server has the subscription in place. */
  ready: Promise<void>;
  /** Resolves with how the subscription ended: the socket's close code and reason, or results. */
  ended: Promise<{ code?: number; reason?: string; results: unknown[] }>;
}

/** A graphql-ws subscription held open with `key` on the app at `url`. */
function subscribe(url: string, key: string): Open {
  const client = createClient({ url: url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': key }, retryAttempts: 0, lazy: false, onNonLazyError: () => {} });
  clients.push(client);
  const results: unknown[] = [];
  const ended = new Promise<{ code?: number; reason?: string; results: unknown[] }>((resolve) => {
    client.subscribe(
      { query: QUERY },
      {
        next: (value) => results.push(value),
        // A close event (its code and reason are getters), or GraphQL errors.
        error: (error) => resolve({ code: (error as { code?: number }).code, reason: (error as { reason?: string }).reason, results }),
        complete: () => resolve({ results }),
      },
    );
  });
  // A query after the subscription on the same socket answers once the subscription is registered.
  const ready = new Promise<void>((resolve, reject) => client.subscribe({ query: '{ health }' }, { next: () => resolve(), error: reject, complete: () => {} }));
  return { ready, ended };
}

async function subKey(app: TestApp | { request: TestApp['request'] }, master: string, body: Record<string, unknown> = {}) {
  const res = await app.request('POST', '/api/platform/sub-keys', { key: master, body });
  expect(res.status, res.text).toBe(201);
  return { key: res.body.sub_key as string, prefix: res.body.prefix as string };
}

describe('graphql-ws subscriptions end with their key', () => {
  it('a revoked sub-key: 4401 "this sub-key has been revoked"; other keys of the account stay open', async () => {
    const account = await t.createAccount('watch-revoke');
    const doomed = await subKey(t, account.key);
    const kept = await subKey(t, account.key);
    const watched = subscribe(t.url, doomed.key);
    const other = subscribe(t.url, kept.key);
    await Promise.all([watched.ready, other.ready]);
    expect((await t.request('POST', `/api/platform/sub-keys/${doomed.prefix}/revoke`, { key: account.key })).status).toBe(200);
    expect(await watched.ended).toMatchObject({ code: 4401, reason: 'this sub-key has been revoked' });
    // The other key's socket is still served.
    let settled = false;
    void other.ended.then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
  });

  it('a rotated master key: 4401 "this API key has been rotated and no longer works"', async () => {
    const account = await t.createAccount('watch-rotate');
    const watched = subscribe(t.url, account.key);
    await watched.ready;
    expect((await t.request('POST', `/api/admin/accounts/${account.handle}/rotate-key`, { admin: true })).status).toBe(200);
    expect(await watched.ended).toMatchObject({ code: 4401, reason: 'this API key has been rotated and no longer works' });
  });

  it('a suspended account: 4403 for the master key and every sub-key', async () => {
    const account = await t.createAccount('watch-suspend');
    const sub = await subKey(t, account.key);
    const master = subscribe(t.url, account.key);
    const viaSub = subscribe(t.url, sub.key);
    await Promise.all([master.ready, viaSub.ready]);
    expect((await t.request('POST', `/api/admin/accounts/${account.handle}/suspend`, { admin: true })).status).toBe(200);
    const reason = `account @${account.handle} is suspended; contact the service administrator`;
    expect(await master.ended).toMatchObject({ code: 4403, reason });
    expect(await viaSub.ended).toMatchObject({ code: 4403, reason });
  });

  it('an expiring sub-key: 4401 "this sub-key expired at ..." when it expires, with no request made', async () => {
    const account = await t.createAccount('watch-expire');
    const sub = await subKey(t, account.key, { expires_days: 1 });
    // Brought forward to a moment just ahead (expires_days counts whole days).
    const expiresAt = new Date(Date.now() + 2_000);
    await t.app.services.db.prisma.apiKey.updateMany({ where: { prefix: sub.prefix }, data: { expiresAt } });
    const watched = subscribe(t.url, sub.key);
    await watched.ready;
    expect(await watched.ended).toMatchObject({ code: 4401, reason: `this sub-key expired at ${expiresAt.toISOString()}` });
  });

  it('stops watching a key once its socket closes', async () => {
    const account = await t.createAccount('watch-close');
    const before = t.app.services.keyWatch.size;
    const client = createClient({ url: t.url.replace('http', 'ws') + '/graphql', webSocketImpl: WebSocket, connectionParams: { 'X-API-Key': account.key }, retryAttempts: 0 });
    await new Promise<void>((resolve, reject) => client.subscribe({ query: '{ health }' }, { next: () => resolve(), error: reject, complete: () => {} }));
    expect(t.app.services.keyWatch.size).toBe(before + 1);
    await client.dispose();
    await until(() => t.app.services.keyWatch.size === before, 'the closed socket to be watched no more');
  });
});

/** Reads an SSE subscription until the server ends it; returns the events' data. */
async function sse(url: string, key: string, onOpen: () => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-API-Key': key },
    body: JSON.stringify({ query: QUERY }),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  let opened = false;
  for (;;) {
    if (!opened) {
      opened = true;
      // The subscription is registered once the response has started.
      await onOpen();
    }
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
    if (/event: complete/.test(text)) break;
  }
  return [...text.matchAll(/^data: (.+)$/gm)].map((m) => JSON.parse(m[1]!) as Record<string, unknown>).filter((d) => Object.keys(d).length > 0);
}

describe('SSE subscriptions end with their key', () => {
  it('a revoked sub-key: the stream ends with the 401 a request would get', async () => {
    const account = await t.createAccount('watch-sse');
    const sub = await subKey(t, account.key);
    const events = await sse(t.url, sub.key, async () => {
      expect((await t.request('POST', `/api/platform/sub-keys/${sub.prefix}/revoke`, { key: account.key })).status).toBe(200);
    });
    expect(events).toEqual([{ errors: [expect.objectContaining({ message: 'this sub-key has been revoked', extensions: expect.objectContaining({ code: 'UNAUTHENTICATED', status: 401 }) })] }]);
  });

  it('stops watching the key when the client goes away', async () => {
    const account = await t.createAccount('watch-sse-abort');
    const before = t.app.services.keyWatch.size;
    const abort = new AbortController();
    const res = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', 'X-API-Key': account.key },
      body: JSON.stringify({ query: QUERY }),
      signal: abort.signal,
    });
    expect(res.status).toBe(200);
    await until(() => t.app.services.keyWatch.size === before + 1, 'the SSE subscription to be watched');
    abort.abort();
    await until(() => t.app.services.keyWatch.size === before, 'the abandoned SSE subscription to be watched no more');
  });

  it('a suspended account: the stream ends with 403', async () => {
    const account = await t.createAccount('watch-sse-suspend');
    const events = await sse(t.url, account.key, async () => {
      expect((await t.request('POST', `/api/admin/accounts/${account.handle}/suspend`, { admin: true })).status).toBe(200);
    });
    expect(events).toEqual([{ errors: [expect.objectContaining({ message: `account @${account.handle} is suspended; contact the service administrator` })] }]);
  });
});

const redisUrl = process.env.REDIS_URL;

describe.runIf(redisUrl && usePostgres)('two processes sharing the database and Redis', () => {
  const apps: App[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const app of apps) await app.stop();
    for (const cleanup of cleanups) await cleanup();
  });

  it('a revocation through one process closes the socket the other one holds', async () => {
    const database = await createTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'key-watch-'));
    cleanups.push(async () => {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    });
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN },
      { databaseUrl: database.url, redisUrl, redisPrefix: `test-${randomBytes(4).toString('hex')}`, tiers: TEST_TIERS },
    );
    const holder = await buildApp({ ...config, runWorkers: false }, { logger: createLogger('silent') });
    apps.push(holder);
    const holderUrl = await holder.start(0, '127.0.0.1');
    const master = holder.initialAccount!.apiKey;
    const other = await buildApp({ ...config, runWorkers: false }, { logger: createLogger('silent') });
    apps.push(other);
    const otherUrl = await other.start(0, '127.0.0.1');
    const request = async (url: string, method: string, path: string, options: { key?: string; admin?: boolean } = {}) => {
      const res = await fetch(url + path, { method, headers: { ...(options.key ? { 'X-API-Key': options.key } : {}), ...(options.admin ? { 'X-Admin-Token': ADMIN_TOKEN } : {}), 'Content-Type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };

    const created = await request(otherUrl, 'POST', '/api/platform/sub-keys', { key: master });
    const sub = { key: created.body.sub_key as string, prefix: created.body.prefix as string };
    const revoked = subscribe(holderUrl, sub.key);
    const rotated = subscribe(holderUrl, master);
    await Promise.all([revoked.ready, rotated.ready]);
    expect((await request(otherUrl, 'POST', `/api/platform/sub-keys/${sub.prefix}/revoke`, { key: master })).status).toBe(200);
    expect(await revoked.ended).toMatchObject({ code: 4401, reason: 'this sub-key has been revoked' });
    expect((await request(otherUrl, 'POST', `/api/admin/accounts/${holder.initialAccount!.handle}/rotate-key`, { admin: true })).status).toBe(200);
    expect(await rotated.ended).toMatchObject({ code: 4401, reason: 'this API key has been rotated and no longer works' });
  });
});
