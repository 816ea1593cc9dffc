// Subscriptions over graphql-ws on /graphql, authenticated through connectionParams.
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { MISSING_KEY_MESSAGE } from '../../src/modules/access/index.js';
import { CONNECTION_INIT_TIMEOUT_MS } from '../../src/graphql/server.js';

let t: TestApp;
const clients: Client[] = [];
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await t.stop();
});

function connect(apiKey?: string): Client {
  const client = createClient({
    url: t.url.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: apiKey ? { 'X-API-Key': apiKey } : {},
    retryAttempts: 0,
  });
  clients.push(client);
  return client;
}

/** Subscribes and collects results until `count` arrived (or an error). */
function collect(client: Client, query: string, count: number): { done: Promise<unknown[]>; ready: Promise<void> } {
  const results: unknown[] = [];
  let markReady: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  const done = new Promise<unknown[]>((resolve, reject) => {
    const unsubscribe = client.subscribe(
      { query },
      {
        next: (value) => {
          results.push(value);
          if (results.length >= count) {
            unsubscribe();
            resolve(results);
          }
        },
        error: (error) => reject(error),
        complete: () => resolve(results),
      },
    );
  });
  // graphql-ws has no "subscribed" acknowledgement; the server registers the subscription on the
  // first round trip, so a follow-up query on the same socket proves it is in place.
  client.subscribe({ query: '{ health }' }, { next: () => markReady(), error: () => markReady(), complete: () => {} });
  return { done, ready };
}

const QUERY = 'subscription { subKeyEvents { type subKey { label status } } }';

describe('subKeyEvents over graphql-ws', () => {
  it('delivers created and revoked events of the own account only', async () => {
    const other = await t.createAccount('ws-other');
    const mine = collect(connect(t.ownerKey), QUERY, 2);
    const theirs = collect(connect(other.key), QUERY, 1);
    await Promise.all([mine.ready, theirs.ready]);

    const created = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'watched' } });
    await t.request('POST', `/api/platform/sub-keys/${created.body.prefix}/revoke`, { key: t.ownerKey });
    await t.request('POST', '/api/platform/sub-keys', { key: other.key, body: { label: 'theirs' } });

    expect(await mine.done).toEqual([
      { data: { subKeyEvents: { type: 'created', subKey: { label: 'watched', status: 'active' } } } },
      { data: { subKeyEvents: { type: 'revoked', subKey: { label: 'watched', status: 'revoked' } } } },
    ]);
    expect(await theirs.done).toEqual([{ data: { subKeyEvents: { type: 'created', subKey: { label: 'theirs', status: 'active' } } } }]);
  });

  it('closes a connection without a valid key at connection_init (4401, with the message HTTP gives)', async () => {
    const invalid = collect(connect('mk_invalid'), QUERY, 1);
    await expect(invalid.done).rejects.toMatchObject({ code: 4401, reason: 'invalid API key' });
    const keyless = collect(connect(), QUERY, 1);
    await expect(keyless.done).rejects.toMatchObject({ code: 4401, reason: MISSING_KEY_MESSAGE });
  });

  it('closes the connection of a suspended account (4403)', async () => {
    const suspended = await t.createAccount('ws-suspended');
    await t.request('POST', `/api/admin/accounts/${suspended.handle}/suspend`, { admin: true });
    const { done } = collect(connect(suspended.key), QUERY, 1);
    await expect(done).rejects.toMatchObject({ code: 4403, reason: `account @${suspended.handle} is suspended; contact the service administrator` });
  });

  it('closes a socket that sends no connection_init within the deadline (4408)', async () => {
    const socket = new WebSocket(t.url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    const started = Date.now();
    const closed = await new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    expect(closed).toBe(4408);
    expect(Date.now() - started).toBeGreaterThanOrEqual(CONNECTION_INIT_TIMEOUT_MS - 100);
  });

  it('refuses a sub-key (sub-key events need the master key)', async () => {
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: {} });
    const { done } = collect(connect(sub.body.sub_key), QUERY, 1);
    await expect(done).resolves.toEqual([
      expect.objectContaining({ errors: [expect.objectContaining({ message: 'this operation needs the account master key; sub-keys cannot call it' })] }),
    ]);
  });
});

describe('WebSocket message size', () => {
  it('closes a socket whose message is larger than BODY_LIMIT (1009) before buffering it', async () => {
    const socket = new WebSocket(t.url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { pad: 'x'.repeat(t.config.bodyLimitBytes + 1) } }));
    expect(await closed).toBe(1009);
  });

  it('still takes a message within the limit', async () => {
    const socket = new WebSocket(t.url.replace('http', 'ws') + '/graphql', 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const acked = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { 'X-API-Key': t.ownerKey, pad: 'x'.repeat(1000) } }));
    expect(JSON.parse(await acked)).toMatchObject({ type: 'connection_ack' });
    socket.close();
  });
});
