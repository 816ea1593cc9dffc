// A scrape -> analyze -> filter pipeline against the local fixture site, with Google Vision faked:
// the scrape job's files become the next steps' images (read from the blob store, not fetched
// again), references with dots and indexes, analyses charged as the vision route charges them, a
// bad reference refused with 400 before anything runs (no job row, no request to the site), and
// the deadline cutting a slow scrape short.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { LOCAL_SCRAPES, startTestApp, type TestApp } from '../helpers/app.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { FAKE_KEYS, startFakeProviders, type FakeProviders } from '../fixtures/vision/fake-providers.js';

let site: FixtureSite;
let vision: FakeProviders;
let t: TestApp;
let quick: TestApp;

beforeAll(async () => {
  [site, vision] = await Promise.all([startFixtureSite({ slowMs: 10_000 }), startFakeProviders()]);
  const defaults = loadConfig({});
  // Analyses come from the fake Google provider (1 API credit each); the local models stay off.
  const fakeVision = { ...defaults.vision, googleVision: { apiKey: FAKE_KEYS.google, baseUrl: vision.googleBaseUrl }, local: { ...defaults.vision.local, enabled: false } };
  [t, quick] = await Promise.all([
    startTestApp({ ...LOCAL_SCRAPES, vision: fakeVision }),
    // A short deadline, for a scrape that cannot finish in time.
    startTestApp({ ...LOCAL_SCRAPES, vision: fakeVision, pipeline: { deadlineMs: 1_000 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([t?.stop(), quick?.stop()]);
  await Promise.all([site?.close(), vision?.close()]);
});
beforeEach(() => vision.reset());

async function account(app: TestApp, credits: number) {
  const made = await app.createAccount('pipe');
  if (credits > 0) await app.request('POST', `/api/admin/accounts/${made.handle}/credits`, { admin: true, body: { amount: credits } });
  return made;
}

const jobsOf = (app: TestApp, accountId: number) => app.app.services.db.prisma.job.count({ where: { accountId } });

describe('scrape -> analyze -> filter', () => {
  it('runs the steps in order, each on the earlier outputs, and answers the documented shape', async () => {
    const { key, id } = await account(t, 10);
    const before = new Map(site.hits);
    const res = await t.request('POST', '/api/pipeline', {
      key,
      body: {
        steps: [
          { name: 'grab', action: 'scrape', params: { url: `${site.url}/`, max_files: 20 } },
          { name: 'look', action: 'analyze', params: { urls: '$grab.urls', max_images: 3 } },
          { name: 'people', action: 'filter', params: { images: '$look.images', label: 'person', orientation: 'landscape' } },
          { name: 'big', action: 'filter', params: { images: '$grab.images', min_width: 700 } },
          // Dots and indexes; plain URLs are measured from the stored files.
          { name: 'picked', action: 'filter', params: { urls: ['$grab.urls[0]', '$grab.images.1.url'], min_height: 1 } },
        ],
      },
    });
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'pipeline']);
    const { pipeline } = res.body;
    expect(Object.keys(pipeline)).toEqual(['steps_total', 'steps_ok', 'steps_failed', 'steps_skipped', 'elapsed', 'steps', 'result']);
    expect(pipeline.steps.map((s: { status: string }) => s.status), JSON.stringify(pipeline.steps.map((s: { error: unknown }) => s.error))).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(res.body.success).toBe(true);
    expect(pipeline).toMatchObject({ steps_total: 5, steps_ok: 5, steps_failed: 0, steps_skipped: 0 });
    expect(typeof pipeline.elapsed).toBe('number');
    for (const step of pipeline.steps) {
      expect(Object.keys(step)).toEqual(['name', 'action', 'status', 'elapsed', 'output', 'error']);
      expect(step.error).toBeNull();
    }
    const [grab, look, people, big, picked] = pipeline.steps.map((s: { output: Record<string, unknown> }) => s.output);

    // scrape: the job's files, as GET /api/jobs/{id} lists them.
    expect(grab.count).toBeGreaterThanOrEqual(5);
    expect(grab.urls).toEqual(grab.images.map((i: { url: string }) => i.url));
    const job = await t.request('GET', `/api/jobs/${grab.job_id}`, { key });
    expect(job.body.assets.items.map((a: { url: string }) => a.url).sort()).toEqual([...grab.urls].sort());

    // analyze: the first 3 files, one paid Google analysis each, read from the stored copies.
    expect(look.count).toBe(3);
    expect(look.urls).toEqual(grab.urls.slice(0, 3));
    expect(vision.requests.google).toHaveLength(3);
    expect(look.top_labels).toContain('person');
    expect(look.summary).toMatch(/^3 images analysed; most common labels: /);
    expect(await t.app.services.ledger.wallet(id, 'credits')).toMatchObject({ balance: 7 * 10_000, reserved: 0 });
    for (const url of look.urls as string[]) expect(site.hits.get(new URL(url).pathname)).toBe((before.get(new URL(url).pathname) ?? 0) + 1);

    // filter: every analysed image shows a person; the landscape ones are kept, with their fields.
    const landscape = (look.images as Array<{ url: string; width: number; height: number }>).filter((i) => i.width > 1.05 * i.height);
    expect(people.urls).toEqual(landscape.map((i) => i.url));
    expect(people.images[0]).toMatchObject({ caption: expect.any(String), labels: expect.arrayContaining(['person']) });
    expect(people.dropped).toBe(3 - landscape.length);
    // Scraped files carry no size here: the filter measured the stored copies.
    expect(big.unmeasured).toBe(0);
    // The site serves the hero's bytes at two URLs; the scrape keeps whichever it stored first.
    expect(big.urls.filter((u: string) => u === `${site.url}/img/hero.jpg` || u === `${site.url}/img/copy-of-hero.jpg`)).toHaveLength(1);
    expect(big.urls).not.toContain(`${site.url}/img/small-1x.png`);
    for (const image of big.images as Array<{ width: number }>) expect(image.width).toBeGreaterThanOrEqual(700);
    expect(big.count + big.dropped).toBe(grab.count);
    expect(picked.urls).toEqual([grab.urls[0], grab.images[1].url]);
    expect(picked.images[0]).toMatchObject({ url: grab.urls[0], width: expect.any(Number), height: expect.any(Number) });
    // result: the last step's output.
    expect(pipeline.result).toEqual(picked);
  });

  it('refuses a bad reference with 400 naming it, before anything runs', async () => {
    const { key, id } = await account(t, 5);
    const hits = site.hits.get('/gallery/2') ?? 0;
    const cases: Array<[unknown, RegExp]> = [
      [{ urls: '$grabb.urls' }, /steps\.1\.params\.urls: \$grabb\.urls refers to no step named grabb \(the steps are: grab, look\)/],
      [{ urls: '$look.urls' }, /\$look\.urls refers to this step itself/],
      [{ urls: '$grab.url' }, /\$grab\.url cannot be read: scrape step grab: it has no field url \(its outputs: job_id, count, urls, images\)/],
      [{ urls: '$grab.count' }, /\$grab\.count is an integer, but this param takes an array/],
      [{ urls: ['$grab.images[0].nope'] }, /images\[0\] has no field nope/],
      [{ urls: '$grab.count[0]' }, /count is an integer, not an array/],
      [{ urls: '$grab.urls', max_images: 50 }, /steps\.1\.params\.max_images: expected an integer from 1 to 20/],
      [{ urls: '$grab.urls', colour: 'red' }, /steps\.1\.params\.colour: not a param of analyze \(its params: urls, max_images, provider\)/],
    ];
    for (const [params, message] of cases) {
      const res = await t.request('POST', '/api/pipeline', {
        key,
        body: { steps: [{ name: 'grab', action: 'scrape', params: { url: `${site.url}/gallery/2` } }, { name: 'look', action: 'analyze', params }] },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body).toEqual({ success: false, error: expect.stringMatching(message) });
    }
    // A reference to a step that runs later.
    const forward = await t.request('POST', '/api/pipeline', {
      key,
      body: { steps: [{ name: 'look', action: 'analyze', params: { urls: '$grab.urls' } }, { name: 'grab', action: 'scrape', params: { url: `${site.url}/gallery/2` } }] },
    });
    expect(forward.status).toBe(400);
    expect(forward.body.error).toMatch(/steps\.0\.params\.urls: \$grab\.urls refers to step grab, which runs after this one \(steps\.1\)/);
    // The request itself: names, actions, the number of steps.
    const bad: Array<[unknown, RegExp]> = [
      [{}, /^steps is required: an array of 1 to 10 steps$/],
      [{ steps: [] }, /steps: expected 1 to 10 steps/],
      [{ steps: Array.from({ length: 11 }, (_, i) => ({ name: `s${i}`, action: 'filter', params: { urls: [] } })) }, /steps: expected at most 10 steps/],
      [{ steps: [{ action: 'filter' }] }, /steps\.0\.name: name is required/],
      [{ steps: [{ name: 'a', action: 'paint' }] }, /steps\.0\.action: expected one of scrape, search, generate, ocr, analyze, replace, filter/],
      [{ steps: [{ name: 'a', action: 'filter', params: { urls: [] } }, { name: 'a', action: 'filter', params: { urls: [] } }] }, /steps\.1\.name: the name a is already used by steps\.0/],
      [{ steps: [{ name: '1a', action: 'filter' }] }, /steps\.0\.name: expected a name of letters/],
      [{ steps: [{ name: 'a', action: 'filter', params: 'x' }] }, /steps\.0\.params: expected an object/],
      [{ steps: [{ name: 'a', action: 'scrape', params: { url: 'http://169.254.169.254/latest' } }] }, /steps\.0\.params\.url: refused/],
      [{ steps: [{ name: 'a', action: 'filter', params: { urls: JSON.parse('['.repeat(30) + ']'.repeat(30)) } }] }, /steps\.0\.params\.urls\[0\]\[0\]: params nest more than 16 levels deep/],
    ];
    for (const [body, message] of bad) {
      const res = await t.request('POST', '/api/pipeline', { key, body });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error).toMatch(message);
    }
    expect(await jobsOf(t, id)).toBe(0);
    expect(site.hits.get('/gallery/2') ?? 0).toBe(hits);
    expect(vision.requests.google).toHaveLength(0);
  });

  it('fails a step whose reference resolves to nothing at run time', async () => {
    const { key } = await account(t, 0);
    const res = await t.request('POST', '/api/pipeline', {
      key,
      body: {
        steps: [
          { name: 'grab', action: 'scrape', params: { url: `${site.url}/gallery/3` } },
          { name: 'tenth', action: 'filter', params: { urls: ['$grab.urls[9]'] } },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(false);
    expect(res.body.pipeline.steps[1]).toMatchObject({
      status: 'failed',
      output: null,
      error: { status: 400, code: 'UNRESOLVED_REFERENCE', message: '$grab.urls[9] resolves to nothing: urls[9] of step grab (the list has 1 item)' },
    });
    expect(res.body.pipeline.result).toBeNull();
  });
});

describe('replace', () => {
  it('runs ReplaceFlow on an article and hands its watermarked image to the next step', async () => {
    const { key } = await account(t, 0);
    const res = await t.request('POST', '/api/pipeline', {
      key,
      body: {
        steps: [
          { name: 'fix', action: 'replace', params: { article_url: `${site.url}/`, max_results: 2, phash: false } },
          { name: 'lead', action: 'filter', params: { urls: ['$fix.watermarked_url'], min_width: 1000 } },
        ],
      },
    });
    expect(res.status).toBe(200);
    const [fix, lead] = res.body.pipeline.steps;
    expect(fix.status, JSON.stringify(fix.error)).toBe('ok');
    expect(fix.output).toMatchObject({ source_domain: '127.0.0.1', count: expect.any(Number), results: expect.arrayContaining([expect.objectContaining({ type: 'source_lead', url: fix.output.watermarked_url })]) });
    expect(lead.output).toMatchObject({ count: 1, urls: [fix.output.watermarked_url], images: [{ width: 1200, height: 630 }] });
  });
});

describe('the deadline', () => {
  it('fails a scrape still running when the deadline passes, naming its job; later steps cannot start', async () => {
    const { key } = await account(quick, 0);
    const started = Date.now();
    const res = await quick.request('POST', '/api/pipeline', {
      key,
      body: {
        stop_on_error: false,
        steps: [
          { name: 'slow', action: 'scrape', params: { url: `${site.url}/slow` } },
          { name: 'after', action: 'filter', params: { urls: [`${site.url}/img/hero.jpg`] } },
        ],
      },
    });
    // The answer comes at the 1 s deadline, not when the page does (10 s): the bound leaves room for
    // a loaded machine (3.5 s was once too little beside three other test files).
    expect(Date.now() - started).toBeLessThan(7_000);
    expect(res.status).toBe(200);
    const [slow, after] = res.body.pipeline.steps;
    expect(slow).toMatchObject({ status: 'failed', error: { status: 504, code: 'PIPELINE_DEADLINE' } });
    expect(slow.error.message).toMatch(/^the pipeline's deadline passed while scrape job \d+ was (queued|processing); the job goes on: poll \/api\/jobs\/\d+$/);
    expect(slow.elapsed).toBeGreaterThanOrEqual(0.9);
    expect(after).toMatchObject({ status: 'failed', error: { status: 504, message: "not started: the pipeline's deadline of 1 s had passed" } });
    expect(res.body.pipeline).toMatchObject({ steps_failed: 2, steps_skipped: 0 });
  });
});
