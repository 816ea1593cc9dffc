// POST /api/scrape end to end against the local fixture site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { loadConfig } from '../../src/config.js';

let t: TestApp;
let site: FixtureSite;
const defaults = loadConfig({});

beforeAll(async () => {
  site = await startFixtureSite({ slowMs: 3000 });
  t = await startTestApp({
    fetch: { ...defaults.fetch, allowPrivateAddresses: ['127.0.0.1'], timeoutMs: 1500 },
    scrape: { ...defaults.scrape, maxAssetBytes: 1024 * 1024 },
    jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 },
  });
});
afterAll(async () => {
  await t.stop();
  await site.close();
});

async function scrape(body: Record<string, unknown>, key = t.ownerKey) {
  const started = await t.request('POST', '/api/scrape', { key, body });
  expect(started.status, started.text).toBe(202);
  return { started, done: await waitForJob(t, key, started.body.job_id) };
}

const names = (done: { body: { assets: { items: Array<{ url: string }> } } }) =>
  done.body.assets.items.map((a) => new URL(a.url).pathname).sort();

/**
 * The page shows hero.jpg under two URLs (the second, copy-of-hero.jpg, holds the same bytes): the
 * file is stored once, under the URL whose download finished first, so either may be listed.
 */
const HERO_URLS = ['/img/hero.jpg', '/img/copy-of-hero.jpg'];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function heroAsset(done: { body: { assets: { items: any[] } } }) {
  const heroes = done.body.assets.items.filter((a: { url: string }) => HERO_URLS.includes(new URL(a.url).pathname));
  expect(heroes).toHaveLength(1);
  return heroes[0];
}

describe('POST /api/scrape in sniper mode', () => {
  it('answers the documented fields, then completes with every distinct image of the page', async () => {
    const { started, done } = await scrape({ url: `${site.url}/` });
    expect(started.body).toEqual({
      success: true,
      status: 'queued',
      job_id: expect.any(Number),
      message: expect.stringContaining(`/api/jobs/${started.body.job_id}`),
      poll_url: `/api/jobs/${started.body.job_id}`,
    });
    expect(done.body.success).toBe(true);
    expect(done.body.status).toBe('completed');
    const hero = heroAsset(done); // plain img (its copy under another name is the same bytes: stored once)
    expect(names(done)).toEqual([
      '/img/background.png', // CSS background
      new URL(hero.url).pathname,
      '/img/jsonld.jpg', // JSON-LD
      '/img/large-2x.png', // srcset, largest
      '/img/lazy.webp', // data-src
      '/img/linked.png', // a link to a file
      '/img/og.jpg', // og:image
      '/img/picture-wide.webp', // picture/source srcset, largest
      '/redirect/1', // an img behind a redirect chain, reported under the URL the page gave
      '/img/small-1x.png', // the img's own src
      '/img/tiny.gif',
    ].sort());
    expect(done.body.assets.count).toBe(done.body.assets.items.length);
    const filename = new URL(hero.url).pathname.split('/').pop();
    expect(hero).toMatchObject({ type: 'image', size: site.images.get('/img/hero.jpg')!.length, filename, ai_label: null });
    expect(hero.download_url).toBe(`${t.url}/files/${started.body.job_id}/${filename}`);
  });

  it('keeps out what must not be fetched or stored', async () => {
    const { done } = await scrape({ url: `${site.url}/`, force: true });
    const urls = done.body.assets.items.map((a: { url: string }) => a.url).join(' ');
    expect(urls).not.toContain('/private/secret.png'); // robots.txt
    expect(site.hits.get('/private/secret.png') ?? 0).toBe(0);
    expect(urls).not.toContain('/huge.jpg'); // over the asset size limit
    expect(urls).not.toContain('to-private'); // redirects to a metadata address
    expect(urls).not.toContain('/files/'); // videos and documents were not asked for
    expect(urls).not.toContain('elsewhere.example');
  });

  it('serves stored files with type, length and ETag, and answers If-None-Match with 304', async () => {
    const { done } = await scrape({ url: `${site.url}/` });
    const hero = heroAsset(done);
    const path = new URL(hero.download_url).pathname;
    const file = await fetch(`${t.url}${path}`, { headers: { 'X-API-Key': t.ownerKey } });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
    expect(Number(file.headers.get('content-length'))).toBe(hero.size);
    expect(Buffer.from(await file.arrayBuffer()).equals(site.images.get('/img/hero.jpg')!)).toBe(true);
    const etag = file.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${t.url}${path}`, { headers: { 'X-API-Key': t.ownerKey, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    const ranged = await fetch(`${t.url}${path}`, { headers: { 'X-API-Key': t.ownerKey, Range: 'bytes=0-9' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 0-9/${hero.size}`);
    expect((await ranged.arrayBuffer()).byteLength).toBe(10);
  });

  it('refuses path tricks and unknown files with 404', async () => {
    const { started } = await scrape({ url: `${site.url}/` });
    for (const name of ['..%2F..%2Fetc%2Fpasswd', 'nope.jpg', '%2e%2e']) {
      const res = await t.request('GET', `/files/${started.body.job_id}/${name}`, { key: t.ownerKey });
      expect(res.status, name).toBe(404);
    }
  });
});

describe('options', () => {
  it('crawls same-site links to crawl_depth and no deeper', async () => {
    const { done } = await scrape({ url: `${site.url}/`, sniper_mode: false, crawl_depth: 2 });
    const paths = names(done);
    expect(paths).toContain('/img/page1.png');
    expect(paths).toContain('/img/page2.png');
    expect(paths).not.toContain('/img/page3.png');
    expect(done.body.progress.pages_fetched).toBe(3);
  });

  it('stops at max_files', async () => {
    const { done } = await scrape({ url: `${site.url}/`, max_files: 2, force: true });
    expect(done.body.assets.count).toBe(2);
  });

  it('applies min_size_kb to the fetched bytes', async () => {
    const { done } = await scrape({ url: `${site.url}/`, min_size_kb: 5, force: true });
    for (const item of done.body.assets.items) expect(item.size).toBeGreaterThanOrEqual(5 * 1024);
    expect(names(done)).not.toContain('/img/tiny.gif');
  });

  it('keeps only URLs containing keyword_filter', async () => {
    const { done } = await scrape({ url: `${site.url}/`, keyword_filter: 'LAZY', force: true });
    expect(names(done)).toEqual(['/img/lazy.webp']);
  });

  it('downloads videos and documents only when asked, judged by their bytes', async () => {
    const { done } = await scrape({ url: `${site.url}/`, download_videos: true, download_docs: true, force: true });
    const byPath = new Map(done.body.assets.items.map((a: { url: string; type: string }) => [new URL(a.url).pathname, a.type]));
    expect(byPath.get('/files/clip.mp4')).toBe('video');
    // disguised.jpg is named .jpg but holds the same PDF bytes as report.pdf: the file is stored
    // once, as a document, under whichever of the two URLs finished downloading first.
    const pdfCopies = ['/files/report.pdf', '/files/disguised.jpg'].filter((path) => byPath.has(path));
    expect(pdfCopies).toHaveLength(1);
    expect(byPath.get(pdfCopies[0]!)).toBe('document');
    const { done: imagesOnly } = await scrape({ url: `${site.url}/files/disguised.jpg`, force: true });
    expect(imagesOnly.body.assets.count).toBe(0);
  });

  it('answers a repeat from the cache without fetching again, unless force is set', async () => {
    const body = { url: `${site.url}/gallery/1`, max_files: 5 };
    const first = await scrape(body);
    const hitsBefore = site.hits.get('/gallery/1');
    const second = await scrape(body);
    expect(second.done.body.cached_from_job_id).toBe(first.started.body.job_id);
    expect(second.done.body.assets.count).toBe(first.done.body.assets.count);
    expect(site.hits.get('/gallery/1')).toBe(hitsBefore);
    const file = await fetch(second.done.body.assets.items[0].download_url, { headers: { 'X-API-Key': t.ownerKey } });
    expect(file.status).toBe(200);
    const forced = await scrape({ ...body, force: true });
    expect(forced.done.body.cached_from_job_id).toBeNull();
    expect(site.hits.get('/gallery/1')).toBe(hitsBefore! + 1);
  });

  it.each([
    [{}, 'url is required: the page to scrape'],
    [{ url: 'ftp://example.com/' }, 'url: expected an absolute http or https URL'],
    [{ url: 'https://example.com', crawl_depth: 3 }, 'crawl_depth: expected an integer from 0 to 2'],
    [{ url: 'https://example.com', max_files: 0 }, 'max_files: expected at least 1'],
    [{ url: 'https://example.com', sniper_mode: 'yes' }, 'sniper_mode: expected true or false (or 1 or 0)'],
  ])('refuses %j with 400', async (body, message) => {
    const res = await t.request('POST', '/api/scrape', { key: t.ownerKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: message });
  });
});

describe('ai_labeling', () => {
  it('labels images with the vision module and names the files after the labels', { timeout: 60_000 }, async () => {
    const { done } = await scrape({ url: `${site.url}/people`, ai_labeling: true });
    expect(done.body.status).toBe('completed');
    const [photo] = done.body.assets.items;
    expect(photo.ai_label.split(',')).toContain('person');
    expect(photo.filename).toMatch(/^person.*\.jpg$/);
    const { done: plain } = await scrape({ url: `${site.url}/people`, force: true });
    expect(plain.body.assets.items[0].ai_label).toBeNull();
  });
});

describe('failures', () => {
  it('refuses a URL whose host is a forbidden address up front (400, no job)', async () => {
    for (const [url, reason] of [
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address'],
      ['http://10.1.2.3/', '10.1.2.3 is a private address'],
      ['http://[::ffff:10.1.2.3]/', '::ffff:a01:203 embeds 10.1.2.3, a private address'],
    ]) {
      const jobCount = async () => (await t.graphql('{ viewer { jobs { totalCount } } }', {}, { key: t.ownerKey })).body.data.viewer.jobs.totalCount as number;
      const before = await jobCount();
      const res = await t.request('POST', '/api/scrape', { key: t.ownerKey, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toBe(`url: refused: ${reason}`);
      expect(await jobCount(), url).toBe(before);
    }
  });

  it('fails the job when the page is too slow', async () => {
    const { done } = await scrape({ url: `${site.url}/slow` });
    expect(done.body).toMatchObject({ status: 'failed', error: expect.stringMatching(/timed out/) });
  });

  it('fails the job when the page answers 404', async () => {
    const { done } = await scrape({ url: `${site.url}/no-such-page` });
    expect(done.body).toMatchObject({ status: 'failed', error: `the page ${site.url}/no-such-page answered HTTP 404` });
  });

  it('fails when robots.txt disallows the page', async () => {
    const { done } = await scrape({ url: `${site.url}/private/secret.png` });
    expect(done.body.error).toMatch(/robots\.txt/);
  });
});

describe('ownership', () => {
  it("answers 404 for another account's job, files and archive", async () => {
    const { started, done } = await scrape({ url: `${site.url}/gallery/3` });
    const other = await t.createAccount('scrape-other');
    const file = new URL(done.body.assets.items[0].download_url).pathname;
    for (const path of [`/api/jobs/${started.body.job_id}`, file, `/download/${started.body.job_id}`]) {
      const res = await t.request('GET', path, { key: other.key });
      expect(res.status, path).toBe(404);
    }
  });
});

describe('with S3-compatible storage', () => {
  it('stores a scrape in the bucket and serves its files and ZIP from there', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const yauzl = await import('yauzl');
    const { startS3rver } = await import('../helpers/s3.js');
    const dir = mkdtempSync(join(tmpdir(), 'scrape-s3-'));
    const s3 = await startS3rver(dir, 'assets');
    const app = await startTestApp({
      fetch: LOCAL_FETCH,
      s3: { bucket: 'assets', endpoint: `http://127.0.0.1:${s3.port}`, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, prefix: 'scrapes/' },
      jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 },
    });
    try {
      const started = await app.request('POST', '/api/scrape', { key: app.ownerKey, body: { url: `${site.url}/` } });
      const done = await waitForJob(app, app.ownerKey, started.body.job_id);
      expect(done.body.assets.count).toBeGreaterThan(5);
      const keys: string[] = [];
      for await (const blob of app.app.services.blobs.list(`jobs/${started.body.job_id}/`)) keys.push(blob.key);
      expect(keys).toHaveLength(done.body.assets.count);
      const hero = heroAsset(done);
      const file = await fetch(hero.download_url, { headers: { 'X-API-Key': app.ownerKey } });
      expect(Buffer.from(await file.arrayBuffer()).equals(site.images.get('/img/hero.jpg')!)).toBe(true);
      const zip = Buffer.from(await (await fetch(`${app.url}/download/${started.body.job_id}`, { headers: { 'X-API-Key': app.ownerKey } })).arrayBuffer());
      const names = await new Promise<string[]>((resolve, reject) => {
        yauzl.fromBuffer(zip, { lazyEntries: true }, (error, archive) => {
          if (error) return reject(error);
          const found: string[] = [];
          archive.on('entry', (entry: { fileName: string }) => {
            found.push(entry.fileName);
            archive.readEntry();
          });
          archive.on('end', () => resolve(found));
          archive.readEntry();
        });
      });
      expect(names.sort()).toEqual(done.body.assets.items.map((a: { filename: string }) => a.filename).sort());
    } finally {
      await app.stop();
      await s3.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
