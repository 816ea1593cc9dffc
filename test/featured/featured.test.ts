// GET /api/featured-image against pages served on 127.0.0.1 (the fixture set of the extractor).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';

const fixtures = join(import.meta.dirname, '..', 'fixtures', 'featured');
let t: TestApp;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/image.jpg') return res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.alloc(10));
    if (path === '/moved') return res.writeHead(301, { Location: '/pages/news-og-twitter-jsonld-graph' }).end();
    const name = path.match(/^\/pages\/([a-z0-9-]+)$/)?.[1];
    try {
      const html = readFileSync(join(fixtures, `${name}.html`));
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(html);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>gone</h1>');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestApp({ fetch: LOCAL_FETCH });
});
afterAll(async () => {
  await t.stop();
  await new Promise((resolve) => server.close(resolve));
});

const get = (query: string) => t.request('GET', `/api/featured-image?${query}`, { key: t.ownerKey });

describe('GET /api/featured-image', () => {
  it('answers the documented fields for the best candidate', async () => {
    const res = await get(`url=${encodeURIComponent(`${base}/pages/news-og-twitter-jsonld-graph`)}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'url', 'score', 'source', 'page']);
    expect(res.body).toMatchObject({ success: true, score: 100, source: 'og_meta', page: `${base}/pages/news-og-twitter-jsonld-graph` });
    expect(res.body.url).toMatch(/^https?:\/\//);
  });

  it('ranks every candidate with all=true (or all=1) and drops those under min_score', async () => {
    const page = encodeURIComponent(`${base}/pages/news-og-twitter-jsonld-graph`);
    const all = await get(`url=${page}&all=1`);
    expect(all.body.all.length).toBeGreaterThan(1);
    const scores = all.body.all.map((c: { score: number }) => c.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const candidate of all.body.all) expect(Object.keys(candidate)).toEqual(['url', 'score', 'source']);
    const strict = await get(`url=${page}&all=true&min_score=95`);
    expect(strict.body.all.every((c: { score: number }) => c.score >= 95)).toBe(true);
  });

  it('reads the page after redirects', async () => {
    const res = await get(`url=${encodeURIComponent(`${base}/moved`)}`);
    expect(res.body.page).toBe(`${base}/pages/news-og-twitter-jsonld-graph`);
  });

  it('answers nulls when no candidate is good enough', async () => {
    const res = await get(`url=${encodeURIComponent(`${base}/pages/no-images`)}`);
    expect(res.body).toEqual({ success: true, url: null, score: null, source: null, page: `${base}/pages/no-images` });
  });

  it.each([
    ['', 400, 'url is required: the full URL of the page'],
    ['url=notaurl', 400, 'url: expected an absolute http or https URL'],
    ['url=https://example.com/&min_score=101', 400, 'min_score: expected an integer from 0 to 100'],
    ['url=https://example.com/&all=maybe', 400, 'all: expected true or false (or 1 or 0)'],
  ])('refuses %s with a clear 400', async (query, status, message) => {
    const res = await get(query);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ success: false, error: message });
  });

  it('turns a 404 page, a non-HTML URL and a forbidden address into clear errors', async () => {
    const missing = await get(`url=${encodeURIComponent(`${base}/pages/nothing-here`)}`);
    expect(missing.body).toEqual({ success: false, error: `the page ${base}/pages/nothing-here answered HTTP 404` });
    const image = await get(`url=${encodeURIComponent(`${base}/image.jpg`)}`);
    expect(image.body).toEqual({ success: false, error: `${base}/image.jpg is not an HTML page (Content-Type image/jpeg)` });
    const metadata = await get(`url=${encodeURIComponent('http://169.254.169.254/latest/')}`);
    expect(metadata.status).toBe(400);
    expect(metadata.body.error).toMatch(/^url: refused to fetch http:\/\/169\.254\.169\.254\//);
  });
});
