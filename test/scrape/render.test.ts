// POST /api/scrape with render: true against a local site whose gallery exists only after script
// runs (a JSON list, lazy loading, infinite scroll, a background set by script): the plain scrape
// finds nothing there, the rendered one stores every image, through the same filters and dedupe.
// Without Chromium, render: true answers 503 and says how to install it; plain scrapes still run.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { loadConfig } from '../../src/config.js';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PAGES = 3;
const PER_PAGE = 4;

const GALLERY = `<!doctype html><html><head><title>gallery</title><style>.tile { display:block; width:300px; height:400px; } #hero { height:200px; }</style></head>
<body><div id="hero"></div><div id="grid"></div><div id="sentinel">loading</div><a href="/second">more</a>
<script>
document.getElementById('hero').style.backgroundImage = 'url(/img/' + 'hero.png)';
const lazy = new IntersectionObserver((entries) => {
  for (const e of entries) if (e.isIntersecting) { e.target.src = e.target.dataset.later; lazy.unobserve(e.target); }
});
let page = 0, loading = false;
async function more() {
  if (loading || page >= ${PAGES}) return;
  loading = true;
  page++;
  for (const item of await (await fetch('/api/images?page=' + page)).json()) {
    const img = document.createElement('img');
    img.className = 'tile';
    img.dataset.later = item;
    document.getElementById('grid').appendChild(img);
    lazy.observe(img);
  }
  loading = false;
}
new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); }).observe(document.getElementById('sentinel'));
</script></body></html>`;

const defaults = loadConfig({});
let site: Server;
let origin: string;

beforeAll(async () => {
  site = createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/robots.txt') return void res.end('User-agent: *\nAllow: /\n');
    if (url.pathname === '/gallery') return void res.setHeader('content-type', 'text/html').end(GALLERY);
    if (url.pathname === '/api/images') {
      const page = Number(url.searchParams.get('page'));
      return void res.setHeader('content-type', 'application/json').end(JSON.stringify(Array.from({ length: PER_PAGE }, (_, i) => `/img/p${page}-${i}.png`)));
    }
    // Distinct bytes per image (after the PNG's end), so dedupe by hash keeps each.
    if (url.pathname.startsWith('/img/')) return void res.setHeader('content-type', 'image/png').end(Buffer.concat([PNG, Buffer.from(url.pathname)]));
    res.statusCode = 404;
    res.end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(() => {
  site.closeAllConnections();
  site.close();
});

const expected = () => ['/img/hero.png', ...Array.from({ length: PAGES }, (_, p) => Array.from({ length: PER_PAGE }, (_, i) => `/img/p${p + 1}-${i}.png`)).flat()].sort();

describe.runIf(chromiumAvailable)('POST /api/scrape with render: true', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      fetch: { ...defaults.fetch, allowPrivateAddresses: ['127.0.0.1'] },
      scrape: { ...defaults.scrape, hostDelayMs: 0 },
      jobs: { concurrency: 2, leaseMs: 30_000, pollMs: 50 },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  async function scrape(body: Record<string, unknown>) {
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body });
    expect(started.status, started.text).toBe(202);
    return waitForJob(t, t.ownerKey, started.body.job_id, 60_000);
  }

  it('finds nothing on a script-built gallery in plain mode, and every image rendered', async () => {
    const plain = await scrape({ url: `${origin}/gallery` });
    expect(plain.body.status).toBe('completed');
    expect(plain.body.assets.items).toEqual([]);

    const rendered = await scrape({ url: `${origin}/gallery`, render: true });
    expect(rendered.body.status, JSON.stringify(rendered.body)).toBe('completed');
    const paths = rendered.body.assets.items.map((a: { url: string }) => new URL(a.url).pathname).sort();
    expect(paths).toEqual(expected());
    expect(rendered.body.assets.items.every((a: { type: string }) => a.type === 'image')).toBe(true);
  });

  it('applies the same filters to rendered pages (keyword_filter, max_files)', async () => {
    const filtered = await scrape({ url: `${origin}/gallery`, render: true, keyword_filter: 'p2-' });
    expect(filtered.body.assets.items.map((a: { url: string }) => new URL(a.url).pathname).sort()).toEqual(expected().filter((p) => p.includes('p2-')));
    const capped = await scrape({ url: `${origin}/gallery`, render: true, max_files: 3, force: true });
    expect(capped.body.assets.items).toHaveLength(3);
  });
});

describe('POST /api/scrape with render: true without Chromium', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({
      fetch: { ...defaults.fetch, allowPrivateAddresses: ['127.0.0.1'] },
      render: { ...defaults.render, chromiumPath: '/nonexistent/chromium' },
    });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('answers 503 with how to install it, before any job exists; a plain scrape still runs', async () => {
    const refused = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${origin}/gallery`, render: true } });
    expect(refused.status, refused.text).toBe(503);
    expect(refused.body.success).toBe(false);
    expect(JSON.stringify(refused.body)).toMatch(/apt-get install chromium/);
    const plain = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${origin}/gallery` } });
    expect(plain.status).toBe(202);
  });
});
