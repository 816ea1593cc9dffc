// Featured-image extraction from one HTML page: a pure function (no I/O) that returns every image
// candidate the page offers, scored as the interface spec ("Featured image") lists, best first.
//
// Sources and scores (spec): og:image 100, twitter:image 100, link rel=image_src 95, JSON-LD and
// framework data (__NEXT_DATA__) 90, img tags and their srcset 50..85 (see scoreImgTag), and a regex
// sweep of the raw HTML 35 for image URLs no other source found. Equal scores keep the spec's search
// order (TIE_ORDER), then document order.
//
// Never a candidate, whatever the source: a video file (an og:image or img pointing at an .mp4 is
// replaced by the video's poster: <video poster> and JSON-LD thumbnails are candidates, and the
// og:image beside an og:video is kept), a 1x1 image (declared by width/height attributes or
// og:image:width/height), and a known tracking endpoint (TRACKING_ENDPOINTS). Sizes measured by
// fetching are the caller's to check (ReplaceFlow does).
import { Parser } from 'htmlparser2';

export const FEATURED_SOURCES = ['og_meta', 'twitter_meta', 'link_image_src', 'next_data', 'json_ld', 'srcset', 'img_tag', 'regex'] as const;
export type FeaturedSource = (typeof FEATURED_SOURCES)[number];

export interface FeaturedCandidate {
  url: string;
  /** Integer 0..100. */
  score: number;
  source: FeaturedSource;
}

export const SOURCE_SCORES = { og_meta: 100, twitter_meta: 100, link_image_src: 95, json_ld: 90, next_data: 90, regex: 35 } as const;

/** Parts of an img tag's score; the sum of everything is exactly the top of the spec's 50..85 range. */
export const IMG_SCORE = { base: 50, hint: 15, large: 10, medium: 5, inContent: 5, early: 5, max: 85 } as const;

// The spec's search order (og, twitter, link, structured data, img tags) decides ties. JSON-LD goes
// before framework data because it is schema.org markup meant to describe the page, while framework
// data is found by key names. A srcset's largest file goes before the same img's src.
const TIE_ORDER: readonly FeaturedSource[] = ['og_meta', 'twitter_meta', 'link_image_src', 'json_ld', 'next_data', 'srcset', 'img_tag', 'regex'];

/** The site's own explicit choice: never screened for names like "logo" or "placeholder". */
const EXPLICIT_SOURCES = new Set<FeaturedSource>(['og_meta', 'twitter_meta', 'link_image_src']);

/** An element as the rules below read it: its tag, attributes and ancestors. */
interface Element {
  name: string;
  attribs: Record<string, string>;
  parent: Element | null;
  /** A script's text. */
  text?: string;
  /** A <picture>'s <source> children. */
  sources?: Element[];
}

export function extractFeaturedCandidates(html: string, pageUrl: string): FeaturedCandidate[] {
  return extractArticle(html, pageUrl).candidates;
}

export interface ArticleFacts {
  /** The page's headline: og:title, twitter:title, JSON-LD headline, the first <h1>, then <title>; null when none. */
  headline: string | null;
  candidates: FeaturedCandidate[];
}

/** The candidates and the headline of a page, from one parse. */
export function extractArticle(html: string, pageUrl: string): ArticleFacts {
  const page = collectElements(html);
  const found = new CandidateSet(documentBase(page.base, pageUrl));
  metaCandidates(page.metas, found);
  linkImageSrcCandidates(page.links, found);
  jsonLdCandidates(page.scripts, found);
  nextDataCandidates(page.scripts, found);
  imgTagCandidates(page.images, found);
  regexCandidates(html, found);
  return { headline: headlineOf(page), candidates: found.ranked() };
}

const MAX_HEADLINE = 300;

function headlineOf(page: PageElements): string | null {
  const meta = (key: string) => page.metas.find((m) => (m.attribs.property ?? m.attribs.name ?? '').trim().toLowerCase() === key)?.attribs.content;
  for (const text of [meta('og:title'), meta('twitter:title'), jsonLdHeadline(page.scripts), page.h1, page.title]) {
    const clean = text === undefined ? '' : decodeEntities(text).replace(/\s+/g, ' ').trim();
    if (clean) return clean.length > MAX_HEADLINE ? `${clean.slice(0, MAX_HEADLINE - 1)}…` : clean;
  }
  return null;
}

/** The first string `headline` (or `name` of an Article-like node) in the page's JSON-LD. */
function jsonLdHeadline(scripts: Element[]): string | undefined {
  for (const script of scripts) {
    if (script.attribs?.type?.trim().toLowerCase() !== 'application/ld+json') continue;
    const data = parseJsonLoosely(script.text ?? '');
    const nodes: JsonObject[] = [];
    if (data !== undefined) collectJsonLdNodes(data, nodes, () => {}, 0);
    for (const node of nodes) if (typeof node.headline === 'string' && node.headline.trim()) return node.headline;
  }
  return undefined;
}

interface PageElements {
  /** The first <base href>. */
  base?: Element;
  metas: Element[];
  links: Element[];
  scripts: Element[];
  /** img and amp-img, and video and amp-video with a poster (read as the img it shows before playing). */
  images: Element[];
  /** Text of <title> and of the first <h1> (bounded). */
  title?: string;
  h1?: string;
}

/**
 * One streaming parse (htmlparser2 in HTML mode, the parser cheerio uses, with its implied opening
 * and closing of tags) that keeps only the elements the rules read, in document order, with their
 * ancestors. No document tree is built: a tree of a 100 KB page stays alive while the rules run, and
 * every young-generation GC that falls meanwhile copies it (pauses of about 8 ms, the extractor's
 * p95 in bench/RESULTS.md before this).
 */
function collectElements(html: string): PageElements {
  const page: PageElements = { metas: [], links: [], scripts: [], images: [] };
  let open: Element | null = null;
  let script: Element | null = null;
  // The <title> or first <h1> whose text is being read.
  let heading: { element: Element; into: 'title' | 'h1' } | null = null;
  const parser = new Parser(
    {
      onopentag(name, attribs) {
        const element: Element = { name, attribs, parent: open };
        switch (name) {
          case 'meta':
            page.metas.push(element);
            break;
          case 'link':
            page.links.push(element);
            break;
          case 'script':
            element.text = '';
            page.scripts.push(element);
            script = element;
            break;
          case 'img':
          case 'amp-img':
            page.images.push(element);
            break;
          case 'video':
          case 'amp-video':
            // The poster is the picture; the video file itself (src, data-src) is never a candidate.
            if (attribs.poster?.trim()) page.images.push({ ...element, attribs: { ...attribs, src: attribs.poster } });
            break;
          case 'title':
          case 'h1':
            if (page[name] === undefined && heading === null) {
              page[name] = '';
              heading = { element, into: name };
            }
            break;
          case 'source':
            if (open?.name === 'picture') (open.sources ??= []).push(element);
            break;
          case 'base':
            if (!page.base && attribs.href?.trim()) page.base = element;
            break;
        }
        open = element;
      },
      ontext(text) {
        if (script === open && script) script.text += text;
        if (heading && (page[heading.into]?.length ?? 0) < MAX_HEADLINE * 2) page[heading.into] += text;
      },
      onclosetag() {
        if (script === open) script = null;
        if (heading?.element === open) heading = null;
        open = open?.parent ?? null;
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return page;
}

// ---------------------------------------------------------------------------------------------
// Collecting, resolving, de-duplicating and ranking

interface Found extends FeaturedCandidate {
  /** Icons and tiny images: ranked after other candidates of the same score. */
  demoted: boolean;
  order: number;
}

class CandidateSet {
  private readonly byUrl = new Map<string, Found>();
  /**
   * URLs the regex sweep must not bring back: thrown out by an element rule (a 1x1 img, a spinner),
   * known not to be the page's (a JSON-LD author photo), or smaller renditions in a srcset whose
   * largest file is already a candidate.
   */
  private readonly keptOutOfSweep = new Set<string>();
  /** The same, as written in the page: most sweep hits are these very strings, so no URL parsing is needed to skip them. */
  private readonly keptOutOfSweepRaw = new Set<string>();
  /** The same raw value comes up several times (src, srcset, the sweep): URL parsing is the hot spot. */
  private readonly resolved = new Map<string, URL | undefined>();
  private readonly screened = new Map<string, UrlScreening>();
  private order = 0;

  constructor(readonly base: URL | undefined) {}

  /**
   * Resolves the raw value against the document base, screens it, and keeps the better of duplicates.
   * Meta tags and link rel=image_src are the site's explicit choice and are only checked for being a
   * URL at all; other sources lose placeholder-looking URLs (and addSweepHit screens the sweep's
   * hits further).
   */
  add(raw: string | undefined, source: FeaturedSource, score: number, demoted = false): void {
    const url = this.resolve(raw);
    if (!url) return;
    // Never an image, whoever names it: a video file or a tracking endpoint.
    if (this.screen(url).notAnImage || (!EXPLICIT_SOURCES.has(source) && this.isPlaceholder(url))) {
      this.keptOutOfSweep.add(url.href);
      return;
    }
    const candidate: Found = { url: url.href, score, source, demoted, order: this.order++ };
    const previous = this.byUrl.get(candidate.url);
    if (!previous || compareFound(candidate, previous) < 0) this.byUrl.set(candidate.url, candidate);
  }

  /** Whether a raw value would survive add() as a non-explicit source. */
  usable(raw: string | undefined): boolean {
    const url = this.resolve(raw);
    return url !== undefined && !this.isPlaceholder(url) && !this.screen(url).notAnImage;
  }

  isPlaceholder(url: URL): boolean {
    return this.screen(url).placeholder;
  }

  isIcon(url: URL): boolean {
    return this.screen(url).icon;
  }

  private screen(url: URL): UrlScreening {
    let screening = this.screened.get(url.href);
    if (!screening) this.screened.set(url.href, (screening = screenUrl(url)));
    return screening;
  }

  keepOutOfSweep(raw: string | undefined): void {
    if (raw === undefined) return;
    this.keptOutOfSweepRaw.add(raw);
    const url = this.resolved.get(raw); // no parsing just for this; the raw form covers the usual case
    if (url) this.keptOutOfSweep.add(url.href);
  }

  /** A URL the regex sweep found: an image file path, not kept out, not an icon. */
  addSweepHit(raw: string): void {
    if (this.keptOutOfSweepRaw.has(raw)) return;
    const url = this.resolve(raw);
    if (!url || !IMAGE_FILE.test(url.pathname) || this.keptOutOfSweep.has(url.href) || this.isIcon(url)) return;
    this.add(raw, 'regex', SOURCE_SCORES.regex);
  }

  /** The absolute http(s) URL of a raw attribute or JSON value, or undefined when it cannot be one. */
  resolve(raw: string | undefined): URL | undefined {
    if (raw === undefined) return undefined;
    if (this.resolved.has(raw)) return this.resolved.get(raw);
    const url = this.parse(raw);
    this.resolved.set(raw, url);
    return url;
  }

  private parse(raw: string): URL | undefined {
    const value = decodeEntities(raw).trim();
    // A data URI is the image itself (usually a blur or a blank), never a URL to hand out.
    if (value === '' || value.length > 4096 || /^(data|javascript|blob|about):/i.test(value)) return undefined;
    try {
      const url = new URL(value, this.base);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
    } catch {
      return undefined;
    }
  }

  ranked(): FeaturedCandidate[] {
    return [...this.byUrl.values()].sort(compareFound).map(({ url, score, source }) => ({ url, score, source }));
  }
}

function compareFound(a: Found, b: Found): number {
  return b.score - a.score || Number(a.demoted) - Number(b.demoted) || TIE_ORDER.indexOf(a.source) - TIE_ORDER.indexOf(b.source) || a.order - b.order;
}

/** The page URL, or the document's first <base href> resolved against it. */
function documentBase(base: Element | undefined, pageUrl: string): URL | undefined {
  let page: URL | undefined;
  try {
    page = new URL(pageUrl);
  } catch {
    page = undefined; // only absolute URLs in the page can be used then
  }
  const href = base?.attribs?.href;
  if (href === undefined) return page;
  try {
    return new URL(decodeEntities(href).trim(), page);
  } catch {
    return page;
  }
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ', sol: '/', colon: ':', quest: '?', equals: '=' };

/** Decodes HTML entities left in a URL: raw script text is not decoded by the parser, and some CMSs double-encode attributes. */
function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] !== '#') return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

// ---------------------------------------------------------------------------------------------
// Placeholder and icon screening

/** Splits class names, ids and URL parts into lowercase words: "wp-post-image" and "heroImage" become "wp post image" and "hero image". */
function words(value: string): string {
  if (value.trim() === '') return ' '; // most wrappers have no class or id: skip the regexes
  let result = WORDS_CACHE.get(value);
  if (result === undefined) {
    result = ` ${value.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().replace(/[^a-z0-9]+/g, ' ')} `;
    // Pages repeat the same few class names hundreds of times; a bounded memo keeps that cheap.
    if (WORDS_CACHE.size >= 4096) WORDS_CACHE.clear();
    WORDS_CACHE.set(value, result);
  }
  return result;
}

const WORDS_CACHE = new Map<string, string>();

/** Whether an element's class or id has one of the words. */
function classOrIdMatches(node: Element, pattern: RegExp): boolean {
  const attribs = node.attribs;
  if (!attribs) return false;
  return (attribs.class !== undefined && pattern.test(words(attribs.class))) || (attribs.id !== undefined && pattern.test(words(attribs.id)));
}

// Placeholder URLs: a tracking host (pixel.wp.example), a tracking folder (/beacon/open.gif), a file
// named like a loader or a blank (ajax-loader.gif, img-placeholder.png), or a classic spacer name
// that is an ordinary word elsewhere and so counts only as the whole file name (clear.gif, 1x1.gif;
// "crystal-clear-sea.jpg", "pixel-8-review.jpg" and a recipe's "tart-1x1.jpg" are photos).
const PLACEHOLDER_HOST_WORDS = / (pixel|pixels|tracking|tracker|beacon|beacons) /;
const PLACEHOLDER_FOLDER_WORDS = / (pixel|tracking|tracker|beacon) /;
const PLACEHOLDER_FILE_WORDS = / (spinner|spinners|loader|loading|spacer|placeholder|blank|transparent) /;
const PLACEHOLDER_FILE = /^(clear|dot|empty|grey|gray|px|pixel|trans|shim|1x1|s|b|t)\.(gif|png)$/;
const PLACEHOLDER_CLASS_WORDS = / (spinner|loader|spacer|tracking|tracker|pixel|beacon) /;
const ICON_WORDS = / (logo|logos|icon|icons|favicon|favicons|avatar|avatars|gravatar|emoji|emojis|emoticon|badge|badges|sprite|sprites) /;

/** Video and streaming files by extension (sites put an .mp4 in og:image). */
export const VIDEO_FILE = /\.(mp4|m4v|mov|webm|ogv|ogg|mkv|avi|wmv|flv|3gp|mpe?g|m3u8|mpd|ts)$/i;

/**
 * Known tracking endpoints (analytics and ad beacons answer a 1x1 image): a host, or a host and a
 * path prefix. Hosts match themselves and their subdomains. The list is README "Featured image".
 */
export const TRACKING_ENDPOINTS: ReadonlyArray<{ host: string; path?: string }> = [
  { host: 'facebook.com', path: '/tr' },
  { host: 'facebook.net' },
  { host: 'google-analytics.com' },
  { host: 'analytics.google.com' },
  { host: 'googletagmanager.com' },
  { host: 'doubleclick.net' },
  { host: 'googlesyndication.com' },
  { host: 'googleadservices.com' },
  { host: 'google.com', path: '/ads/' },
  { host: 'google.com', path: '/pagead/' },
  { host: 'scorecardresearch.com' },
  { host: 'quantserve.com' },
  { host: 'quantcount.com' },
  { host: 'bat.bing.com' },
  { host: 'analytics.twitter.com' },
  { host: 't.co', path: '/i/adsct' },
  { host: 'ads.linkedin.com' },
  { host: 'ct.pinterest.com' },
  { host: 'analytics.tiktok.com' },
  { host: 'mc.yandex.ru' },
  { host: 'counter.yadro.ru' },
  { host: 'statcounter.com' },
  { host: 'stats.wp.com' },
  { host: 'pixel.wp.com' },
  { host: 'hotjar.com' },
  { host: 'adnxs.com' },
  { host: 'mathtag.com' },
  { host: 'bluekai.com' },
  { host: 'demdex.net' },
  { host: 'omtrdc.net' },
  { host: 'chartbeat.net' },
  { host: 'chartbeat.com', path: '/ping' },
  { host: 'parsely.com', path: '/plogger' },
  { host: 'outbrain.com', path: '/pixel' },
  { host: 'taboola.com', path: '/sg/' },
  { host: 'criteo.com' },
  { host: 'criteo.net' },
  { host: 'amazon-adsystem.com' },
  { host: 'adsrvr.org' },
  { host: 'rlcdn.com' },
  { host: 'krxd.net' },
];
/**
 * Tracking paths on any host: Google Analytics' collect and __utm.gif, Adobe's /b/ss/, and beacon,
 * pixel, track and impression endpoints without a file extension (a photo named track.jpg stays).
 */
const TRACKING_PATH = /^\/(?:(?:[\w.-]+\/)*(?:collect|beacon|pixel|track|impression|imp|__utm\.gif)|b\/ss\/.*)$/i;

function isTrackingEndpoint(url: URL): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const path = url.pathname;
  for (const entry of TRACKING_ENDPOINTS) {
    if (host !== entry.host && !host.endsWith(`.${entry.host}`)) continue;
    if (!entry.path || path === entry.path || path.startsWith(entry.path.endsWith('/') ? entry.path : `${entry.path}/`) || path.startsWith(`${entry.path}?`)) return true;
  }
  return TRACKING_PATH.test(path);
}

interface UrlScreening {
  placeholder: boolean;
  /** A video file or a known tracking endpoint: refused from every source, the site's own meta tags included. */
  notAnImage: boolean;
  /** A logo, icon, avatar ... by name, or an SVG or ICO file (photos are not SVGs). */
  icon: boolean;
}

function screenUrl(url: URL): UrlScreening {
  const slash = url.pathname.lastIndexOf('/');
  const file = url.pathname.slice(slash + 1);
  // Hosts and folders repeat across a page's images, so their words come from the memo.
  const fileWords = words(file);
  const folderWords = words(url.pathname.slice(0, slash));
  const hostWords = words(url.hostname);
  return {
    notAnImage: VIDEO_FILE.test(file) || isTrackingEndpoint(url),
    placeholder:
      PLACEHOLDER_FILE.test(file.toLowerCase()) || PLACEHOLDER_FILE_WORDS.test(fileWords) || PLACEHOLDER_HOST_WORDS.test(hostWords) || PLACEHOLDER_FOLDER_WORDS.test(folderWords),
    icon: /\.(svg|ico)$/i.test(file) || ICON_WORDS.test(fileWords) || ICON_WORDS.test(folderWords) || ICON_WORDS.test(hostWords),
  };
}

// ---------------------------------------------------------------------------------------------
// og:image, twitter:image, link rel=image_src

const META_SOURCES: Record<string, 'og_meta' | 'twitter_meta'> = {
  'og:image': 'og_meta',
  'og:image:url': 'og_meta',
  'og:image:secure_url': 'og_meta',
  'twitter:image': 'twitter_meta',
  'twitter:image:src': 'twitter_meta',
};

function metaCandidates(metas: Element[], found: CandidateSet): void {
  // An image's structured properties follow it (og:image, then og:image:width ...): one that says
  // 1x1 or a video type takes back the image before it.
  const images: Array<{ raw: string | undefined; source: 'og_meta' | 'twitter_meta'; refused: boolean }> = [];
  for (const { attribs = {} } of metas) {
    // Sites use property= and name= interchangeably for both vocabularies.
    const key = (attribs.property ?? attribs.name ?? '').trim().toLowerCase();
    const source = META_SOURCES[key];
    if (source) images.push({ raw: attribs.content, source, refused: false });
    const last = images.at(-1);
    if (!last) continue;
    const value = (attribs.content ?? '').trim();
    if (META_SIZES.has(key) && pixels(value) !== undefined && pixels(value)! <= 2) last.refused = true;
    if (META_TYPES.has(key) && /^video\//i.test(value)) last.refused = true;
  }
  for (const image of images) {
    // Never screened for names like "logo": the site chose this image on purpose.
    if (image.refused) {
      found.resolve(image.raw); // so that the sweep also skips its resolved form
      found.keepOutOfSweep(image.raw);
    }
    else found.add(image.raw, image.source, SOURCE_SCORES[image.source]);
  }
}

const META_SIZES = new Set(['og:image:width', 'og:image:height', 'twitter:image:width', 'twitter:image:height']);
const META_TYPES = new Set(['og:image:type', 'twitter:image:type']);

function linkImageSrcCandidates(links: Element[], found: CandidateSet): void {
  for (const { attribs = {} } of links) {
    if (attribs.rel && words(attribs.rel).includes(' image src ')) found.add(attribs.href, 'link_image_src', SOURCE_SCORES.link_image_src);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON-LD (application/ld+json)

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** A file name with an image extension (the extensions the regex sweep looks for). */
const IMAGE_FILE = /\.(jpe?g|png|webp|gif|avif)$/i;
/** A JSON string that can be a URL: absolute, protocol-relative, root-relative, or a relative image file name. */
const URL_LIKE = /^\s*((https?:)?\/\/|\/[^/\s]|[^\s:]+\.(jpe?g|png|webp|gif|avif)(\?\S*)?\s*$)/i;

/** Types whose image is the page's subject; their images come first. */
const PRIMARY_TYPE = /(Article|Posting|Blog|Report|Product|ProductGroup|Recipe|HowTo|Event|Review|VideoObject|Movie|Book|Course)$/;
/** Types whose image is a logo or a portrait, not the page's. */
const NOT_THE_PAGE_TYPE = /^(Organization|NewsMediaOrganization|Corporation|Person|Brand|WebSite|ImageObject|SiteNavigationElement|WPHeader|WPFooter)$/;
/** Keys that lead to someone else's image (an author's photo, a publisher's logo) or to a detail (a recipe step's photo). */
const NOT_THE_PAGE_KEY = new Set([
  ...['author', 'creator', 'contributor', 'editor', 'publisher', 'sourceOrganization', 'copyrightHolder', 'brand', 'manufacturer', 'logo'],
  ...['sponsor', 'funder', 'provider', 'seller', 'about', 'mentions', 'potentialAction', 'breadcrumb', 'isPartOf'],
  ...['review', 'comment', 'recipeInstructions', 'step'],
]);
const IMAGE_KEYS = ['image', 'primaryImageOfPage', 'thumbnailUrl'];
const MAX_JSON_DEPTH = 24;

function jsonLdCandidates(scripts: Element[], found: CandidateSet): void {
  const nodes: JsonObject[] = [];
  for (const script of scripts) {
    if (script.attribs?.type?.trim().toLowerCase() !== 'application/ld+json') continue;
    const data = parseJsonLoosely(script.text ?? '');
    if (data !== undefined) collectJsonLdNodes(data, nodes, (raw) => found.keepOutOfSweep(raw), 0);
  }
  if (nodes.length === 0) return;
  const byId = new Map<string, JsonObject>();
  for (const node of nodes) if (typeof node['@id'] === 'string') byId.set(node['@id'], node);
  const isPageNode = (node: JsonObject) => !jsonLdTypes(node).some((type) => NOT_THE_PAGE_TYPE.test(type));
  const isPrimary = (node: JsonObject) => jsonLdTypes(node).some((type) => PRIMARY_TYPE.test(type));
  const pageNodes = nodes.filter(isPageNode);
  for (const node of [...pageNodes.filter(isPrimary), ...pageNodes.filter((node) => !isPrimary(node))]) {
    for (const key of IMAGE_KEYS) for (const url of jsonLdImageUrls(node[key], byId, 0)) found.add(url, 'json_ld', SOURCE_SCORES.json_ld);
  }
  // A logo or a portrait is not the page's image, and the regex sweep must not offer it either.
  for (const node of nodes) {
    if (!isPageNode(node)) for (const key of IMAGE_KEYS) for (const url of jsonLdImageUrls(node[key], byId, 0)) found.keepOutOfSweep(url);
  }
}

/** Every object in the data (top level, arrays, @graph, mainEntity ...); the URLs under NOT_THE_PAGE_KEY go to reject. */
function collectJsonLdNodes(value: Json, into: JsonObject[], reject: (raw: string) => void, depth: number): void {
  if (depth > MAX_JSON_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) collectJsonLdNodes(item, into, reject, depth + 1);
    return;
  }
  into.push(value);
  for (const [key, child] of Object.entries(value)) {
    if (NOT_THE_PAGE_KEY.has(key)) jsonStrings(child, 0).forEach(reject);
    else if (!IMAGE_KEYS.includes(key)) collectJsonLdNodes(child, into, reject, depth + 1);
  }
}

/** The URL-like strings of a JSON subtree (bounded). */
function jsonStrings(value: Json, depth: number): string[] {
  if (depth > 8 || value === null || typeof value !== 'object') return typeof value === 'string' && URL_LIKE.test(value) ? [value] : [];
  return (Array.isArray(value) ? value : Object.values(value)).flatMap((child) => jsonStrings(child, depth + 1));
}

function jsonLdTypes(node: JsonObject): string[] {
  const type = node['@type'];
  return typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/** URLs of an image value: a string, an array, an ImageObject {url | contentUrl}, or an {"@id"} reference to one. */
function jsonLdImageUrls(value: Json | undefined, byId: Map<string, JsonObject>, depth: number): string[] {
  if (value === undefined || value === null || depth > 4) return [];
  if (typeof value === 'string') return URL_LIKE.test(value) ? [value] : []; // not "N/A" or "true"
  if (Array.isArray(value)) return value.flatMap((item) => jsonLdImageUrls(item, byId, depth + 1));
  if (typeof value !== 'object') return [];
  const direct = [...jsonLdImageUrls(value.url, byId, depth + 1), ...jsonLdImageUrls(value.contentUrl, byId, depth + 1)];
  if (direct.length > 0) return direct;
  const id = value['@id'];
  if (typeof id !== 'string') return [];
  const target = byId.get(id);
  if (target && target !== value) return jsonLdImageUrls(target, byId, depth + 1);
  // A reference to a node not in the page, named by the image's own URL.
  return IMAGE_FILE.test(id.replace(/[?#].*$/, '')) ? [id] : [];
}

/** JSON.parse, then one forgiving retry (HTML comment or CDATA wrappers, raw control characters, trailing commas); undefined when still broken. */
function parseJsonLoosely(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    const cleaned = text
      .trim()
      .replace(/^(<!--|\/\/\s*<!\[CDATA\[|\/\*\s*<!\[CDATA\[\s*\*\/)/, '')
      .replace(/(-->|\/\/\s*\]\]>|\/\*\s*\]\]>\s*\*\/)$/, '')
      // eslint-disable-next-line no-control-regex -- raw newlines and tabs inside strings are the commonest breakage
      .replace(/[\u0000-\u001f]+/g, ' ')
      .replace(/,\s*([}\]])/g, '$1');
    try {
      return JSON.parse(cleaned) as Json;
    } catch {
      return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Framework data: Next.js <script id="__NEXT_DATA__">

/** Keys (lowercased, without - and _) whose value is the page's image in CMS and framework data. */
const FRAMEWORK_IMAGE_KEYS = new Set([
  ...['image', 'images', 'ogimage', 'featuredimage', 'featuredmedia', 'coverimage', 'cover', 'heroimage', 'hero'],
  ...['mainimage', 'leadimage', 'thumbnail', 'thumbnailurl', 'socialimage', 'shareimage', 'seoimage', 'previewimage', 'headerimage'],
]);
/** Keys inside an image object that hold its URL, most specific first. */
const FRAMEWORK_URL_KEYS = ['src', 'url', 'sourceurl', 'contenturl', 'secureurl', 'original', 'href'];
/** Objects CMSs wrap an image's URL in. */
const FRAMEWORK_WRAPPER_KEYS = new Set(['fields', 'file', 'asset', 'data', 'attributes', 'node', 'responsiveimage', 'original', 'large', 'full']);
/** Subtrees about someone or something else (author photos, logos, related posts). */
const FRAMEWORK_SKIP_KEY = /^(author|authors|avatar|user|users|profile|logo|icon|favicon|sponsor|sponsors|ad|ads|related.*|recommended.*|trending.*|popular.*|more(posts|stories|articles)|nav|navigation|menu|footer)$/;
const MAX_FRAMEWORK_NODES = 50_000;

function nextDataCandidates(scripts: Element[], found: CandidateSet): void {
  const script = scripts.find((element) => element.attribs?.id === '__NEXT_DATA__');
  if (!script) return;
  const data = parseJsonLoosely(script.text ?? '');
  if (data === undefined) return;
  // Breadth first, so the page's own image (props.pageProps.post.coverImage) comes before images
  // deeper in the tree (a related post's cover). Image-like strings elsewhere are left to the regex
  // sweep, except those under FRAMEWORK_SKIP_KEY (an author's avatar), which it must not offer.
  const queue: Json[] = [data];
  for (let i = 0; i < queue.length && i < MAX_FRAMEWORK_NODES; i++) {
    const value = queue[i];
    if (value === null || value === undefined || typeof value !== 'object') continue;
    const entries: [string, Json][] = Array.isArray(value) ? value.map((item) => ['', item]) : Object.entries(value);
    for (const [key, child] of entries) {
      const name = key.toLowerCase().replace(/[-_]/g, '');
      if (FRAMEWORK_SKIP_KEY.test(name)) {
        jsonStrings(child, 0).forEach((raw) => found.keepOutOfSweep(raw));
        continue;
      }
      if (FRAMEWORK_IMAGE_KEYS.has(name)) {
        for (const url of frameworkImageUrls(child, 0)) found.add(url, 'next_data', SOURCE_SCORES.next_data);
      } else if (child !== null && typeof child === 'object') {
        queue.push(child);
      }
    }
  }
}

/**
 * URLs inside an image value: the value itself when it is a string (or a list of them), then the
 * src/url-like keys of an image object, then the objects CMSs wrap images in (Contentful
 * image.fields.file.url, Sanity image.asset.url, Strapi image.data.attributes.url, WordPress
 * featuredImage.node.sourceUrl). Other strings (a hero's title or link) are not image URLs.
 */
function frameworkImageUrls(value: Json, depth: number): string[] {
  if (depth > 6 || value === null || typeof value !== 'object') return typeof value === 'string' && URL_LIKE.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((item) => frameworkImageUrls(item, depth + 1));
  const entries = Object.entries(value).map(([key, child]) => [key.toLowerCase().replace(/[-_]/g, ''), child] as const);
  const urls: string[] = [];
  for (const urlKey of FRAMEWORK_URL_KEYS) {
    for (const [key, child] of entries) if (key === urlKey && typeof child === 'string' && URL_LIKE.test(child)) urls.push(child);
  }
  for (const [key, child] of entries) {
    if (child !== null && typeof child === 'object' && (FRAMEWORK_WRAPPER_KEYS.has(key) || FRAMEWORK_IMAGE_KEYS.has(key))) urls.push(...frameworkImageUrls(child, depth + 1));
  }
  return urls;
}

// ---------------------------------------------------------------------------------------------
// img tags (img, amp-img), their srcset and the <source> elements of their <picture>

export interface ImgFeatures {
  /** hero/featured/cover/main/lead/article/post-thumbnail/wp-post-image on the img, a hero-like wrapper, or fetchpriority=high. */
  hint: boolean;
  /** Declared size: large is width >= 600 or height >= 400, medium is width >= 300 or height >= 200. */
  size: 'large' | 'medium' | 'small or unknown';
  /** Inside <article>, <main> or role=main. */
  inContent: boolean;
  /** Among the first three content images (icons and tiny images do not count). */
  early: boolean;
  /** An icon, logo, avatar, emoji, badge or sprite (by class, id or URL), an image in <nav> or <footer>, or a declared side <= 64 px. */
  demoted: boolean;
}

/**
 * Score of an img tag, and of the largest file of its srcset and of its <picture>'s sources:
 * 50 + 15 (hint) + 10 (large) or 5 (medium) + 5 (in content) + 5 (early), clamped to 50..85. An
 * undecorated image scores 50; a large hero-classed first image in the article scores 85. Demoted
 * images get the bottom of the range, 50, whatever else they have, and rank after other 50s.
 */
export function scoreImgTag(features: ImgFeatures): number {
  if (features.demoted) return IMG_SCORE.base;
  const score =
    IMG_SCORE.base +
    (features.hint ? IMG_SCORE.hint : 0) +
    (features.size === 'large' ? IMG_SCORE.large : features.size === 'medium' ? IMG_SCORE.medium : 0) +
    (features.inContent ? IMG_SCORE.inContent : 0) +
    (features.early ? IMG_SCORE.early : 0);
  return Math.min(IMG_SCORE.max, Math.max(IMG_SCORE.base, score));
}

/** Lazy-loading attributes hold the real image; src is often a blur, a blank or a spinner then. */
const LAZY_SRC_ATTRIBUTES = ['data-src', 'data-lazy-src', 'data-original', 'data-image', 'data-lazy', 'data-hi-res-src'];
const SRC_ATTRIBUTES = [...LAZY_SRC_ATTRIBUTES, 'src'];
const SRCSET_ATTRIBUTES = ['data-srcset', 'data-lazy-srcset', 'srcset'];
const IMG_HINT = / (hero|featured?|cover|main|lead|article|post thumbnail|wp post image|entry image|post image) /;
const WRAPPER_HINT = / (hero|featured?|cover|lead|post thumbnail|wp post image|(article|entry|post|main|header|top|lead) (image|img|media|photo|figure|picture)) /;
const EARLY_IMAGES = 3;
const WRAPPER_LEVELS = 3;

function imgTagCandidates(images: Element[], found: CandidateSet): void {
  let contentImages = 0;
  for (const img of images) {
    const attribs = img.attribs ?? {};
    const size = declaredSize(attribs);
    // The <picture>'s sources first, as a browser reads them; this also keeps every file they list out of the sweep.
    const srcsets = [...pictureSources(img), img].map((element) => largestSrcsetEntry(element.attribs ?? {}, found)).filter((entry) => entry !== undefined);
    if (isPlaceholderElement(img, size)) {
      for (const name of SRC_ATTRIBUTES) found.keepOutOfSweep(attribs[name]);
      continue;
    }
    const srcs = SRC_ATTRIBUTES.map((name) => attribs[name]).filter((value): value is string => found.usable(value));
    if (srcsets.length === 0 && srcs.length === 0) continue;
    const largestWidth = Math.max(size.width ?? 0, ...srcsets.map((entry) => entry.width ?? 0));
    const place = placeInPage(img);
    const demoted = isSmall(size) || place.inChrome || isIconElement(img, [...srcs, ...srcsets.map((entry) => entry.url)], found);
    const features: ImgFeatures = {
      hint: hasHint(img),
      size: sizeClass(largestWidth, size.height ?? 0),
      inContent: place.inContent,
      early: !demoted && contentImages < EARLY_IMAGES,
      demoted,
    };
    if (!demoted) contentImages++;
    const score = scoreImgTag(features);
    for (const entry of srcsets) found.add(entry.url, 'srcset', score, demoted);
    for (const src of srcs) found.add(src, 'img_tag', score, demoted);
  }
}

interface Size {
  width?: number;
  height?: number;
}

const STYLE_WIDTH = /(?:^|[;\s])width\s*:\s*(\d+(?:\.\d+)?)px/i;
const STYLE_HEIGHT = /(?:^|[;\s])height\s*:\s*(\d+(?:\.\d+)?)px/i;

/** Width and height from attributes, Medium's data-width/height, Squarespace's data-image-dimensions or an inline style. */
function declaredSize(attribs: Record<string, string>): Size {
  const dimensions = attribs['data-image-dimensions'] === undefined ? null : /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(attribs['data-image-dimensions']);
  const style = attribs.style;
  return {
    width: pixels(attribs.width) ?? pixels(attribs['data-width']) ?? pixels(dimensions?.[1]) ?? (style ? pixels(STYLE_WIDTH.exec(style)?.[1]) : undefined),
    height: pixels(attribs.height) ?? pixels(attribs['data-height']) ?? pixels(dimensions?.[2]) ?? (style ? pixels(STYLE_HEIGHT.exec(style)?.[1]) : undefined),
  };
}

/** A plain pixel count ("600", "600px"); percentages and "auto" say nothing about the file. */
function pixels(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const plain = Number(value);
  if (Number.isFinite(plain)) return plain >= 0 ? plain : undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*px\s*$/i.exec(value);
  return match ? Number(match[1]) : undefined;
}

function sizeClass(width: number, height: number): ImgFeatures['size'] {
  if (width >= 600 || height >= 400) return 'large';
  if (width >= 300 || height >= 200) return 'medium';
  return 'small or unknown';
}

function isSmall(size: Size): boolean {
  return (size.width !== undefined && size.width <= 64) || (size.height !== undefined && size.height <= 64);
}

/** 1x1 and 2x2 tracking pixels, and spinners or spacers named as such by class or id. */
function isPlaceholderElement(img: Element, size: Size): boolean {
  if ((size.width !== undefined && size.width <= 2) || (size.height !== undefined && size.height <= 2)) return true;
  return classOrIdMatches(img, PLACEHOLDER_CLASS_WORDS);
}

function isIconElement(img: Element, urls: string[], found: CandidateSet): boolean {
  // The img and its link or wrapper ("site-logo > img", "author-avatar > img").
  for (let node: Element | null = img, level = 0; node && level < 2; node = node.parent, level++) {
    if (classOrIdMatches(node, ICON_WORDS)) return true;
  }
  return urls.some((raw) => {
    const url = found.resolve(raw);
    return url !== undefined && found.isIcon(url);
  });
}

function hasHint(img: Element): boolean {
  const attribs = img.attribs ?? {};
  if (attribs.fetchpriority?.toLowerCase() === 'high') return true;
  if (classOrIdMatches(img, IMG_HINT)) return true;
  let node = img.parent;
  for (let level = 0; node && level < WRAPPER_LEVELS; node = node.parent, level++) {
    if (classOrIdMatches(node, WRAPPER_HINT)) return true;
  }
  return false;
}

/** Whether an element sits in the page's content (<article>, <main>, role=main) or in its chrome (<nav>, <footer>). */
function placeInPage(node: Element): { inContent: boolean; inChrome: boolean } {
  const place = { inContent: false, inChrome: false };
  for (let ancestor = node.parent; ancestor; ancestor = ancestor.parent) {
    if (ancestor.name === 'article' || ancestor.name === 'main' || ancestor.attribs?.role === 'main') place.inContent = true;
    else if (ancestor.name === 'nav' || ancestor.name === 'footer') place.inChrome = true;
  }
  return place;
}

/** The <source> elements of the <picture> an img sits in. */
function pictureSources(img: Element): Element[] {
  return img.parent?.name === 'picture' ? (img.parent.sources ?? []) : [];
}

interface SrcsetEntry {
  url: string;
  width?: number;
  density: number;
}

/**
 * The largest usable file of an element's srcset (lazy variants first): by w descriptor, else by x.
 * Every file listed is this image in another size (or a placeholder), so all of them are kept out of
 * the regex sweep.
 */
function largestSrcsetEntry(attribs: Record<string, string>, found: CandidateSet): SrcsetEntry | undefined {
  let largest: SrcsetEntry | undefined;
  for (const name of SRCSET_ATTRIBUTES) {
    const srcset = attribs[name];
    if (srcset === undefined) continue;
    const entries = parseSrcset(srcset);
    for (const entry of entries) found.keepOutOfSweep(entry.url);
    if (largest) continue;
    const byWidth = entries.some((entry) => entry.width !== undefined);
    const size = (entry: SrcsetEntry) => (byWidth ? (entry.width ?? 0) : entry.density);
    // Largest first (a stable sort keeps document order among equals); usable() parses a URL, so
    // only as many as it takes.
    largest = entries.sort((a, b) => size(b) - size(a)).find((entry) => found.usable(entry.url));
  }
  return largest;
}

/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

/**
 * Parses a srcset the way browsers do: a URL runs up to whitespace (so CDN URLs with commas,
 * "w_800,h_600", survive), then descriptors up to the next comma.
 */
export function parseSrcset(srcset: string): SrcsetEntry[] {
  const entries: SrcsetEntry[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && (isSpace(srcset.charCodeAt(i)) || srcset[i] === ',')) i++;
    const start = i;
    while (i < srcset.length && !isSpace(srcset.charCodeAt(i))) i++;
    let url = srcset.slice(start, i);
    let descriptors = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const end = srcset.indexOf(',', i);
      descriptors = srcset.slice(i, end === -1 ? srcset.length : end);
      i = end === -1 ? srcset.length : end + 1;
    }
    if (url === '') continue;
    const width = /(?:^|\s)(\d+)w(?:\s|$)/.exec(descriptors)?.[1];
    const density = /(?:^|\s)(\d*\.?\d+)x(?:\s|$)/.exec(descriptors)?.[1];
    entries.push({ url, width: width === undefined ? undefined : Number(width), density: density === undefined ? 1 : Number(density) });
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------
// Regex sweep of the raw HTML: inline scripts, styles, attributes no rule above reads

const MAY_NAME_AN_IMAGE = /\.(jpe?g|png|webp|gif|avif)/i;
// One pass over the page, three shapes: an absolute or protocol-relative URL anywhere
// ("hero":"https://cdn.example/a.jpg?w=1200"), but not the tail of another scheme (ftp://); a CSS
// url(...), relative or not (background-image: url(/img/hero.webp)); a quoted root-relative path
// ("/uploads/2024/hero.jpg").
const SWEEP = /(?:https?:|(?<![\w:]))\/\/[^\s"'<>()\\`{}|^[\]]+|url\(\s*["']?([^"'()\s]+)["']?\s*\)|["'](\/(?!\/)[^"'\s<>]+)["']/gi;

function regexCandidates(html: string, found: CandidateSet): void {
  // JSON in scripts escapes slashes, and attributes hold entity-encoded JSON: undo both first.
  const text = html.replace(/\\(?:\/|u002[fF])|&(?:quot|apos|amp|#0*(?:34|39)|#[xX]0*(?:22|27));/g, (escape) => (escape[0] === '\\' ? '/' : decodeEntities(escape)));
  for (const match of text.matchAll(SWEEP)) {
    const token = match[1] ?? match[2] ?? match[0];
    if (!MAY_NAME_AN_IMAGE.test(token)) continue;
    // A run of URLs joined by commas ("a.jpg,https://b.example/c.jpg") is several tokens.
    for (const part of token.includes(',') ? token.split(/,(?=(?:https?:)?\/\/)/) : [token]) {
      found.addSweepHit(/[.,;:!?]$/.test(part) ? part.replace(/[.,;:!?]+$/, '') : part);
    }
  }
}
