// ReplaceFlow's parts on their own: the stock keywords, the demo's address key, quality_score, the
// watermark detector on a few pairs, and the Google web-detection client against its fake.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keywordsOf } from '../../src/modules/replaceflow/keywords.js';
import { addressKey, qualityScore } from '../../src/modules/replaceflow/replaceflow.service.js';
import { compareMarks, GoogleWebDetection } from '../../src/modules/replaceflow/index.js';
import { photoScene, republished, watermarked } from '../fixtures/replaceflow/photos.js';
import { startFakeGoogleVision, type FakeGoogleVision } from '../fixtures/replaceflow/site.js';

describe('keywordsOf', () => {
  it.each([
    ['Storm floods the harbour at dawn | Example Gazette', 'storm floods harbour dawn'],
    ['Watch: The 10 best beaches in Portugal - Travel News', 'best beaches portugal'],
    ["Scientists say the world's oldest tree is 5,000 years old", 'scientists world oldest tree years old'],
    ['Präsident besucht Köln — Nachrichten', 'präsident besucht köln'],
    ['', ''],
    ['The of and a', ''],
  ])('%s -> %s', (headline, expected) => {
    expect(keywordsOf(headline)).toBe(expected);
  });

  it('keeps at most 8 words', () => {
    expect(keywordsOf('alpha bravo charlie delta echo foxtrot golf hotel india juliet').split(' ')).toHaveLength(8);
  });
});

describe('addressKey', () => {
  it('counts IPv4 as is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64, and anything else as unknown', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2::99')).toBe(addressKey('2001:db8:1:2:ffff::1'));
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('not an address')).toBe('unknown');
  });
});

describe('qualityScore', () => {
  it('weighs similarity, resolution and cleanliness into 0..100', () => {
    expect(qualityScore({ distance: 0, source: 'google_full_match', isWatermarked: false, pixels: 100, leadPixels: 100 })).toBe(100);
    expect(qualityScore({ distance: 0, source: 'google_full_match', isWatermarked: true, pixels: 100, leadPixels: 100 })).toBe(80);
    expect(qualityScore({ distance: 40, source: 'stock:x', isWatermarked: false, pixels: 50, leadPixels: 100 })).toBe(33);
    expect(qualityScore({ source: 'stock:x', isWatermarked: false, pixels: null, leadPixels: 100 })).toBe(44);
    expect(qualityScore({ source: 'google_full_match', isWatermarked: false, pixels: null, leadPixels: 100 })).toBe(82);
  });
});

describe('compareMarks', () => {
  let base: Buffer;
  beforeAll(async () => {
    base = await photoScene(5, 800, 533);
  });

  it('flags the copy that carries a text watermark, whichever side it is on', async () => {
    const marked = await watermarked(base, { kind: 'text', opacity: 0.6, position: 'bottom-right' });
    const clean = await republished(base, { width: 640, format: 'webp', quality: 60 });
    expect(await compareMarks(marked, clean, 40_000_000)).toMatchObject({ firstMarked: true, secondMarked: false, identical: false });
    expect(await compareMarks(clean, marked, 40_000_000)).toMatchObject({ firstMarked: false, secondMarked: true });
  });

  it('flags nothing between two clean copies, or a marked image and its recompressed copy', async () => {
    const a = await republished(base, { width: 700, format: 'jpeg', quality: 80 });
    const b = await republished(base, { width: 600, format: 'webp', quality: 55 });
    expect(await compareMarks(a, b, 40_000_000)).toMatchObject({ firstMarked: false, secondMarked: false });
    const marked = await watermarked(base, { kind: 'logo', opacity: 0.5, position: 'bottom-left' });
    expect(await compareMarks(marked, await republished(marked, { width: 640, format: 'jpeg', quality: 70 }), 40_000_000)).toMatchObject({ firstMarked: false, secondMarked: false, identical: true });
  });
});

describe('GoogleWebDetection', () => {
  let fake: FakeGoogleVision;
  beforeAll(async () => {
    fake = await startFakeGoogleVision('k1', () => ({
      fullMatchingImages: [{ url: 'https://a.example/full.jpg' }, { url: 'javascript:alert(1)' }],
      partialMatchingImages: [{ url: 'https://a.example/partial.jpg' }],
      pagesWithMatchingImages: [{ url: 'https://page.example/story', partialMatchingImages: [{ url: 'https://page.example/crop.jpg' }] }],
      visuallySimilarImages: [{ url: 'https://b.example/similar.jpg', score: 0.3 }],
    }));
  });
  afterAll(() => fake.close());
  const client = (apiKey = 'k1') => new GoogleWebDetection({ apiKey, baseUrl: fake.baseUrl, timeoutMs: 5_000, maxResults: 5 });

  it('reads the documented lists, full matches first, and drops what is not an http URL', async () => {
    fake.mode = 'ok';
    expect(await client().find(Buffer.from('image'))).toEqual([
      { url: 'https://a.example/full.jpg', kind: 'google_full_match' },
      { url: 'https://page.example/crop.jpg', kind: 'google_page_match', pageUrl: 'https://page.example/story' },
      { url: 'https://a.example/partial.jpg', kind: 'google_partial_match' },
      { url: 'https://b.example/similar.jpg', kind: 'google_similar' },
    ]);
    expect(fake.requests.at(-1)!.body.requests[0]).toEqual({ image: { content: Buffer.from('image').toString('base64') }, features: [{ type: 'WEB_DETECTION', maxResults: 5 }] });
  });

  it('throws a ProviderError, without the key in it, for a refused key, an HTTP error and an error in the body', async () => {
    await expect(client('wrong-key').find(Buffer.from('x'))).rejects.toMatchObject({ name: 'ProviderError', failure: 'http', upstreamStatus: 403 });
    fake.mode = 'http-error';
    await expect(client().find(Buffer.from('x'))).rejects.toMatchObject({ failure: 'http', message: 'google_vision answered HTTP 503' });
    fake.mode = 'error-body';
    const error = (await client().find(Buffer.from('x')).catch((e: unknown) => e)) as Error & { detail?: string };
    expect(error).toMatchObject({ failure: 'upstream', message: 'google_vision refused the image (code 3)' });
    expect(JSON.stringify({ ...error, message: error.message })).not.toContain('k1');
    fake.mode = 'empty';
    expect(await client().find(Buffer.from('x'))).toEqual([]);
  });
});
