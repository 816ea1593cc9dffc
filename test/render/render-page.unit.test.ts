// renderPage on a gallery built by script (test/fixtures/script-gallery.ts): images added from a
// JSON list, lazy loading on scroll, infinite scroll and a CSS background set by script. The static
// extractors find nothing in the HTML as served; rendered, every image is found. Then the budget, the restart after a crash
// or past the memory limit, shutdown, and the 503 without Chromium. One browser for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserUnavailable, Renderer, type RenderedPage } from '../../src/modules/render/index.js';
import { extractPageResources } from '../../src/modules/scrape/page-resources.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { startScriptGallery, type ScriptGallery } from '../fixtures/script-gallery.js';

const PAGES = 4;
const PER_PAGE = 6;

/** Every image a rendered page yields: the DOM's, the responses', and what the static extractors find in its final HTML. */
function imagesOf(rendered: RenderedPage): Set<string> {
  const fromHtml = extractPageResources(rendered.html, rendered.url).resources.filter((r) => r.kind === 'image').map((r) => r.url);
  return new Set([...rendered.images, ...rendered.fetchedImages.map((i) => i.url), ...fromHtml]);
}

describe.runIf(chromiumAvailable)('renderPage', () => {
  let gallery: ScriptGallery;
  let origin: string;
  let renderer: Renderer;
  const settings = loadConfig({}).render;

  beforeAll(async () => {
    gallery = await startScriptGallery({ pages: PAGES, perPage: PER_PAGE });
    origin = gallery.origin;
    renderer = new Renderer({ settings: { ...settings, concurrency: 2 }, allowPrivateAddresses: ['127.0.0.1'], userAgent: 'render-test', logger: createLogger('silent') });
  });

  afterAll(async () => {
    await renderer?.close();
    gallery?.close();
  });

  const all = () => gallery.imagePaths.map((path) => origin + path);

  it('finds every image of a script-built gallery, where the HTML as served has none', async () => {
    expect(extractPageResources(gallery.html, `${origin}/gallery`).resources).toEqual([]);
    const rendered = await renderer.renderPage(`${origin}/gallery`);
    expect(rendered.ended).toBe('settled');
    expect(rendered.status).toBe(200);
    expect([...imagesOf(rendered)].sort()).toEqual(all().sort());
    // Lazy images are fetched once scrolled into view; the background is read from computed style.
    expect(rendered.fetchedImages.map((i) => i.url).sort()).toEqual(all().sort());
    expect(rendered.fetchedImages.every((i) => i.contentType === 'image/png')).toBe(true);
    expect(rendered.images).toContain(`${origin}/img/hero.png`);
    expect(rendered.links).toEqual([`${origin}/about`]);
    expect(rendered.html).toContain('>end<');
    // What the memory limit is compared with: every process of the browser, measured.
    expect(await renderer.memoryMb()).toBeGreaterThan(10);
  });

  it('stops at the scroll-step budget with what it has seen so far', async () => {
    const rendered = await renderer.renderPage(`${origin}/gallery`, { budget: { scrollSteps: 1 } });
    expect(rendered.ended).toBe('scrollSteps');
    expect(rendered.scrollSteps).toBe(1);
    const found = imagesOf(rendered);
    expect(found.size).toBeGreaterThan(0);
    expect(found.size).toBeLessThan(all().length);
  });

  it('stops at the request budget', async () => {
    const rendered = await renderer.renderPage(`${origin}/gallery`, { budget: { maxRequests: 4 } });
    expect(rendered.ended).toBe('requests');
    expect(imagesOf(rendered).size).toBeLessThan(all().length);
  });

  it('renders pages side by side, each in a context of its own', async () => {
    const pages = await Promise.all([1, 2, 3].map(() => renderer.renderPage(`${origin}/gallery`)));
    for (const rendered of pages) expect(imagesOf(rendered).size).toBe(all().length);
  });

  it("renders a job's pages in its session's contexts, one page at a time in each, and hands over the bytes of the images each page received", async () => {
    const session = renderer.openSession();
    try {
      // One after the other: one context for both.
      for (let i = 0; i < 2; i++) expect(imagesOf(await renderer.renderPage(`${origin}/gallery`, { session })).size).toBe(all().length);
      expect(session.contextsMade).toBe(1);
      // ... and one tab, which went on from the first page to the second.
      expect(session.tabsOpened).toBe(1);
      // A page cut off the network (its request budget spent) closes its tab: the next page gets a
      // new one, with the network back and a budget of its own.
      const cut = await renderer.renderPage(`${origin}/gallery`, { session, budget: { maxRequests: 4 } });
      expect(cut.ended).toBe('requests');
      const after = await renderer.renderPage(`${origin}/gallery`, { session });
      expect(after.ended).toBe('settled');
      expect(imagesOf(after).size).toBe(all().length);
      expect(session.tabsOpened).toBe(2);
      const pages = await Promise.all([1, 2, 3].map(() => renderer.renderPage(`${origin}/gallery`, { session, keepImageBodies: 1024 * 1024 })));
      for (const rendered of pages) {
        expect(rendered.ended).toBe('settled');
        expect(imagesOf(rendered).size).toBe(all().length);
        // Each page's own copy of what it received (a later page of the job may come from the context's cache).
        for (const image of rendered.fetchedImages) expect(image.body?.subarray(1, 4).toString()).toBe('PNG');
      }
      expect(pages.flatMap((rendered) => rendered.fetchedImages).every((image) => image.body && image.body.length > 0)).toBe(true);
      // Three asked for at once with two browser slots: two side by side, each in a context of its own
      // (a second tab in a context would be a hidden one, whose lazy images never load: the counts
      // above), the third in one of theirs, or in a new one when it took its slot before the page it
      // follows gave its context back. Never a context per page beyond that.
      expect(session.contextsMade).toBeGreaterThanOrEqual(2);
      expect(session.contextsMade).toBeLessThanOrEqual(3);
    } finally {
      await session.close();
    }
    // Closed: its context is gone, and it renders no more.
    await expect(renderer.renderPage(`${origin}/gallery`, { session })).rejects.toThrow(/closed/);
  });

  it('starts a new browser after the browser crashed', async () => {
    const pid = await renderer.browserPid();
    expect(pid).toBeTypeOf('number');
    const launches = renderer.launches;
    process.kill(pid!, 'SIGKILL');
    // The next page waits for nothing but the new launch.
    let rendered = await renderer.renderPage(`${origin}/gallery`).catch(() => null);
    // The kill may land while the old browser is still taken for this page: then the one after it runs on a new one.
    rendered ??= await renderer.renderPage(`${origin}/gallery`);
    expect(imagesOf(rendered).size).toBe(all().length);
    expect(renderer.launches).toBe(launches + 1);
  });

  it('replaces a browser that passed its memory limit once its page is done', async () => {
    const small = new Renderer({ settings: { ...settings, maxBrowserMemoryMb: 1 }, allowPrivateAddresses: ['127.0.0.1'], userAgent: 'render-test', logger: createLogger('silent') });
    try {
      expect(await small.memoryMb()).toBeNull();
      await small.renderPage(`${origin}/gallery`, { budget: { scrollSteps: 0 } });
      await small.renderPage(`${origin}/gallery`, { budget: { scrollSteps: 0 } });
      expect(small.launches).toBe(2);
    } finally {
      await small.close();
    }
    await expect(small.renderPage(`${origin}/gallery`)).rejects.toThrow(/stopping/);
  });

  it('without Chromium: a typed 503 that says how to install it', async () => {
    const missing = new Renderer({ settings: { ...settings, chromiumPath: '/nonexistent/chromium' }, allowPrivateAddresses: ['127.0.0.1'], userAgent: 'render-test', logger: createLogger('silent') });
    expect(missing.available).toBe(false);
    const error = await missing.renderPage(`${origin}/gallery`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BrowserUnavailable);
    expect((error as BrowserUnavailable).status).toBe(503);
    expect((error as Error).message).toMatch(/apt-get install chromium/);
    await missing.close();
  });
});
