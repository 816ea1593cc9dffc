// The candidates of one page: each raw value resolved against the document base, screened,
// de-duplicated (the better source and score of a URL wins) and ranked; and the URLs the regex
// sweep must not bring back. Also the vocabulary of an answer: the sources and their scores.
import { decodeEntities } from './html-values.js';
import type { Element } from './page-elements.js';
import { IMAGE_FILE, screenUrl, type UrlScreening } from './url-screening.js';

export const FEATURED_SOURCES = ['og_meta', 'twitter_meta', 'link_image_src', 'next_data', 'json_ld', 'srcset', 'img_tag', 'regex'] as const;
export type FeaturedSource = (typeof FEATURED_SOURCES)[number];

export interface FeaturedCandidate {
  url: string;
  /** Integer 0..100. */
  score: number;
  source: FeaturedSource;
}

export const SOURCE_SCORES = { og_meta: 100, twitter_meta: 100, link_image_src: 95, json_ld: 90, next_data: 90, regex: 35 } as const;

// The spec's search order (og, twitter, link, structured data, img tags) decides ties. JSON-LD goes
// before framework data because it is schema.org markup meant to describe the page, while framework
// data is found by key names. A srcset's largest file goes before the same img's src.
const TIE_ORDER: readonly FeaturedSource[] = ['og_meta', 'twitter_meta', 'link_image_src', 'json_ld', 'next_data', 'srcset', 'img_tag', 'regex'];

/** The site's own explicit choice: never screened for names like "logo" or "placeholder". */
const EXPLICIT_SOURCES = new Set<FeaturedSource>(['og_meta', 'twitter_meta', 'link_image_src']);

interface Found extends FeaturedCandidate {
  /** Icons and tiny images: ranked after other candidates of the same score. */
  demoted: boolean;
  order: number;
}

export class CandidateSet {
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
export function documentBase(base: Element | undefined, pageUrl: string): URL | undefined {
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
