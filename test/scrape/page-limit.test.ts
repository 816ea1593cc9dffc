// SCRAPE_MAX_PAGES is exact: a crawl never sends more page requests than the limit, with several
// pages in flight at once and with links that redirect (every hop is a request the site answers).
// Counted where it matters, on the fixture site's side.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUICK_JOBS, LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, WIDE_LINKS, type FixtureSite } from '../fixtures/site.js';
import { loadConfig } from '../../src/config.js';

const defaults = loadConfig({});
let site: FixtureSite;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(() => site.close());

/** Requests the site has answered for pages of its wide section, redirects included. */
function pageRequests(): number {
  let total = 0;
  for (const [path, count] of site.hits) if (path.startsWith('/wide') || path.startsWith('/moved/wide')) total += count;
  return total;
}

describe.each(['inline', 'process'] as const)('SCRAPE_MAX_PAGES with SCRAPE_ISOLATION=%s', (isolation) => {
  const MAX_PAGES = 10;
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      fetch: LOCAL_FETCH,
      // Four pages in flight at once, no delay between them.
      scrape: { ...defaults.scrape, maxPages: MAX_PAGES, hostConcurrency: 4, hostDelayMs: 0, isolation },
      jobs: QUICK_JOBS,
    });
  });
  afterAll(() => t.stop());

  it('sends exactly the limit of page requests to a site with many more pages, redirects counted', async () => {
    expect(1 + WIDE_LINKS + WIDE_LINKS ** 2).toBeGreaterThan(MAX_PAGES * 4); // pages to crawl_depth 2
    const before = pageRequests();
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/wide`, sniper_mode: false, crawl_depth: 2, force: true } });
    expect(started.status, started.text).toBe(202);
    const done = await waitForJob(t, t.ownerKey, started.body.job_id);
    expect(done.body.status).toBe('completed');
    // Give a request that would pass the limit time to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pageRequests() - before).toBe(MAX_PAGES);
    expect(done.body.progress.pages_fetched).toBeGreaterThan(1);
    expect(done.body.progress.pages_fetched).toBeLessThanOrEqual(MAX_PAGES);
  });

  it('counts the redirect of a start page too', async () => {
    const before = pageRequests();
    const started = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url: `${site.url}/moved/wide/1`, sniper_mode: false, crawl_depth: 2, force: true } });
    const done = await waitForJob(t, t.ownerKey, started.body.job_id);
    expect(done.body.status).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(pageRequests() - before).toBe(MAX_PAGES);
  });
});
