// The extractor never offers a video file or a tracking endpoint, takes a video's poster instead,
// drops og:images declared 1x1 or of a video type, and reads the page's headline.
import { describe, expect, it } from 'vitest';
import { extractArticle } from '../../src/modules/featured/featured.extractor.js';
import { TRACKING_ENDPOINTS } from '../../src/modules/featured/extraction/url-screening.js';

const PAGE = 'https://news.example/2024/story';
const page = (head: string, body = '') => `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
const urls = (html: string) => extractArticle(html, PAGE).candidates.map((c) => c.url);

describe('videos', () => {
  it.each(['mp4', 'm4v', 'mov', 'webm', 'm3u8', 'MP4'])('refuses an og:image ending in .%s, whatever the source', (ext) => {
    const html = page(`<meta property="og:image" content="https://cdn.example/clip.${ext}">`, `<img src="/clip.${ext}" width="800"><img data-src="/lazy.${ext}" class="hero">`);
    expect(urls(html)).toEqual([]);
  });

  it("takes a <video>'s poster, scored as an img tag, and keeps the og:image beside an og:video", () => {
    const html = page('<meta property="og:video" content="https://cdn.example/clip.mp4"><meta property="og:image" content="https://cdn.example/still.jpg">', '<article><video class="hero" poster="/poster.jpg" src="/clip.mp4" width="1280"></video></article>');
    const { candidates } = extractArticle(html, PAGE);
    expect(candidates).toEqual([
      { url: 'https://cdn.example/still.jpg', score: 100, source: 'og_meta' },
      { url: 'https://news.example/poster.jpg', score: 85, source: 'img_tag' },
    ]);
  });

  it('drops an og:image whose og:image:type is a video', () => {
    const html = page('<meta property="og:image" content="https://cdn.example/clip?id=3"><meta property="og:image:type" content="video/mp4"><meta property="og:image" content="https://cdn.example/still.jpg">');
    expect(urls(html)).toEqual(['https://cdn.example/still.jpg']);
  });
});

describe('tracking pixels', () => {
  it('drops og:images declared 1x1, and img tags of 1 or 2 px', () => {
    const html = page(
      '<meta property="og:image" content="https://cdn.example/t.gif"><meta property="og:image:width" content="1"><meta property="og:image:height" content="1"><meta property="og:image" content="https://cdn.example/real.jpg"><meta property="og:image:width" content="1200">',
      '<img src="/p.gif" width="1" height="1"><img src="/q.png" height="2px">',
    );
    expect(urls(html)).toEqual(['https://cdn.example/real.jpg']);
  });

  it.each([
    'https://www.facebook.com/tr?id=1&ev=PageView',
    'https://facebook.com/tr/?id=1',
    'https://www.google-analytics.com/collect?v=1',
    'https://stats.g.doubleclick.net/r/collect?v=1',
    'https://sb.scorecardresearch.com/p?c1=2',
    'https://pixel.quantserve.com/pixel/p-1.gif',
    'https://bat.bing.com/action/0?ti=1',
    'https://px.ads.linkedin.com/collect/?pid=1',
    'https://t.co/i/adsct?txn_id=1',
    'https://mc.yandex.ru/watch/1',
    'https://metrics.example.com/b/ss/suite/1/JS-2/s1',
    'https://shop.example/__utm.gif?utmwv=1',
    'https://shop.example/beacon',
    'https://shop.example/api/impression',
  ])('never offers %s, even as og:image', (url) => {
    const html = page(`<meta property="og:image" content="${url.replace(/&/g, '&amp;')}">`, `<article><img src="${url.replace(/&/g, '&amp;')}"></article>`);
    expect(urls(html)).toEqual([]);
  });

  it('keeps photos whose names only look like tracking words', () => {
    const html = page('', '<article><img src="/photos/race-track.jpg"><img src="/img/track.jpg"><img src="https://facebook.com/trees.jpg"><img src="https://notfacebook.com/tr.jpg"></article>');
    expect(urls(html)).toEqual(['https://news.example/photos/race-track.jpg', 'https://news.example/img/track.jpg', 'https://facebook.com/trees.jpg', 'https://notfacebook.com/tr.jpg']);
  });

  it('documents each entry of its list as a host (and path)', () => {
    for (const entry of TRACKING_ENDPOINTS) expect(entry.host).toMatch(/^[a-z0-9.-]+\.[a-z]+$/);
  });
});

describe('headline', () => {
  it('prefers og:title, then twitter:title, JSON-LD headline, the first h1, then <title>', () => {
    expect(extractArticle(page('<title>T</title><meta property="og:title" content="OG &amp; more"><meta name="twitter:title" content="TW">', '<h1>H</h1>'), PAGE).headline).toBe('OG & more');
    expect(extractArticle(page('<title>T</title><meta name="twitter:title" content="TW">', '<h1>H</h1>'), PAGE).headline).toBe('TW');
    expect(extractArticle(page('<title>T</title><script type="application/ld+json">{"@type":"NewsArticle","headline":"LD"}</script>', '<h1>H</h1>'), PAGE).headline).toBe('LD');
    expect(extractArticle(page('<title>T</title>', '<h1>  The <em>first</em>\n heading </h1><h1>second</h1>'), PAGE).headline).toBe('The first heading');
    expect(extractArticle(page('<title> Only   the title </title>'), PAGE).headline).toBe('Only the title');
    expect(extractArticle(page(''), PAGE).headline).toBeNull();
  });

  it('bounds a huge headline', () => {
    const headline = extractArticle(page(`<title>${'word '.repeat(10_000)}</title>`), PAGE).headline!;
    expect(headline.length).toBeLessThanOrEqual(300);
  });
});
