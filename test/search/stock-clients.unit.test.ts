// The four stock library clients against fake APIs in each real API's documented shape: what each
// sends (path, key in the documented place, page size capped, orientation mapped), how each answer
// maps to a StockImage, and how each failure (401, 429, 5xx, malformed JSON, no list, late) becomes
// a StockError; then StockSearchService: libraries asked together, one that fails or is late leaves
// the others' images, images taken in turn, each URL once, orientation kept.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OpenverseClient } from '../../src/modules/search/stock/openverse.client.js';
import { UnsplashClient } from '../../src/modules/search/stock/unsplash.client.js';
import { PexelsClient } from '../../src/modules/search/stock/pexels.client.js';
import { PixabayClient } from '../../src/modules/search/stock/pixabay.client.js';
import { StockError } from '../../src/modules/search/stock/stock-http.js';
import { StockSearchService, stockClientsFromConfig } from '../../src/modules/search/index.js';
import type { StockClient } from '../../src/modules/search/index.js';
import { FAKE_STOCK_KEYS, fakeSearchConfig, startFakeStock, type FakeLibrary, type FakeStock } from '../fixtures/stock/fake-stock.js';

let fake: FakeStock;
beforeAll(async () => {
  fake = await startFakeStock();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const signal = () => AbortSignal.timeout(1_000);
function clients(): Record<FakeLibrary, StockClient> {
  return {
    openverse: new OpenverseClient({ baseUrl: fake.baseUrls.openverse }),
    unsplash: new UnsplashClient({ accessKey: FAKE_STOCK_KEYS.unsplash, baseUrl: fake.baseUrls.unsplash }),
    pexels: new PexelsClient({ apiKey: FAKE_STOCK_KEYS.pexels, baseUrl: fake.baseUrls.pexels }),
    pixabay: new PixabayClient({ apiKey: FAKE_STOCK_KEYS.pixabay, baseUrl: fake.baseUrls.pixabay }),
  };
}

describe('each client', () => {
  it('Openverse: GET /v1/images/ with q, page_size at most 20, aspect_ratio; maps url, title, landing page and attribution', async () => {
    const images = await clients().openverse.search({ query: 'red fox', limit: 50, orientation: 'landscape', signal: signal() });
    expect(fake.requests.openverse[0]!.query).toEqual({ q: 'red fox', page_size: '20', aspect_ratio: 'wide', mature: 'false' });
    expect(images).toHaveLength(20);
    expect(images[0]).toEqual({
      url: 'https://img.openverse.example/red%20fox/0.jpg',
      title: 'red fox openverse 0',
      source: 'openverse',
      width: 1200,
      height: 800,
      pageUrl: 'https://www.flickr.com/photos/x/0',
      attribution: '"red fox openverse 0" by Ada is licensed under CC BY 2.0.',
    });
    await clients().openverse.search({ query: 'fox', limit: 3, orientation: 'portrait', signal: signal() });
    await clients().openverse.search({ query: 'fox', limit: 3, orientation: 'square', signal: signal() });
    await clients().openverse.search({ query: 'fox', limit: 3, orientation: 'all', signal: signal() });
    expect(fake.requests.openverse.slice(1).map((r) => r.query.aspect_ratio)).toEqual(['tall', 'square', undefined]);
  });

  it('Unsplash: GET /search/photos with Client-ID and Accept-Version v1, per_page at most 30, squarish; description or alt_description as the title', async () => {
    const images = await clients().unsplash.search({ query: 'harbour', limit: 40, orientation: 'square', signal: signal() });
    const sent = fake.requests.unsplash[0]!;
    expect(sent.query).toEqual({ query: 'harbour', per_page: '30', orientation: 'squarish', content_filter: 'high' });
    expect(sent.headers.authorization).toBe(`Client-ID ${FAKE_STOCK_KEYS.unsplash}`);
    expect(sent.headers['accept-version']).toBe('v1');
    expect(images).toHaveLength(30);
    expect(images[0]).toMatchObject({ url: 'https://img.unsplash.example/harbour/0.jpg', title: 'alt harbour unsplash 0', source: 'unsplash', pageUrl: 'https://unsplash.com/photos/us0', attribution: 'Photo by Grace Hopper on Unsplash' });
    expect(images[1]!.title).toBe('harbour unsplash 1');
  });

  it('Pexels: GET /v1/search with the key as Authorization, per_page at most 80, orientation as is; src.large, alt, photographer', async () => {
    const images = await clients().pexels.search({ query: 'bridge', limit: 100, orientation: 'portrait', signal: signal() });
    const sent = fake.requests.pexels[0]!;
    expect(sent.query).toEqual({ query: 'bridge', per_page: '80', orientation: 'portrait' });
    expect(sent.headers.authorization).toBe(FAKE_STOCK_KEYS.pexels);
    expect(images).toHaveLength(80);
    expect(images[2]).toEqual({
      url: 'https://img.pexels.example/bridge/2.jpg',
      title: 'bridge pexels 2',
      source: 'pexels',
      width: 800,
      height: 1200,
      pageUrl: 'https://www.pexels.com/photo/1002/',
      attribution: 'Photo by Alan Turing on Pexels',
    });
  });

  it('Pixabay: GET /api/ with key, image_type photo, horizontal/vertical, per_page 3 to 200, q cut to 100 characters; tags as the title', async () => {
    const long = 'x'.repeat(150);
    const images = await clients().pixabay.search({ query: long, limit: 1, orientation: 'landscape', signal: signal() });
    expect(fake.requests.pixabay[0]!.query).toEqual({ key: FAKE_STOCK_KEYS.pixabay, q: 'x'.repeat(100), image_type: 'photo', orientation: 'horizontal', per_page: '3', safesearch: 'true' });
    expect(images[0]).toMatchObject({ source: 'pixabay', title: `${'x'.repeat(100)}, pixabay, 0`, pageUrl: 'https://pixabay.com/photos/x-2000/', attribution: 'Image by Linus on Pixabay' });
    // No square in Pixabay: all orientations, more of them, filtered by the service.
    await clients().pixabay.search({ query: 'cat', limit: 10, orientation: 'square', signal: signal() });
    expect(fake.requests.pixabay[1]!.query).toMatchObject({ orientation: 'all', per_page: '40' });
    await clients().pixabay.search({ query: 'cat', limit: 100, orientation: 'portrait', signal: signal() });
    expect(fake.requests.pixabay[2]!.query).toMatchObject({ orientation: 'vertical', per_page: '100' });
  });

  it.each(['openverse', 'unsplash', 'pexels', 'pixabay'] as const)('%s: every failure is a StockError that names the library and never the key', async (library) => {
    const cases: Array<[FakeStock['behaviour'][FakeLibrary], string]> = [
      ['status429', 'rate_limited'],
      ['status500', 'http'],
      ['malformed', 'malformed'],
      ['noList', 'malformed'],
    ];
    if (library !== 'openverse') cases.push(['status401', library === 'pixabay' ? 'http' : 'unauthorized']);
    for (const [behaviour, failure] of cases) {
      fake.behaviour[library] = behaviour;
      const error = await clients()[library].search({ query: 'q', limit: 5, orientation: 'all', signal: signal() }).catch((e: unknown) => e);
      expect(error, behaviour).toBeInstanceOf(StockError);
      expect((error as StockError).failure, behaviour).toBe(failure);
      expect((error as StockError).message).toContain(library);
      for (const key of Object.values(FAKE_STOCK_KEYS)) expect((error as StockError).message).not.toContain(key);
    }
    fake.behaviour[library] = 'slow';
    fake.slowMs = 500;
    const late = await clients()[library].search({ query: 'q', limit: 5, orientation: 'all', signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect((late as StockError).failure).toBe('timeout');
  });

  it('passes on only http(s) image links: javascript: and data: URLs in an answer are dropped', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results: [{ url: 'javascript:alert(1)' }, { url: 'data:image/png;base64,AAAA' }, { url: 'https://ok.example/a.jpg', title: 7 }] })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address() as { port: number };
    const images = await new OpenverseClient({ baseUrl: `http://127.0.0.1:${address.port}/v1` }).search({ query: 'q', limit: 5, orientation: 'all', signal: signal() });
    server.close();
    expect(images).toEqual([{ url: 'https://ok.example/a.jpg', title: 'Untitled', source: 'openverse', width: undefined, height: undefined, pageUrl: undefined, attribution: undefined }]);
  });
});

describe('StockSearchService', () => {
  const service = (timeoutMs = 1_000) => new StockSearchService(stockClientsFromConfig(fakeSearchConfig(fake, timeoutMs)), { timeoutMs });

  it('asks every configured library at once and takes their images in turn, each URL once', async () => {
    const started = Date.now();
    const result = await service().search('lake', { limit: 6 });
    expect(Date.now() - started).toBeLessThan(900);
    expect(result.answered).toEqual(['openverse', 'unsplash', 'pexels', 'pixabay']);
    expect(result.failed).toEqual([]);
    expect(result.images.map((i) => i.source)).toEqual(['openverse', 'unsplash', 'pexels', 'pixabay', 'openverse', 'unsplash']);
    expect(new Set(result.images.map((i) => i.url)).size).toBe(6);
  });

  it('leaves out a library that fails or is late, keeping the others, within the deadline', async () => {
    fake.behaviour.unsplash = 'status429';
    fake.behaviour.pexels = 'slow';
    fake.behaviour.pixabay = 'malformed';
    fake.slowMs = 3_000;
    const started = Date.now();
    const result = await service(400).search('lake', { limit: 5 });
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(380);
    expect(elapsed).toBeLessThan(1_500);
    expect(result.answered).toEqual(['openverse']);
    expect(result.failed).toEqual(['unsplash', 'pexels', 'pixabay']);
    expect(result.images).toHaveLength(5);
    expect(result.images.every((i) => i.source === 'openverse')).toBe(true);
  });

  it('stops when the caller aborts, and refuses a limit out of range', async () => {
    fake.behaviour.openverse = 'slow';
    fake.behaviour.unsplash = 'slow';
    fake.behaviour.pexels = 'slow';
    fake.behaviour.pixabay = 'slow';
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await service(5_000).search('lake', { limit: 5, signal: controller.signal });
    expect(result).toEqual({ images: [], answered: [], failed: ['openverse', 'unsplash', 'pexels', 'pixabay'] });
    await expect(service().search('lake', { limit: 0 })).rejects.toThrow(/limit/);
    await expect(service().search('lake', { limit: 201 })).rejects.toThrow(/limit/);
  });

  it('keeps only images of the orientation asked for, and asks nothing for an empty query or without libraries', async () => {
    const result = await service().search('lake', { limit: 8, orientation: 'portrait' });
    expect(result.images.length).toBe(8);
    expect(result.images.every((i) => i.height! > i.width!)).toBe(true);
    expect(await service().search('   ', { limit: 5 })).toEqual({ images: [], answered: [], failed: [] });
    expect(await new StockSearchService([], { timeoutMs: 100 }).search('lake', { limit: 5 })).toEqual({ images: [], answered: [], failed: [] });
    expect(fake.requests.openverse).toHaveLength(1);
  });
});
