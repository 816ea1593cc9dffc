// POST /api/scrape with render: true against a local site whose gallery exists only after script
// runs (a JSON list, lazy loading, infinite scroll, a background set by script): the plain scrape
// finds nothing there, the rendered one stores every image, through the same filters and dedupe.
// Without Chromium, render: true answers 503 and says how to install it; plain scrapes still run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { startScriptGallery, type ScriptGallery } from '../fixtures/script-gallery.js';
import { loadConfig } from '../../src/config.js';

const defaults = loadConfig({});
let site: ScriptGallery;
let origin: string;

beforeAll(async () => {
  site = await startScriptGallery({ pages: 3, perPage: 4 });
  origin = site.origin;
});

afterAll(() => site.close());

const expected = () => site.imagePaths;

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
    expect(plain.body.status, JSON.stringify(plain.body)).toBe('completed');
    expect(plain.body.assets.items).toEqual([]);

    const rendered = await scrape({ url: `${origin}/gallery`, render: true });
    expect(rendered.body.status, JSON.stringify(rendered.body)).toBe('completed');
    const paths = rendered.body.assets.items.map((a: { url: string }) => new URL(a.url).pathname).sort();
    expect(paths).toEqual(expected());
    expect(rendered.body.assets.items.every((a: { type: string }) => a.type === 'image')).toBe(true);
  });

  it('applies the same filters to rendered pages (keyword_filter, max_files)', async () => {
    const filtered = await scrape({ url: `${origin}/gallery`, render: true, keyword_filter: 'p2-' });
    expect(filtered.body.status, JSON.stringify(filtered.body)).toBe('completed');
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

  it('refuses a render that is not a boolean with 400 naming the field, before Chromium is looked for', async () => {
    for (const render of ['yes', 2, null, { on: true }]) {
      const refused = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${origin}/gallery`, render } });
      expect(refused.status, JSON.stringify(render)).toBe(400);
      expect(refused.body.error).toMatch(/render/);
    }
    const featured = await t.request('GET', `/api/featured-image?url=${encodeURIComponent(`${origin}/gallery`)}&render=sometimes`, { key: t.ownerKey });
    expect(featured.status).toBe(400);
    expect(featured.body.error).toMatch(/render/);
  });
});
