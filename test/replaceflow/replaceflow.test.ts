// POST /api/replaceflow end to end: a local news site whose featured photo carries a watermark, the
// places the photo was republished (served on 127.0.0.1), a fake of Google Vision's web detection,
// our own image index and library, and an injected stock search.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { KeywordImageSearch } from '../../src/modules/replaceflow/index.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form } from '../helpers/images.js';
import { HEADLINE, startFakeGoogleVision, startReplaceFlowSite, type FakeGoogleVision, type ReplaceFlowSite } from '../fixtures/replaceflow/site.js';

const API_KEY = 'test-google-key-not-real';
let t: TestApp;
let site: ReplaceFlowSite;
let google: FakeGoogleVision;
let stockQueries: string[];

/** Google's answer: the clean copies, the marked copy, a page showing the photo, similar images (one unrelated, some we must not fetch). */
const googleMatches = () => ({
  fullMatchingImages: [{ url: `${site.url}/copies/harbour-clean.jpg` }, { url: `${site.url}/img/harbour-storm.jpg` }],
  partialMatchingImages: [{ url: `${site.url}/copies/harbour-marked.jpg` }],
  pagesWithMatchingImages: [{ url: `${site.url}/elsewhere/story`, pageTitle: 'Storm <b>harbour</b>', fullMatchingImages: [{ url: `${site.url}/copies/harbour-clean.webp` }] }],
  visuallySimilarImages: [
    { url: `${site.url}/other/unrelated.jpg` },
    { url: 'http://169.254.169.254/latest/meta-data/photo.jpg' },
    { url: 'http://127.0.0.2:9/private.jpg' },
    { url: 'http://localhost:9/private.jpg' },
    { url: 'ftp://files.example/photo.jpg' },
  ],
});

const stock: KeywordImageSearch = async (keywords, options) => {
  stockQueries.push(keywords);
  expect(options.limit).toBeGreaterThan(0);
  return [
    { url: `${site.url}/other/unrelated.jpg`, title: 'Unrelated', source: 'fakestock' },
    { url: `${site.url}/copies/harbour-clean.webp`, title: 'Harbour', source: 'fakestock', width: 720, height: 480 },
  ];
};

beforeAll(async () => {
  site = await startReplaceFlowSite();
  google = await startFakeGoogleVision(API_KEY, googleMatches);
  const defaults = loadConfig({});
  t = await startTestApp({ fetch: LOCAL_FETCH, vision: { ...defaults.vision, googleVision: { apiKey: API_KEY, baseUrl: google.baseUrl } } });
  t.app.services.replaceflow.useStockSearch(stock);
});
afterAll(async () => {
  await t.stop();
  await site.close();
  await google.close();
});
beforeEach(() => {
  google.mode = 'ok';
  stockQueries = [];
});

const run = (body: unknown, key: string | undefined = t.ownerKey) => t.request('POST', '/api/replaceflow', { key, body });
const article = `/news/harbour`;

type Entry = { type: string; url: string; is_watermarked: boolean; phash_match?: boolean; phash_distance?: number; source?: string; quality_score?: number };

describe('POST /api/replaceflow with Google web detection', () => {
  it('finds the clean copies, ranks them first, flags the watermarked ones and leaves out what it may not fetch', async () => {
    const res = await run({ article_url: site.url + article, max_results: 10 });
    expect(res.status, res.text).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'headline', 'source_domain', 'watermarked_url', 'phash_enabled', 'count', 'results', 'searched']);
    expect(res.body).toMatchObject({ success: true, headline: HEADLINE, source_domain: '127.0.0.1', watermarked_url: `${site.url}/img/harbour-storm.jpg`, phash_enabled: true });
    const results = res.body.results as Entry[];
    expect(res.body.count).toBe(results.length);
    expect(results[0]).toMatchObject({ type: 'source_lead', url: `${site.url}/img/harbour-storm.jpg`, is_watermarked: true, headline: HEADLINE, source: 'og_meta', phash_distance: 0, phash_match: true, width: 800, height: 533 });
    expect(results[0]).not.toHaveProperty('quality_score');
    const discoveries = results.slice(1);
    expect(discoveries.every((r) => r.type === 'clean_discovery' && Number.isInteger(r.quality_score) && !('headline' in r))).toBe(true);
    const byUrl = new Map(discoveries.map((r) => [r.url.replace(site.url, ''), r]));
    // The clean copies: the same photo, no watermark, first.
    expect(discoveries.slice(0, 2).map((r) => r.url.replace(site.url, '')).sort()).toEqual(['/copies/harbour-clean.jpg', '/copies/harbour-clean.webp']);
    for (const path of ['/copies/harbour-clean.jpg', '/copies/harbour-clean.webp']) expect(byUrl.get(path)).toMatchObject({ phash_match: true, is_watermarked: false });
    expect(byUrl.get('/copies/harbour-clean.jpg')!.source).toBe('google_full_match');
    expect(byUrl.get('/copies/harbour-clean.webp')).toMatchObject({ source: 'google_page_match', page_url: `${site.url}/elsewhere/story` });
    // The recompressed watermarked copy is the same photo but not clean; the unrelated photo is not the same photo.
    expect(byUrl.get('/copies/harbour-marked.jpg')).toMatchObject({ phash_match: true, is_watermarked: true });
    expect(byUrl.get('/other/unrelated.jpg')).toMatchObject({ phash_match: false });
    expect(byUrl.get('/other/unrelated.jpg')!.phash_distance).toBeGreaterThan(10);
    for (const r of results) expect(r).toMatchObject({ phash: expect.stringMatching(/^[0-9a-f]{16}$/) });
    // The lead itself is not a discovery; refused addresses were never asked for.
    expect(byUrl.has('/img/harbour-storm.jpg')).toBe(false);
    expect(discoveries.some((r) => /169\.254|127\.0\.0\.2|localhost|ftp:/.test(r.url))).toBe(false);
    expect(res.body.searched).toEqual([
      { tier: 'google_vision', status: 'ok', found: 8 },
      { tier: 'local_index', status: 'ok', found: 0 },
      { tier: 'library', status: 'ok', found: 0 },
      { tier: 'stock', status: 'skipped', found: 0 },
    ]);
    // Google got the image itself, asked for web detection, with the key in its header.
    const sent = google.requests.at(-1)!;
    expect(sent.key).toBe(API_KEY);
    expect(sent.body.requests[0]!.features).toEqual([{ type: 'WEB_DETECTION', maxResults: 20 }]);
    expect(Buffer.from(sent.body.requests[0]!.image.content!, 'base64').subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
  });

  it('answers at most max_results discoveries (default 4) and refuses 0 and 11 naming the field', async () => {
    const two = await run({ article_url: site.url + article, max_results: 2 });
    expect(two.body.results).toHaveLength(3);
    expect(two.body.count).toBe(3);
    const fallback = await run({ article_url: site.url + article });
    expect(fallback.body.results).toHaveLength(5);
    for (const max_results of [0, 11, 2.5, 'three', -1, null, 1e12]) {
      const refused = await run({ article_url: site.url + article, max_results });
      expect(refused.status, JSON.stringify(max_results)).toBe(400);
      expect(refused.body).toEqual({ success: false, error: max_results === 1e12 ? 'max_results: expected an integer from -2147483648 to 2147483647' : 'max_results: expected an integer from 1 to 10' });
    }
  });

  it('with phash false, fetches no candidate and answers without hashes', async () => {
    const before = site.hits.get('/copies/harbour-clean.jpg') ?? 0;
    const res = await run({ article_url: site.url + article, phash: false });
    expect(res.status, res.text).toBe(200);
    expect(res.body.phash_enabled).toBe(false);
    expect(site.hits.get('/copies/harbour-clean.jpg') ?? 0).toBe(before);
    for (const r of res.body.results as Entry[]) {
      expect(r).not.toHaveProperty('phash');
      expect(r).not.toHaveProperty('phash_distance');
      expect(r).not.toHaveProperty('phash_match');
    }
    expect(res.body.results[1]).toMatchObject({ type: 'clean_discovery', url: `${site.url}/copies/harbour-clean.jpg`, source: 'google_full_match' });
  });

  it.each(['http-error', 'error-body'] as const)('falls back to the local index and stock when Google answers an error (%s)', async (mode) => {
    // The clean copy is in the community library: the local index finds it by its image object.
    const contributed = await t.request('POST', '/api/community/contribute', { key: t.ownerKey, form: form({ body: site.images.clean, name: 'harbour.jpg', type: 'image/jpeg' }) });
    expect([200, 201]).toContain(contributed.status);
    google.mode = mode;
    const res = await run({ article_url: site.url + article });
    expect(res.status, res.text).toBe(200);
    expect(res.body.searched[0]).toEqual({ tier: 'google_vision', status: 'failed', found: 0 });
    expect(res.body.searched[1]).toMatchObject({ tier: 'local_index', status: 'ok' });
    expect(res.body.searched[1].found).toBeGreaterThanOrEqual(1);
    expect(res.body.searched[3]).toEqual({ tier: 'stock', status: 'ok', found: 2 });
    expect(stockQueries).toEqual(['storm floods harbour dawn']);
    const discoveries = res.body.results.slice(1) as Entry[];
    const community = discoveries.find((r) => r.source === 'community')!;
    expect(community).toMatchObject({ phash_match: true, is_watermarked: false });
    expect(community.url).toMatch(new RegExp(`^${t.url}/community/\\d+/public\\?v=`));
    // The signed link serves the file without a key.
    expect((await fetch(community.url)).status).toBe(200);
    expect(discoveries.find((r) => r.source === 'stock:fakestock' && r.url.endsWith('/copies/harbour-clean.webp'))).toMatchObject({ phash_match: true });
  });

  it('falls back to stock when reverse search finds nothing', async () => {
    google.mode = 'empty';
    // A photo nobody has (the harbour photo is in the community library by now).
    const res = await run({ article_url: `${site.url}/news/unrelated` });
    expect(res.status, res.text).toBe(200);
    expect(res.body.searched).toEqual([
      { tier: 'google_vision', status: 'ok', found: 0 },
      { tier: 'local_index', status: 'ok', found: 0 },
      { tier: 'library', status: 'ok', found: 0 },
      { tier: 'stock', status: 'ok', found: 2 },
    ]);
    expect(stockQueries).toEqual(['quiet meadow evening']);
    // The stock's first hit is the lead itself, which is never a discovery; the harbour photo is another photo.
    expect(res.body.results.slice(1).map((r: Entry) => [r.url.replace(site.url, ''), r.phash_match])).toEqual([['/copies/harbour-clean.webp', false]]);
  });
});

describe('the source lead', () => {
  it('takes the poster of a video, never the .mp4, and skips a measured 1x1 pixel', async () => {
    const video = await run({ article_url: `${site.url}/news/video`, phash: false });
    expect(video.status, video.text).toBe(200);
    expect(video.body.watermarked_url).toBe(`${site.url}/img/harbour-storm.jpg`);
    expect(video.body.results[0].source).toBe('img_tag');
    const pixel = await run({ article_url: `${site.url}/news/pixel`, phash: false });
    expect(pixel.status, pixel.text).toBe(200);
    expect(pixel.body.watermarked_url).toBe(`${site.url}/img/harbour-storm.jpg`);
    expect(pixel.body.results[0].source).toBe('twitter_meta');
  });

  it('refuses a page without a readable image, a missing page, and addresses it may not fetch, naming article_url', async () => {
    const none = await run({ article_url: `${site.url}/news/no-image` });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatch(/^article_url: the page has no featured image/);
    const missing = await run({ article_url: `${site.url}/news/gone` });
    expect(missing).toMatchObject({ status: 400, body: { success: false, error: `the page ${site.url}/news/gone answered HTTP 404` } });
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.2/news', 'http://[::1]/news', 'http://user:pw@example.com/a']) {
      const refused = await run({ article_url: url });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error).toMatch(/^article_url: refused to fetch/);
    }
    for (const [body, message] of [
      [{}, 'article_url is required: the full URL of the article page'],
      [{ article_url: '' }, 'article_url is required: the full URL of the article page'],
      [{ article_url: 'ftp://example.com/a' }, 'article_url: expected an absolute http or https URL'],
      [{ article_url: `https://example.com/${'a'.repeat(3000)}` }, 'article_url: expected at most 2048 characters'],
      [{ article_url: 42 }, 'article_url is required: the full URL of the article page'],
      [{ article_url: `${site.url}${article}`, phash: 'yes' }, 'phash: expected true or false'],
    ] as const) {
      const res = await run(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe(message);
    }
  });
});

describe('keys and scopes', () => {
  it('needs a key (401), a sub-key needs the search scope (403), and the library searched is the caller own', async () => {
    const anonymous = await t.request('POST', '/api/replaceflow', { body: { article_url: site.url + article } });
    expect(anonymous).toMatchObject({ status: 401, body: { success: false } });
    const owner = await t.createAccount('rf-owner');
    const scrapeOnly = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes: 'scrape,media,generate' } });
    const refused = await run({ article_url: site.url + article, phash: false }, scrapeOnly.body.sub_key);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/'search' scope/);
    const searchOnly = await t.request('POST', '/api/platform/sub-keys', { key: owner.key, body: { scopes: 'search' } });
    // The clean webp in the owner's library: found by pHash for the owner, never for another account.
    const uploaded = await t.request('POST', '/api/media/upload', { key: owner.key, form: form({ body: site.images.cleanWebp, name: 'mine.webp', type: 'image/webp' }) });
    expect(uploaded.status).toBe(201);
    google.mode = 'empty';
    const mine = await run({ article_url: site.url + article }, searchOnly.body.sub_key);
    expect(mine.status, mine.text).toBe(200);
    const library = (mine.body.results as Entry[]).find((r) => r.source === 'library');
    expect(library).toMatchObject({ phash_match: true, is_watermarked: false });
    expect(library!.url).toMatch(new RegExp(`^${t.url}/media/${uploaded.body.media_id}/original\\?v=`));
    const stranger = await t.createAccount('rf-stranger');
    const theirs = await run({ article_url: site.url + article }, stranger.key);
    expect((theirs.body.results as Entry[]).some((r) => r.source === 'library')).toBe(false);
    expect(theirs.body.searched[2]).toEqual({ tier: 'library', status: 'ok', found: 0 });
  });

  it('runs over GraphQL with the same answer', async () => {
    const res = await t.graphql(
      'mutation($u: String!) { replaceFlow(articleUrl: $u, maxResults: 1, phash: false) { __typename ... on MutationReplaceFlowSuccess { data { watermarkedUrl count results { type url } } } } }',
      { u: site.url + article },
      { key: t.ownerKey },
    );
    expect(res.body.data.replaceFlow.data).toMatchObject({ watermarkedUrl: `${site.url}/img/harbour-storm.jpg`, count: 2 });
  });
});
