// GET /api/featured-image with render=true (and the featuredImage query's render) against a local
// page whose og:image meta and hero <img> are inserted by script from a JSON answer: the page as
// served names no image (nor any image URL a regex could find), so the plain read finds none, and
// the rendered one finds both on the final DOM. Without Chromium, render answers 503 before loading
// anything, and so does a schedule created with render: true; plain reads still work.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { loadConfig } from '../../src/config.js';

const PAGE = `<!doctype html><html><head><title>story</title></head>
<body><h1>A story</h1><div id="hero"></div>
<script>
fetch('/api/story').then((r) => r.json()).then((story) => {
  const meta = document.createElement('meta');
  meta.setAttribute('property', 'og:image');
  meta.setAttribute('content', story.social);
  document.head.appendChild(meta);
  const img = document.createElement('img');
  img.src = story.hero;
  img.width = 1200;
  img.height = 630;
  document.getElementById('hero').appendChild(img);
});
</script></body></html>`;

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/story') return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path === '/api/story') return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ social: '/img/social.jpg', hero: '/img/hero.jpg' }));
    if (path === '/gone') return res.writeHead(404, { 'Content-Type': 'text/html' }).end('<h1>gone</h1>');
    if (path.startsWith('/img/')) return res.writeHead(200, { 'Content-Type': 'image/jpeg' }).end(Buffer.alloc(10));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const featured = (t: TestApp, query: string) => t.request('GET', `/api/featured-image?${query}`, { key: t.ownerKey });

describe.runIf(chromiumAvailable)('GET /api/featured-image with render=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ fetch: LOCAL_FETCH });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('finds no image on the page as served, and the og:image and hero set by script once rendered', async () => {
    const page = encodeURIComponent(`${base}/story`);
    const plain = await featured(t, `url=${page}&all=true`);
    expect(plain.status, plain.text).toBe(200);
    expect(plain.body).toMatchObject({ url: null, score: null, source: null, all: [] });

    const rendered = await featured(t, `url=${page}&all=true&render=true`);
    expect(rendered.status, rendered.text).toBe(200);
    expect(rendered.body).toMatchObject({ url: `${base}/img/social.jpg`, score: 100, source: 'og_meta', page: `${base}/story` });
    expect(rendered.body.all.map((c: { url: string }) => c.url)).toEqual([`${base}/img/social.jpg`, `${base}/img/hero.jpg`]);
  });

  it('takes render in the GraphQL featuredImage query too', async () => {
    const query = 'query ($url: String!) { featuredImage(url: $url, render: true) { ... on QueryFeaturedImageSuccess { data { url source } } } }';
    const res = await t.graphql(query, { url: `${base}/story` }, { key: t.ownerKey });
    expect(res.body.errors, res.text).toBeUndefined();
    expect(res.body.data.featuredImage.data).toEqual({ url: `${base}/img/social.jpg`, source: 'og_meta' });
  });

  it('answers 400 naming url for a rendered page that answers an error, or an address the fetcher refuses', async () => {
    const gone = await featured(t, `url=${encodeURIComponent(`${base}/gone`)}&render=1`);
    expect(gone.status).toBe(400);
    expect(gone.body.error).toMatch(/answered HTTP 404/);
    const refused = await featured(t, `url=${encodeURIComponent('http://10.0.0.8/')}&render=true`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^url: .*10\.0\.0\.8 is a private address/);
  });
});

describe('render without Chromium (featured image, schedules)', () => {
  let t: TestApp;
  const defaults = loadConfig({});
  beforeAll(async () => {
    t = await startTestApp({ fetch: LOCAL_FETCH, render: { ...defaults.render, chromiumPath: '/nonexistent/chromium' } });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 503 saying how to install it; the plain read still works', async () => {
    const page = encodeURIComponent(`${base}/story`);
    const refused = await featured(t, `url=${page}&render=true`);
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.error).toMatch(/apt-get install chromium/);
    expect((await featured(t, `url=${page}`)).status).toBe(200);
  });

  it('refuses a schedule with render: true (503, no schedule); one without it is created', async () => {
    const refused = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body: { url: `${base}/story`, name: 'rendered', render: true } });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.error).toMatch(/apt-get install chromium/);
    expect(await t.app.services.db.prisma.schedule.count()).toBe(0);
    const plain = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body: { url: `${base}/story`, name: 'plain' } });
    expect(plain.status, plain.text).toBe(201);
    expect(plain.body.render).toBeNull(); // left out: its runs follow RENDER_AUTO
  });
});
