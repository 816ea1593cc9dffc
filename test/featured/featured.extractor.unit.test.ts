import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { extractFeaturedCandidates, type FeaturedCandidate, type FeaturedSource } from '../../src/modules/featured/featured.extractor.js';
import { IMG_SCORE, scoreImgTag, type ImgFeatures } from '../../src/modules/featured/extraction/img-candidates.js';
import { parseSrcset } from '../../src/modules/featured/extraction/srcset.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/featured/', import.meta.url));
const PAGE = 'https://www.example.com/blog/2024/post.html';
const IMG_RANGE_SOURCES: FeaturedSource[] = ['img_tag', 'srcset'];

interface Expected {
  pageUrl: string;
  url: string | null;
  source: FeaturedSource | null;
  score: number | null;
  mustNotContain: string[];
}

const fixtures = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.html'))
  .map((file) => file.slice(0, -'.html'.length))
  .sort();

function loadFixture(name: string): { html: string; expected: Expected } {
  return {
    html: readFileSync(`${FIXTURES}${name}.html`, 'utf8'),
    expected: JSON.parse(readFileSync(`${FIXTURES}${name}.expected.json`, 'utf8')) as Expected,
  };
}

const extract = (html: string, pageUrl = PAGE) => extractFeaturedCandidates(html, pageUrl);
const page = (head: string, body = '') => `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
const urls = (candidates: FeaturedCandidate[]) => candidates.map((candidate) => candidate.url);
const bySource = (candidates: FeaturedCandidate[], source: FeaturedSource) => candidates.filter((candidate) => candidate.source === source);

/** Holds for every result, whatever the page. */
function expectWellFormed(candidates: FeaturedCandidate[]): void {
  expect(new Set(urls(candidates)).size).toBe(candidates.length);
  for (const [i, candidate] of candidates.entries()) {
    expect(candidate.url).toMatch(/^https?:\/\//);
    expect(Number.isInteger(candidate.score)).toBe(true);
    expect(candidate.score).toBeGreaterThanOrEqual(0);
    expect(candidate.score).toBeLessThanOrEqual(100);
    if (IMG_RANGE_SOURCES.includes(candidate.source)) {
      expect(candidate.score).toBeGreaterThanOrEqual(50);
      expect(candidate.score).toBeLessThanOrEqual(85);
    }
    if (i > 0) expect(candidate.score).toBeLessThanOrEqual(candidates[i - 1]!.score);
  }
}

describe('fixtures', () => {
  it('has at least 30 pages, each with its expectation', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(30);
    for (const name of fixtures) expect(() => loadFixture(name), name).not.toThrow();
  });

  it.each(fixtures)('%s: the best candidate and the excluded URLs match the expectation', (name) => {
    const { html, expected } = loadFixture(name);
    const candidates = extract(html, expected.pageUrl);
    const best = candidates[0];
    expect({ url: best?.url ?? null, source: best?.source ?? null, score: best?.score ?? null }).toEqual({
      url: expected.url,
      source: expected.source,
      score: expected.score,
    });
    for (const excluded of expected.mustNotContain) expect(urls(candidates), excluded).not.toContain(excluded);
    expectWellFormed(candidates);
  });
});

describe('scores per source', () => {
  it('gives each source the spec score', () => {
    const html = page(
      `<meta property="og:image" content="https://cdn.example.com/og.jpg">
       <meta name="twitter:image" content="https://cdn.example.com/twitter.jpg">
       <link rel="image_src" href="https://cdn.example.com/link.jpg">
       <script type="application/ld+json">{"@type":"Article","image":"https://cdn.example.com/ld.jpg"}</script>
       <script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"post":{"ogImage":{"url":"https://cdn.example.com/next.jpg"}}}}}</script>`,
      `<img src="https://cdn.example.com/plain.jpg">
       <script>var x = "https://cdn.example.com/inline.jpg";</script>`,
    );
    const scores = Object.fromEntries(extract(html).map((candidate) => [candidate.url.slice('https://cdn.example.com/'.length), [candidate.source, candidate.score]]));
    expect(scores).toEqual({
      'og.jpg': ['og_meta', 100],
      'twitter.jpg': ['twitter_meta', 100],
      'link.jpg': ['link_image_src', 95],
      'ld.jpg': ['json_ld', 90],
      'next.jpg': ['next_data', 90],
      'plain.jpg': ['img_tag', 55], // base 50 + first content image 5
      'inline.jpg': ['regex', 35],
    });
  });

  it.each([
    ['property', 'og:image', 'og_meta'],
    ['property', 'og:image:secure_url', 'og_meta'],
    ['property', 'og:image:url', 'og_meta'],
    ['name', 'og:image', 'og_meta'],
    ['name', 'twitter:image', 'twitter_meta'],
    ['name', 'twitter:image:src', 'twitter_meta'],
    ['property', 'twitter:image', 'twitter_meta'],
    ['property', 'OG:IMAGE', 'og_meta'],
  ])('reads <meta %s="%s"> as %s with score 100', (attribute, key, source) => {
    const [best] = extract(page(`<meta ${attribute}="${key}" content="https://cdn.example.com/a.jpg">`));
    expect(best).toEqual({ url: 'https://cdn.example.com/a.jpg', source, score: 100 });
  });

  it('reads JSON-LD images as a string, an array, an ImageObject, a @graph reference and a thumbnailUrl', () => {
    const ld = (data: unknown) => page(`<script type="application/ld+json">${JSON.stringify(data)}</script>`);
    const found = (data: unknown) => extract(ld(data)).map((candidate) => [candidate.url, candidate.source, candidate.score]);
    expect(found({ '@type': 'NewsArticle', image: '/a.jpg' })).toEqual([['https://www.example.com/a.jpg', 'json_ld', 90]]);
    expect(found({ '@type': 'BlogPosting', image: ['https://x.example/1.jpg', { '@type': 'ImageObject', url: 'https://x.example/2.jpg' }] })).toEqual([
      ['https://x.example/1.jpg', 'json_ld', 90],
      ['https://x.example/2.jpg', 'json_ld', 90],
    ]);
    expect(found({ '@type': 'Product', image: { '@type': 'ImageObject', contentUrl: 'https://x.example/p.jpg' } })).toEqual([['https://x.example/p.jpg', 'json_ld', 90]]);
    expect(found({ '@graph': [{ '@type': 'Article', image: { '@id': '#img' } }, { '@type': 'ImageObject', '@id': '#img', url: 'https://x.example/g.jpg' }] })).toEqual([
      ['https://x.example/g.jpg', 'json_ld', 90],
    ]);
    expect(found({ '@type': 'VideoObject', thumbnailUrl: 'https://x.example/t.jpg' })).toEqual([['https://x.example/t.jpg', 'json_ld', 90]]);
    // Values that are not URLs would otherwise resolve as relative paths.
    expect(found({ '@type': 'Article', image: ['N/A', 'true', ''] })).toEqual([]);
  });

  it('takes the page node images before other nodes and never an author photo or a publisher logo', () => {
    const html = page(`<script type="application/ld+json">${JSON.stringify({
      '@graph': [
        { '@type': 'WebPage', image: 'https://x.example/webpage.jpg' },
        { '@type': 'Organization', logo: 'https://x.example/org-logo.png', image: 'https://x.example/org-team.jpg' },
        {
          '@type': 'Article',
          image: 'https://x.example/article.jpg',
          author: { '@type': 'Person', image: 'https://x.example/author.jpg' },
          publisher: { '@type': 'Organization', logo: { '@type': 'ImageObject', url: 'https://x.example/publisher.png' } },
        },
      ],
    })}</script>`);
    expect(urls(extract(html))).toEqual(['https://x.example/article.jpg', 'https://x.example/webpage.jpg']);
  });

  it('finds the preferred keys in __NEXT_DATA__, shallow ones first, and skips authors and related posts', () => {
    const data = {
      props: {
        pageProps: {
          related: [{ coverImage: 'https://x.example/related.jpg' }],
          post: {
            title: 'A post',
            hero: { title: 'Big title', link: '/about', image: { src: '/img/hero.jpg' } },
            author: { avatar: 'https://x.example/avatar.jpg', image: 'https://x.example/author.jpg' },
            body: { blocks: [{ featuredImage: { node: { sourceUrl: 'https://x.example/deep.jpg' } } }] },
          },
        },
      },
    };
    const html = page(`<script id="__NEXT_DATA__" type="application/json">${JSON.stringify(data)}</script>`);
    expect(extract(html)).toEqual([
      { url: 'https://www.example.com/img/hero.jpg', source: 'next_data', score: 90 },
      { url: 'https://x.example/deep.jpg', source: 'next_data', score: 90 },
    ]);
  });

  it('keeps an og:image named like a logo but drops an empty or data-URI og:image', () => {
    const html = page(`<meta property="og:image" content="">
      <meta property="og:image" content="data:image/png;base64,iVBORw0KGgo=">
      <meta property="og:image" content="/static/logo-share.png">`);
    expect(extract(html)).toEqual([{ url: 'https://www.example.com/static/logo-share.png', source: 'og_meta', score: 100 }]);
  });
});

describe('tie order', () => {
  it('ranks equal scores in the spec search order whatever the document order', () => {
    // Everything at the same score would be unusual; the two 100s and the two 90s tie for real.
    const html = page(
      `<script id="__NEXT_DATA__" type="application/json">{"props":{"image":"https://x.example/next.jpg"}}</script>
       <script type="application/ld+json">{"@type":"Article","image":"https://x.example/ld.jpg"}</script>
       <link rel="image_src" href="https://x.example/link.jpg">
       <meta name="twitter:image" content="https://x.example/twitter.jpg">
       <meta property="og:image" content="https://x.example/og.jpg">`,
    );
    expect(extract(html).map((candidate) => candidate.source)).toEqual(['og_meta', 'twitter_meta', 'link_image_src', 'json_ld', 'next_data']);
  });

  it('puts the largest srcset file before the same img src, then keeps document order', () => {
    const html = page('', `<main><img src="/a-small.jpg" srcset="/a-small.jpg 400w, /a-large.jpg 1600w" width="800"><img src="/b.jpg" width="800"></main>`);
    const ranked = extract(html).map((candidate) => [candidate.url.slice('https://www.example.com'.length), candidate.source, candidate.score]);
    expect(ranked).toEqual([
      ['/a-large.jpg', 'srcset', 70],
      ['/a-small.jpg', 'img_tag', 70],
      ['/b.jpg', 'img_tag', 70],
    ]);
  });

  it('ranks icons and tiny images after ordinary images of the same score', () => {
    const html = page('', `<img class="site-logo" src="/logo.png"><img src="/tiny.jpg" width="40" height="40"><img src="/a.jpg"><img src="/b.jpg"><img src="/c.jpg"><img src="/late.jpg">`);
    const ranked = extract(html).map((candidate) => [candidate.url.slice('https://www.example.com'.length), candidate.score]);
    expect(ranked).toEqual([
      ['/a.jpg', 55],
      ['/b.jpg', 55],
      ['/c.jpg', 55],
      ['/late.jpg', 50],
      ['/logo.png', 50],
      ['/tiny.jpg', 50],
    ]);
  });
});

describe('srcset', () => {
  it('parses w and x descriptors, URLs with commas, and entries without descriptors', () => {
    expect(parseSrcset('a.jpg 400w, b.jpg 1600w,c.jpg 800w')).toEqual([
      { url: 'a.jpg', width: 400, density: 1 },
      { url: 'b.jpg', width: 1600, density: 1 },
      { url: 'c.jpg', width: 800, density: 1 },
    ]);
    expect(parseSrcset('https://cdn.example/w_400,h_300/a.jpg 1x, https://cdn.example/w_800,h_600/a.jpg 2x')).toEqual([
      { url: 'https://cdn.example/w_400,h_300/a.jpg', width: undefined, density: 1 },
      { url: 'https://cdn.example/w_800,h_600/a.jpg', width: undefined, density: 2 },
    ]);
    expect(parseSrcset('  plain.jpg  ')).toEqual([{ url: 'plain.jpg', width: undefined, density: 1 }]);
    expect(parseSrcset('')).toEqual([]);
  });

  it('picks the largest file by w descriptor wherever it stands, else by x', () => {
    const best = (img: string) => bySource(extract(page('', img)), 'srcset').map((candidate) => candidate.url);
    expect(best('<img srcset="/m.jpg 1024w, /l.jpg 2048w, /s.jpg 320w">')).toEqual(['https://www.example.com/l.jpg']);
    expect(best('<img srcset="/2x.jpg 2x, /3x.jpg 3x, /1x.jpg">')).toEqual(['https://www.example.com/3x.jpg']);
    expect(best('<img data-srcset="/lazy-1600.jpg 1600w, /lazy-800.jpg 800w" srcset="data:image/gif;base64,R0lGOD 1w">')).toEqual(['https://www.example.com/lazy-1600.jpg']);
  });

  it('gives <picture> sources the score of their img and keeps the smaller files out of the sweep', () => {
    const html = page(
      '',
      `<article><picture><source srcset="/p-800.webp 800w, /p-2000.webp 2000w"><img class="hero" src="/p.jpg" width="1000"></picture></article>`,
    );
    expect(extract(html)).toEqual([
      { url: 'https://www.example.com/p-2000.webp', source: 'srcset', score: 85 },
      { url: 'https://www.example.com/p.jpg', source: 'img_tag', score: 85 },
    ]);
  });
});

describe('URL resolution', () => {
  it('resolves relative URLs against <base href>, itself relative to the page', () => {
    const html = page('<base href="/static/v2/"><base href="https://ignored.example/">', '<img src="img/a.jpg"><img src="../b.jpg">');
    expect(urls(extract(html))).toEqual(['https://www.example.com/static/v2/img/a.jpg', 'https://www.example.com/static/b.jpg']);
  });

  it('resolves protocol-relative URLs with the page scheme, trims whitespace and decodes entities', () => {
    const html = page(`<meta property="og:image" content="  //cdn.example.com/a.jpg?w=1&amp;amp;h=2 &#10;">`);
    expect(urls(extract(html, 'http://www.example.com/'))).toEqual(['http://cdn.example.com/a.jpg?w=1&h=2']);
  });

  it('keeps only absolute URLs when the page URL is not a URL', () => {
    const html = page('<meta property="og:image" content="/relative.jpg">', '<img src="https://cdn.example.com/abs.jpg">');
    expect(urls(extract(html, 'not a url'))).toEqual(['https://cdn.example.com/abs.jpg']);
  });
});

describe('placeholders and non-images', () => {
  it.each([
    ['a data URI', '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">'],
    ['an empty src', '<img src="">'],
    ['a src of spaces', '<img src="   ">'],
    ['a javascript: URL', '<img src="javascript:void(0)">'],
    ['a mailto: URL', '<img src="mailto:someone@example.com">'],
    ['an ftp: URL', '<img src="ftp://files.example.com/a.jpg">'],
    ['a 1x1 declared image', '<img src="/t.gif?id=1" width="1" height="1">'],
    ['a 2 px high image', '<img src="/rule.png" width="800" height="2">'],
    ['a 1x1 by inline style', '<img src="/s.gif" style="width:1px;height:1px">'],
    ['a spinner by name', '<img src="/img/loading-spinner.gif">'],
    ['an ajax loader', '<img src="/img/ajax-loader.gif">'],
    ['a spinner by class', '<img class="spinner" src="/img/wait.gif">'],
    ['a spacer gif', '<img src="/images/spacer.gif" width="10" height="10">'],
    ['a blank gif', '<img src="/images/blank.gif">'],
    ['a transparent png', '<img src="/img/transparent.png">'],
    ['a placeholder file', '<img src="/img/placeholder.png">'],
    ['a tracking host', '<img src="https://pixel.tracker.example/p?id=7">'],
    ['a clear.gif', '<img src="/clear.gif">'],
  ])('drops %s', (_, img) => {
    const candidates = extract(page('', `<main>${img}</main>`));
    expect(candidates).toEqual([]);
  });

  it('uses the lazy attribute when src is a placeholder, and the sweep does not bring the placeholder back', () => {
    const html = page('', `<img src="/img/blank.gif" data-src="/real.jpg"><img src="/img/pixel.gif" width="1" height="1"><img data-lazy-src="/lazy.jpg"><img data-original="/orig.jpg">`);
    expect(urls(extract(html))).toEqual(['https://www.example.com/real.jpg', 'https://www.example.com/lazy.jpg', 'https://www.example.com/orig.jpg']);
  });

  it('keeps a photo whose name merely contains a placeholder word', () => {
    const html = page('', '<img src="/photos/crystal-clear-sea.jpg"><img src="/reviews/pixel-8-review.jpg"><img src="/recipes/tart-1x1.jpg">');
    expect(extract(html)).toHaveLength(3);
  });

  it('scores logos, avatars, emoji, badges, sprites, svg and 64 px images to the bottom of the img range', () => {
    const html = page(
      '',
      `<article>
        <img class="custom-logo" src="/brand.png" width="1200">
        <span class="author-avatar"><img src="/people/ana.jpg"></span>
        <img class="emoji" src="/e/1f600.png">
        <img src="/badges/top-writer.png">
        <img src="/ui/sprites.png">
        <img src="/ui/mark.svg">
        <img src="/thumbs/a.jpg" width="64" height="64">
      </article>`,
    );
    const candidates = extract(html);
    expect(candidates).toHaveLength(7);
    for (const candidate of candidates) expect(candidate.score).toBe(IMG_SCORE.base);
  });

  it('does not let the regex sweep offer favicons, touch icons or logos', () => {
    const html = page('<link rel="icon" href="/favicon-32x32.png"><link rel="apple-touch-icon" href="/apple-touch-icon.png">', '<script>var l="/img/site-logo.png";</script>');
    expect(extract(html)).toEqual([]);
  });
});

describe('img tag scores', () => {
  const allFeatures: ImgFeatures[] = [];
  for (const hint of [false, true])
    for (const size of ['large', 'medium', 'small or unknown'] as const)
      for (const inContent of [false, true]) for (const early of [false, true]) for (const demoted of [false, true]) allFeatures.push({ hint, size, inContent, early, demoted });

  it('stays an integer in 50..85 for every combination of features', () => {
    for (const features of allFeatures) {
      const score = scoreImgTag(features);
      expect(Number.isInteger(score), JSON.stringify(features)).toBe(true);
      expect(score).toBeGreaterThanOrEqual(50);
      expect(score).toBeLessThanOrEqual(85);
    }
  });

  it('is 50 undecorated or demoted and 85 with everything', () => {
    expect(scoreImgTag({ hint: false, size: 'small or unknown', inContent: false, early: false, demoted: false })).toBe(50);
    expect(scoreImgTag({ hint: true, size: 'large', inContent: true, early: true, demoted: true })).toBe(50);
    expect(scoreImgTag({ hint: true, size: 'large', inContent: true, early: true, demoted: false })).toBe(85);
    expect(scoreImgTag({ hint: false, size: 'medium', inContent: true, early: false, demoted: false })).toBe(60);
  });

  it.each([
    ['a hero class, large, in article, first', '<article><img class="hero" src="/x.jpg" width="1200"></article>', 85],
    ['a wp-post-image', '<img class="attachment-post-thumbnail wp-post-image" src="/x.jpg">', 70],
    ['a parent figure class', '<figure class="post-thumbnail"><img src="/x.jpg"></figure>', 70],
    ['fetchpriority=high', '<img fetchpriority="high" src="/x.jpg">', 70],
    ['a camelCase hero class', '<div class="PostHeroImage_wrap"><img src="/x.jpg"></div>', 70],
    ['a large declared height', '<img src="/x.jpg" height="500">', 65],
    ['a medium declared width', '<img src="/x.jpg" width="320">', 60],
    ['a width in percent (unknown)', '<img src="/x.jpg" width="100%">', 55],
    ['Squarespace dimensions', '<img data-image="/x.jpg" data-image-dimensions="2500x1667">', 65],
    ['inside main', '<main><img src="/x.jpg"></main>', 60],
    ['inside role=main', '<div role="main"><img src="/x.jpg"></div>', 60],
    ['inside the footer', '<footer><img src="/x.jpg" width="1200"></footer>', 50],
  ])('scores %s', (_, body, score) => {
    expect(extract(page('', body))[0]?.score).toBe(score);
  });

  it('boosts only the first three content images for being early', () => {
    const html = page('', Array.from({ length: 5 }, (_, i) => `<img src="/p${i}.jpg">`).join(''));
    expect(extract(html).map((candidate) => candidate.score)).toEqual([55, 55, 55, 50, 50]);
  });
});

describe('de-duplication', () => {
  it('keeps one candidate per absolute URL, with the highest score', () => {
    const html = page(
      `<script type="application/ld+json">{"@type":"Article","image":"https://www.example.com/img/a.jpg"}</script>`,
      `<article><img class="hero" src="/img/a.jpg" width="1200"></article><script>var a = "https:\\/\\/www.example.com\\/img\\/a.jpg";</script>`,
    );
    expect(extract(html)).toEqual([{ url: 'https://www.example.com/img/a.jpg', source: 'json_ld', score: 90 }]);
  });

  it('keeps the earlier source in the tie order when the scores are equal', () => {
    const html = page(`<meta name="twitter:image" content="https://x.example/a.jpg"><meta property="og:image" content="https://x.example/a.jpg">`);
    expect(extract(html)).toEqual([{ url: 'https://x.example/a.jpg', source: 'og_meta', score: 100 }]);
  });

  it('treats URLs that resolve to the same absolute URL as one', () => {
    const html = page('<meta property="og:image" content="//www.example.com/a.jpg">', '<img src="/a.jpg"><img src="a.jpg"><img src="https://www.example.com/a.jpg">');
    expect(extract(html, 'https://www.example.com/')).toEqual([{ url: 'https://www.example.com/a.jpg', source: 'og_meta', score: 100 }]);
  });
});

describe('regex sweep', () => {
  it('finds image URLs in scripts (escaped slashes), styles and attributes no rule reads, in document order', () => {
    const html = page(
      '<style>.hero{background:url(\'/bg/hero.webp\')}</style>',
      `<div data-bg="https://cdn.example.com/div-bg.avif?v=2"></div><script>window.s={"img":"https:\\/\\/cdn.example.com\\/state.png"};</script><a href="/full/photo.jpeg">full size</a>`,
    );
    expect(extract(html)).toEqual([
      { url: 'https://www.example.com/bg/hero.webp', source: 'regex', score: 35 },
      { url: 'https://cdn.example.com/div-bg.avif?v=2', source: 'regex', score: 35 },
      { url: 'https://cdn.example.com/state.png', source: 'regex', score: 35 },
      { url: 'https://www.example.com/full/photo.jpeg', source: 'regex', score: 35 },
    ]);
  });

  it('takes the whole URL, query included, and ignores URLs whose path is not an image file', () => {
    const html = page('', `<script>a="https://img.example.com/r?src=a.jpg&w=1";b="https://img.example.com/p/b.jpg?w=1200&h=630";c="https://example.com/page.html"</script>`);
    expect(urls(extract(html))).toEqual(['https://img.example.com/p/b.jpg?w=1200&h=630']);
  });
});

describe('robustness', () => {
  it.each([
    ['an empty string', ''],
    ['plain text', 'just some text, no markup at all'],
    ['unclosed tags', '<html><head><meta property="og:image" content="/a.jpg"<body><div><p><img src="/b.jpg"'],
    ['stray closing tags', '</div></span></html><img src="/c.jpg"></body>'],
    ['broken JSON-LD', '<script type="application/ld+json">{"@type":"Article","image":</script>'],
    ['JSON-LD that is a number', '<script type="application/ld+json">42</script>'],
    ['JSON-LD that is null', '<script type="application/ld+json">null</script>'],
    ['broken NEXT_DATA', '<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":</script>'],
    ['NEXT_DATA that is an array of strings', '<script id="__NEXT_DATA__" type="application/json">["a","b"]</script>'],
    ['a cyclic-looking @id graph', '<script type="application/ld+json">{"@graph":[{"@type":"Article","@id":"a","image":{"@id":"b"}},{"@id":"b","image":{"@id":"a"}}]}</script>'],
    ['deeply nested JSON-LD', `<script type="application/ld+json">${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}</script>`],
    ['deeply nested NEXT_DATA', `<script id="__NEXT_DATA__" type="application/json">${'{"image":'.repeat(3000)}"/x.jpg"${'}'.repeat(3000)}</script>`],
    ['a broken srcset', '<img srcset=", ,, 100w, x.jpg 12q, y.jpg 2x 3w,">'],
    ['an invalid base href', '<base href="http://[::1"><img src="a.jpg">'],
    ['binary noise', '\u0000\u0001<\u0002img src=\u0003>\uFFFD'],
  ])('does not throw on %s', (_, html) => {
    expect(() => expectWellFormed(extract(html))).not.toThrow();
  });

  it('reads JSON-LD with a trailing comma, an HTML comment wrapper and raw newlines in strings', () => {
    const html = page(`<script type="application/ld+json"><!--
      {"@type": "Article", "headline": "Two
      lines", "image": ["https://x.example/a.jpg",],}
    --></script>`);
    expect(extract(html)).toEqual([{ url: 'https://x.example/a.jpg', source: 'json_ld', score: 90 }]);
  });

  it('handles a very large page (several MB of paragraphs, images and scripts)', () => {
    // Correctness only; the benchmark (bench/featured.bench.ts) measures time.
    const paragraph = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>';
    const chunks: string[] = [];
    for (let i = 0; i < 20_000; i++) chunks.push(paragraph, i % 20 === 0 ? `<img src="/gallery/${i}.jpg" width="300" height="200">` : '');
    const html = page('<meta property="og:image" content="/og.jpg">', `<article>${chunks.join('')}</article><script>var s = "${'x'.repeat(1_000_000)}";</script>`);
    expect(html.length).toBeGreaterThan(3_000_000);
    const candidates = extract(html);
    expect(candidates[0]).toEqual({ url: 'https://www.example.com/og.jpg', source: 'og_meta', score: 100 });
    expect(candidates).toHaveLength(1 + 1000);
  });
});
