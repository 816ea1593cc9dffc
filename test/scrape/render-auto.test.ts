// RENDER_AUTO: a scrape that did not ask for `render` has a page rendered when it names few images
// and is mostly script; a plain image page is read as served (no browser page is opened for it),
// `render: false` never renders, and without Chromium the job completes with the plain result.
// Rendered pages keep the site's rules: robots.txt for every page the crawl renders (a link found
// only in the rendered DOM included), and the host's delay counted from each page's navigation.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, QUICK_JOBS, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { chromiumAvailable } from '../helpers/browser.js';
import { startScriptGallery, type ScriptGallery } from '../fixtures/script-gallery.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import type { RenderRequest } from '../../src/modules/render/index.js';

const defaults = loadConfig({});
const AUTO = { ...defaults.render.auto, enabled: true };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/** A page whose images and links exist only once its script has run. */
const scripted = (images: string[], links: string[]) => `<!doctype html><html><body><div id="app"></div><script>
const app = document.getElementById('app');
for (const src of ${JSON.stringify(images)}) { const img = document.createElement('img'); img.src = src; app.appendChild(img); }
for (const href of ${JSON.stringify(links)}) { const a = document.createElement('a'); a.href = href; a.textContent = href; app.appendChild(a); }
</script></body></html>`;

const PAGES: Record<string, string> = {
  '/shell': scripted(['/img/s1.png', '/img/s2.png'], ['/shell2', '/private/shell3']),
  '/shell2': scripted(['/img/s3.png'], []),
  '/private/shell3': scripted(['/img/secret.png'], []),
  '/shell4': scripted(['/img/s4.png'], []),
  /** Its script takes the browser where robots.txt disallows. */
  '/jump': `<html><body><script>location.replace('/private/shell3')</script></body></html>`,
  /** Read as served (it names its images), it links to two pages that need rendering. */
  '/hub': `<html><body>${[1, 2, 3].map((i) => `<img src="/img/h${i}.png">`).join('')}<a href="/shell2">2</a><a href="/shell4">4</a></body></html>`,
  '/plain': `<html><body><h1>Plain</h1>${[1, 2, 3, 4].map((i) => `<img src="/img/p${i}.png">`).join('')}</body></html>`,
};

interface Hit {
  path: string;
  /** Sent by the browser (Chromium sends Sec-Fetch-* headers; the plain fetcher does not). */
  browser: boolean;
}

interface Site {
  origin: string;
  hits: Hit[];
  server: Server;
}

async function startSite(): Promise<Site> {
  const site = { hits: [] as Hit[] } as Site;
  const fromBrowser = (headers: IncomingHttpHeaders) => headers['sec-fetch-mode'] !== undefined;
  site.server = createServer((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    site.hits.push({ path, browser: fromBrowser(req.headers) });
    if (path === '/robots.txt') return void res.end('User-agent: *\nDisallow: /private\n');
    const page = PAGES[path];
    if (page) return void res.setHeader('content-type', 'text/html').end(page);
    if (path.startsWith('/img/')) return void res.setHeader('content-type', 'image/png').end(Buffer.concat([PNG, Buffer.from(path)]));
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => site.server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  return site;
}

let gallery: ScriptGallery;
let site: Site;

beforeAll(async () => {
  gallery = await startScriptGallery({ pages: 3, perPage: 4 });
  site = await startSite();
});

afterAll(() => {
  gallery.close();
  site.server.closeAllConnections();
  site.server.close();
});

async function scrape(t: TestApp, body: Record<string, unknown>) {
  const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body });
  expect(started.status, started.text).toBe(202);
  const done = await waitForJob(t, t.ownerKey, started.body.job_id, 60_000);
  expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
  return { paths: done.body.assets.items.map((a: { url: string }) => new URL(a.url).pathname).sort() as string[], progress: done.body.progress };
}

/** Rendering on a busy 2-core machine takes tens of seconds; the default 60 s is too close. */
const SLOW = { timeout: 180_000 };

describe.runIf(chromiumAvailable)('RENDER_AUTO on', SLOW, () => {
  let t: TestApp;
  const pagesRendered = () => t.app.services.renderer.pagesRendered;

  beforeAll(async () => {
    t = await startTestApp({ fetch: LOCAL_FETCH, scrape: { ...defaults.scrape, hostDelayMs: 0 }, render: { ...defaults.render, auto: AUTO }, jobs: QUICK_JOBS });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('renders the script-built gallery of a scrape that did not ask for render, and stores every image', async () => {
    const before = pagesRendered();
    const { paths, progress } = await scrape(t, { url: `${gallery.origin}/gallery` });
    expect(paths).toEqual(gallery.imagePaths);
    expect(pagesRendered()).toBe(before + 1);
    expect(progress.pages_fetched).toBe(1); // fetched, then rendered: one page
  });

  it('reads a plain image page as served: no browser page is opened and the site sees no browser', async () => {
    const before = pagesRendered();
    site.hits.length = 0;
    const { paths } = await scrape(t, { url: `${site.origin}/plain` });
    expect(paths).toEqual(['/img/p1.png', '/img/p2.png', '/img/p3.png', '/img/p4.png']);
    expect(pagesRendered()).toBe(before);
    expect(site.hits.filter((hit) => hit.browser)).toEqual([]);
  });

  it("a schedule that leaves render out (null) follows RENDER_AUTO on each run; one that says false never renders", async () => {
    const runOnce = async (body: Record<string, unknown>) => {
      const created = await t.request('POST', '/api/automation/schedules', { key: t.ownerKey, body: { url: `${gallery.origin}/gallery`, schedule: 'daily', ...body } });
      expect(created.status, created.text).toBe(201);
      const { prisma } = t.app.services.db;
      await prisma.schedule.update({ where: { id: created.body.schedule_id }, data: { nextRunAt: new Date(Date.now() - 60_000) } });
      await t.app.services.schedules.tick();
      const { lastJobId } = await prisma.schedule.findUniqueOrThrow({ where: { id: created.body.schedule_id } });
      const done = await waitForJob(t, t.ownerKey, lastJobId!, 60_000);
      expect(done.body.status, JSON.stringify(done.body)).toBe('completed');
      return { render: created.body.render, paths: done.body.assets.items.map((a: { url: string }) => new URL(a.url).pathname).sort() as string[] };
    };
    let before = pagesRendered();
    const auto = await runOnce({ name: 'auto' });
    expect(auto.render).toBeNull();
    expect(auto.paths).toEqual(gallery.imagePaths);
    expect(pagesRendered()).toBe(before + 1);
    before = pagesRendered();
    const never = await runOnce({ name: 'never', render: false });
    expect(never).toEqual({ render: false, paths: [] });
    expect(pagesRendered()).toBe(before);
  });

  it('never renders a scrape that says render: false', async () => {
    const before = pagesRendered();
    const { paths } = await scrape(t, { url: `${gallery.origin}/gallery`, render: false });
    expect(paths).toEqual([]);
    expect(pagesRendered()).toBe(before);
  });

  it('in crawl mode renders each page that needs it and follows links found only in the rendered DOM, never into what robots.txt disallows', async () => {
    const before = pagesRendered();
    site.hits.length = 0;
    const { paths } = await scrape(t, { url: `${site.origin}/shell`, sniper_mode: false, crawl_depth: 1 });
    expect(paths).toEqual(['/img/s1.png', '/img/s2.png', '/img/s3.png']);
    expect(pagesRendered()).toBe(before + 2);
    const navigations = site.hits.filter((hit) => hit.browser && hit.path.startsWith('/shell')).map((hit) => hit.path);
    expect(navigations.sort()).toEqual(['/shell', '/shell2']);
    expect(site.hits.filter((hit) => hit.path.startsWith('/private'))).toEqual([]);
  });

  it('with render: true, does not render a linked page that robots.txt disallows either', async () => {
    site.hits.length = 0;
    const { paths } = await scrape(t, { url: `${site.origin}/shell`, sniper_mode: false, crawl_depth: 1, render: true });
    expect(paths).toEqual(['/img/s1.png', '/img/s2.png', '/img/s3.png']);
    expect(site.hits.filter((hit) => hit.path.startsWith('/private'))).toEqual([]);
  });

  it('stores the images a rendered page loaded from the bytes the browser received: the site serves each once', async () => {
    site.hits.length = 0;
    const { paths } = await scrape(t, { url: `${site.origin}/shell`, sniper_mode: false, crawl_depth: 1, render: true, force: true });
    expect(paths).toEqual(['/img/s1.png', '/img/s2.png', '/img/s3.png']);
    const imageHits = site.hits.filter((hit) => hit.path.startsWith('/img/'));
    expect(imageHits.map((hit) => hit.path).sort()).toEqual(paths);
    expect(imageHits.every((hit) => hit.browser)).toBe(true);
  });

  it('takes nothing from where a rendered page led when robots.txt disallows it', async () => {
    const explicit = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.origin}/jump`, render: true } });
    const failed = await waitForJob(t, t.ownerKey, explicit.body.job_id, 60_000);
    expect(failed.body.status).toBe('failed');
    expect(failed.body.error).toMatch(/robots\.txt .* does not allow .*\/private\/shell3, where .*\/jump led/);
    // RENDER_AUTO: the page as served stands (it names nothing).
    expect((await scrape(t, { url: `${site.origin}/jump` })).paths).toEqual([]);
  });
});

describe.runIf(chromiumAvailable)('rendered pages and the per-host delay', SLOW, () => {
  const DELAY_MS = 250;
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ fetch: LOCAL_FETCH, scrape: { ...defaults.scrape, hostDelayMs: DELAY_MS, isolation: 'inline' }, render: { ...defaults.render, auto: AUTO }, jobs: QUICK_JOBS });
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('starts plain requests and page navigations to a host at least the delay apart, counted from each navigation', async () => {
    // Two pages of one level rendered by a browser not yet started: counted from the render's
    // start, both navigations would wait for the launch and reach the host together.
    // Start times taken where the crawl sends a request: the fetcher's call, and the moment the
    // renderer is let to navigate (what reaches the server may be delayed by a busy test process).
    const { fetcher, renderer } = t.app.services;
    const fetch = fetcher.fetch.bind(fetcher);
    const renderPage = renderer.renderPage.bind(renderer);
    const starts: Array<{ at: number; what: string }> = [];
    fetcher.fetch = async (url, ...rest) => {
      if (!String(url).endsWith('/robots.txt')) starts.push({ at: performance.now(), what: `fetch ${new URL(String(url)).pathname}` });
      return fetch(url, ...rest);
    };
    renderer.renderPage = (url: string, request: RenderRequest = {}) =>
      renderPage(url, {
        ...request,
        beforeNavigation: async () => {
          await request.beforeNavigation?.();
          starts.push({ at: performance.now(), what: `render ${new URL(url).pathname}` });
        },
      });
    try {
      const { paths } = await scrape(t, { url: `${site.origin}/hub`, sniper_mode: false, crawl_depth: 1 });
      expect(paths).toEqual(['/img/h1.png', '/img/h2.png', '/img/h3.png', '/img/s3.png', '/img/s4.png']);
    } finally {
      fetcher.fetch = fetch;
      renderer.renderPage = renderPage;
    }
    expect(starts.map((s) => s.what)).toEqual(expect.arrayContaining(['fetch /hub', 'fetch /shell2', 'render /shell2', 'fetch /shell4', 'render /shell4']));
    expect(starts.map((s) => s.what)).not.toContain('render /hub');
    const gaps = starts.slice(1).map((s, i) => s.at - starts[i]!.at);
    // The times are taken a few steps after the turn is (a busy event loop can stretch those steps
    // for one request more than for the next): 10 ms of slack. Counted from the render's start,
    // the two navigations came 28 ms apart.
    expect(Math.min(...gaps), JSON.stringify(starts)).toBeGreaterThanOrEqual(DELAY_MS - 10);
  });
});

describe('RENDER_AUTO on without Chromium', SLOW, () => {
  let t: TestApp;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await startTestApp(
      { fetch: LOCAL_FETCH, scrape: { ...defaults.scrape, hostDelayMs: 0 }, render: { ...defaults.render, auto: AUTO, chromiumPath: '/nonexistent/chromium' }, jobs: QUICK_JOBS },
      { logger: createLogger('info', { write: (line: string) => void lines.push(line) }) },
    );
  });
  afterAll(async () => {
    await t?.stop();
  });

  it('completes with the plain result and says once that Chromium is missing; render: true still answers 503', async () => {
    expect((await scrape(t, { url: `${gallery.origin}/gallery` })).paths).toEqual([]);
    expect((await scrape(t, { url: `${site.origin}/plain` })).paths).toHaveLength(4);
    expect(lines.filter((line) => line.includes('RENDER_AUTO is on but Chromium is not available'))).toHaveLength(1);
    const refused = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${gallery.origin}/gallery`, render: true } });
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatch(/apt-get install chromium/);
  });
});
