// Envelope and errors (spec "Errors"), request ids and request logs.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { ANY_KEY, MISSING_SCOPE_MESSAGE } from '../../src/modules/access/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createHttpApp } from '../../src/http/app.js';
import { createLogger } from '../../src/platform/logger.js';
import { routes } from '../../rest-shim/routes.js';
import { defineRoute } from '../../rest-shim/route.js';
import { LiveEditorStatusDocument } from '../../rest-shim/generated/operations.js';
import { restSurface } from '../../src/app.js';

let t: TestApp;
let server: Server;
let base: string;
const logLines: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  t = await startTestApp({ bodyLimit: '2kb' });
  // A second HTTP front over the same services, with a capturing logger and one route that fails.
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) logLines.push(JSON.parse(line));
      done();
    },
  });
  const failing = defineRoute({
    method: 'GET',
    path: '/api/test/explode',
    auth: 'key',
    key: ANY_KEY,
    summary: 'fails on purpose',
    operation: LiveEditorStatusDocument,
    response: z.object({}),
    shape: () => {
      throw new Error('boom: internal detail that must not leak');
    },
  });
  const app = createHttpApp({ config: t.config, logger: createLogger('info', sink), yoga: t.app.yoga, services: t.app.services, rest: restSurface(t.app.yoga, [...routes, failing], t.config) });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.stop();
});

describe('envelope and errors', () => {
  it('answers unknown routes with 404 JSON', async () => {
    const res = await t.request('GET', '/api/nothing-here', { key: t.ownerKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'no such endpoint: GET /api/nothing-here' });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const res = await t.request('DELETE', '/api/platform/sub-keys', { key: t.ownerKey });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, GET');
    expect(res.body.success).toBe(false);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, rawBody: '{"label": "x",' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'malformed JSON in the request body' });
  });

  it('answers a body over the configured limit with 413', async () => {
    const res = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: 'x'.repeat(4000) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, error: 'request body is larger than the limit of 2kb' });
  });

  it('applies the body limit to /graphql too', async () => {
    const res = await t.request('POST', '/graphql', { key: t.ownerKey, body: { query: `{ health } # ${'x'.repeat(4000)}` } });
    expect(res.status).toBe(413);
  });

  it('serves /healthz without a key', async () => {
    const res = await t.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, status: 'ok' });
  });

  it('sends a read its ETag (304 when unchanged) and the answer to a write none, both as UTF-8 JSON of their exact length', async () => {
    const read = await fetch(`${t.url}/api/economy/bridge/rate`, { headers: { 'X-API-Key': t.ownerKey } });
    const etag = read.headers.get('etag');
    expect(etag).toBeTruthy();
    expect(read.headers.get('content-type')).toBe('application/json; charset=utf-8');
    await read.text();
    // Cache-Control of our own: fetch adds no-cache to a conditional request, which makes it unconditional.
    const again = await fetch(`${t.url}/api/economy/bridge/rate`, { headers: { 'X-API-Key': t.ownerKey, 'If-None-Match': etag!, 'Cache-Control': 'max-age=0' } });
    expect(again.status).toBe(304);
    for (const [path, body, status] of [
      ['/api/economy/styles/no-such-style/unlock', {}, 404],
      ['/api/economy/bridge/link', { partner_account: 'acct-\u00e9-1' }, 200],
    ] as const) {
      const write = await fetch(`${t.url}${path}`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      const bytes = Buffer.from(await write.arrayBuffer());
      expect(write.status, path).toBe(status);
      expect(write.headers.get('etag'), path).toBeNull();
      expect(write.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
      expect(Number(write.headers.get('content-length')), path).toBe(bytes.length);
      expect(JSON.parse(bytes.toString('utf8')).success, path).toBe(status === 200);
    }
  });

  it('returns a request id header on every response, keeping a well-formed incoming one', async () => {
    const fresh = await t.request('GET', '/healthz');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await t.request('GET', '/healthz', { headers: { 'X-Request-Id': 'proxy-id-12345' } });
    expect(kept.headers.get('x-request-id')).toBe('proxy-id-12345');
    const refused = await t.request('GET', '/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    // A malformed one is replaced by a fresh id (a random UUID may hold the letters 'bad' by chance).
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('hides the cause of a 500 from the caller and logs it with the request id', async () => {
    const response = await fetch(`${base}/api/test/explode`, { headers: { 'X-API-Key': t.ownerKey } });
    const body = await response.json();
    expect(response.status).toBe(500);
    expect(body).toEqual({ success: false, error: 'internal server error; retry, and quote the X-Request-Id header when reporting it' });
    expect(JSON.stringify(body)).not.toContain('boom');
    const requestId = response.headers.get('x-request-id');
    const failure = logLines.find((l) => l.msg === 'request failed' && l.requestId === requestId);
    expect(failure).toBeDefined();
    expect(JSON.stringify(failure)).toContain('boom');
    expect(logLines.find((l) => l.msg === 'request' && l.requestId === requestId)).toMatchObject({ status: 500, level: 50 });
  });
});

describe('request logs', () => {
  it('writes one line per request with method, path, status, duration and request id, and no secrets', async () => {
    logLines.length = 0;
    const response = await fetch(`${base}/api/platform/sub-keys?label=secret-query`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ api_key: t.ownerKey, label: 'logged?' }),
    });
    expect(response.status).toBe(201);
    const created = await response.json();
    await fetch(`${base}/api/live-editor/status`, { headers: { 'X-API-Key': created.sub_key } });
    const wrongAdmin = await fetch(`${base}/api/admin/accounts/owner`, { headers: { 'X-Admin-Token': 'not-the-token' } });
    expect(wrongAdmin.status).toBe(401);
    const requestLines = logLines.filter((l) => l.msg === 'request');
    expect(requestLines).toHaveLength(3);
    expect(requestLines[0]).toMatchObject({ method: 'POST', path: '/api/platform/sub-keys', status: 201, requestId: response.headers.get('x-request-id') });
    expect(typeof requestLines[0]!.durationMs).toBe('number');
    const everything = JSON.stringify(logLines);
    expect(everything).not.toContain(t.ownerKey);
    expect(everything).not.toContain(created.sub_key);
    expect(everything).not.toContain('not-the-token');
    expect(everything).not.toContain('secret-query');
  });
});

describe('malformed multipart bodies', () => {
  it('answers 400 for a truncated body, a missing boundary and a malformed part, never a 500', async () => {
    const boundary = 'XBOUNDARY';
    const cases: Array<[string, string]> = [
      [`multipart/form-data; boundary=${boundary}`, `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\nabcdef`],
      ['multipart/form-data', 'xx'],
      [`multipart/form-data; boundary=${boundary}`, `--${boundary}\r\ngarbage\r\n\r\n`],
    ];
    for (const [contentType, body] of cases) {
      const res = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': t.ownerKey, 'Content-Type': contentType }, body });
      expect(res.status, body).toBe(400);
      expect((await res.json()).error).toMatch(/^malformed multipart body: /);
    }
  });
});

describe('multipart bodies wait for the key, the scope and the quotas', () => {
  /** Offers up to 200 MB of multipart body, made only as fast as the server reads it. */
  async function offerLargeUpload(key: string) {
    let sent = 0;
    const chunk = new Uint8Array(1024 * 1024);
    const header = new TextEncoder().encode('--B\r\nContent-Disposition: form-data; name="file"; filename="a.jpg"\r\nContent-Type: image/jpeg\r\n\r\n');
    const upload = new AbortController();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(header);
      },
      pull(controller) {
        if (sent >= 200 * 1024 * 1024) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await fetch(`${t.url}/api/media/upload`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'multipart/form-data; boundary=B' },
      body,
      duplex: 'half',
      signal: upload.signal,
    } as RequestInit);
    const answer = { status: res.status, error: ((await res.json()) as { error: string }).error, sent };
    upload.abort();
    return answer;
  }

  it('answers 401 to a multipart upload with a bad key before reading its body', async () => {
    const answer = await offerLargeUpload('mk_not-a-real-key-0000000000000000000000');
    expect(answer.status).toBe(401);
    // The server answered without taking the body in: far less than it was offered was ever sent.
    expect(answer.sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('answers 403 to a sub-key without the route\'s scope, and 429 to a spent request budget, before reading the body', async () => {
    const searchOnly = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { scopes: 'search' } });
    const scopeless = await offerLargeUpload(searchOnly.body.sub_key);
    expect(scopeless).toMatchObject({ status: 403, error: MISSING_SCOPE_MESSAGE('media') });
    expect(scopeless.sent).toBeLessThan(50 * 1024 * 1024);

    const oneRequest = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { scopes: 'media', credit_limit: 1 } });
    expect((await t.request('GET', '/api/media/list', { key: oneRequest.body.sub_key })).status).toBe(200);
    const spent = await offerLargeUpload(oneRequest.body.sub_key);
    expect(spent.status).toBe(429);
    expect(spent.sent).toBeLessThan(50 * 1024 * 1024);
  });
});
