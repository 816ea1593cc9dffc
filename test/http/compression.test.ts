// Response compression: GraphiQL and JSON answers come compressed when the client asks (and decode
// to exactly what an uncompressing client gets); job files, ranges, ZIP downloads and SSE
// subscriptions are never compressed and still stream.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_JOBS, LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startPhotoSite, type PhotoSite } from '../helpers/photo-site.js';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The bytes as they came over the wire (still compressed, when they were). */
  body: Buffer;
}

/** node:http, not fetch: fetch decompresses on its own and would hide what was sent. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

let t: TestApp;
let site: PhotoSite;
let siteUrl: string;
let png: Buffer;

beforeAll(async () => {
  site = await startPhotoSite();
  siteUrl = site.url;
  png = site.png;
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: QUICK_JOBS,
  });
});
afterAll(async () => {
  await t?.stop();
  await site?.close();
});

describe('compressed answers', () => {
  it('sends the GraphiQL page gzip-compressed when asked, decoding to the same page', async () => {
    const headers = { Accept: 'text/html' };
    const plain = await raw(`${t.url}/graphql`, { headers: { ...headers, 'Accept-Encoding': 'identity' } });
    const gzipped = await raw(`${t.url}/graphql`, { headers: { ...headers, 'Accept-Encoding': 'gzip' } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toContain('graphiql');
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gzipped.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    // The page is megabytes of inlined JavaScript; compressed it is well under half.
    expect(gzipped.body.length).toBeLessThan(plain.body.length / 2);
  });

  it('sends a REST JSON answer and a GraphQL result gzip-compressed, decoding to the same JSON', async () => {
    for (let i = 0; i < 8; i++) {
      const created = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label: `compression-${i}`, scopes: 'search' } });
      expect(created.status, created.text).toBe(201);
    }
    const key = { 'X-API-Key': t.ownerKey };
    const plain = await raw(`${t.url}/api/platform/sub-keys`, { headers: { ...key, 'Accept-Encoding': 'identity' } });
    const gzipped = await raw(`${t.url}/api/platform/sub-keys`, { headers: { ...key, 'Accept-Encoding': 'gzip' } });
    expect(plain.body.length).toBeGreaterThan(1024);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers['content-type']).toMatch(/^application\/json/);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.body).toString()).toBe(plain.body.toString());
    expect(JSON.parse(gunzipSync(gzipped.body).toString())).toMatchObject({ success: true, total: 8 });

    const query = JSON.stringify({ query: '{ __schema { types { name fields { name } } } }' });
    const graphql = (encoding: string) =>
      raw(`${t.url}/graphql`, { method: 'POST', headers: { ...key, 'Content-Type': 'application/json', 'Accept-Encoding': encoding }, body: query });
    const [gqlPlain, gqlGzipped] = [await graphql('identity'), await graphql('gzip')];
    expect(gqlGzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gqlGzipped.body).toString()).toBe(gqlPlain.body.toString());
  });

  it('leaves small answers as they are', async () => {
    const res = await raw(`${t.url}/healthz`, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString())).toEqual({ success: true, status: 'ok' });
    // A keyed read and the answer to a write (each of a declared length under 1 KB), and a small GraphQL result.
    const key = { 'X-API-Key': t.ownerKey, 'Accept-Encoding': 'gzip, br' };
    const read = await raw(`${t.url}/api/economy/bridge/rate`, { headers: key });
    const write = await raw(`${t.url}/api/economy/bridge/link`, { method: 'POST', headers: { ...key, 'Content-Type': 'application/json' }, body: JSON.stringify({ partner_account: 'small-1' }) });
    const graphql = await raw(`${t.url}/graphql`, { method: 'POST', headers: { ...key, 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    for (const [name, answer] of [['read', read], ['write', write], ['graphql', graphql]] as const) {
      expect(answer.status, name).toBe(200);
      expect(answer.headers['content-encoding'], name).toBeUndefined();
      expect(answer.body.length, name).toBeLessThan(1024);
      expect(JSON.parse(answer.body.toString()), name).toBeTruthy();
    }
  });
});

describe('never compressed', () => {
  it('serves job files, ranges of them (206, exact bytes) and the ZIP as they are', async () => {
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${siteUrl}/` } });
    expect(started.status, started.text).toBe(202);
    const done = await waitForJob(t, t.ownerKey, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    const [asset] = done.body.assets.items;
    const path = new URL(asset.download_url).pathname;
    const headers = { 'X-API-Key': t.ownerKey, 'Accept-Encoding': 'gzip, deflate, br' };

    const whole = await raw(`${t.url}${path}`, { headers });
    expect(whole.status).toBe(200);
    expect(whole.headers['content-encoding']).toBeUndefined();
    expect(whole.body.equals(png)).toBe(true);

    const ranged = await raw(`${t.url}${path}`, { headers: { ...headers, Range: 'bytes=1000-5999' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers['content-encoding']).toBeUndefined();
    expect(ranged.headers['content-range']).toBe(`bytes 1000-5999/${png.length}`);
    expect(ranged.headers['content-length']).toBe('5000');
    expect(ranged.body.equals(png.subarray(1000, 6000))).toBe(true);

    const zip = await raw(`${t.url}/download/${started.body.job_id}`, { headers });
    expect(zip.status).toBe(200);
    expect(zip.headers['content-type']).toMatch(/zip/);
    expect(zip.headers['content-encoding']).toBeUndefined();
    expect(zip.body.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
  });

  it('streams a subscription over SSE (text/event-stream, uncompressed) event by event', async () => {
    const events: string[] = [];
    let headers: IncomingHttpHeaders | undefined;
    let onData: (() => void) | undefined;
    const req = httpRequest(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'X-API-Key': t.ownerKey, 'Content-Type': 'application/json', Accept: 'text/event-stream', 'Accept-Encoding': 'gzip' },
    });
    const opened = new Promise<void>((resolve, reject) => {
      req.on('response', (res) => {
        headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          events.push(chunk);
          onData?.();
        });
        resolve();
      });
      req.on('error', reject);
    });
    req.end(JSON.stringify({ query: 'subscription { subKeyEvents { type subKey { label } } }' }));
    try {
      await opened;
      expect(headers!['content-type']).toMatch(/^text\/event-stream/);
      // Yoga marks the stream `Content-Encoding: none` (no proxy may buffer it to compress it).
      expect([undefined, 'none']).toContain(headers!['content-encoding']);
      // Each event arrives while the stream stays open (a compressor would hold it back).
      for (const label of ['sse-one', 'sse-two']) {
        const arrived = new Promise<void>((resolve) => {
          onData = () => events.join('').includes(label) && resolve();
        });
        const created = await t.request('POST', '/api/platform/sub-keys', { key: t.ownerKey, body: { label, scopes: 'media' } });
        expect(created.status, created.text).toBe(201);
        await arrived;
      }
      const text = events.join('');
      expect(text).toContain('event: next');
      expect(text).toContain('"type":"created"');
    } finally {
      req.destroy();
    }
  });
});
