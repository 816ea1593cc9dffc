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
// The rules of each source live in extraction/ (one file each); this file runs them in order.
import { CandidateSet, documentBase, type FeaturedCandidate } from './extraction/candidate-set.js';
import { decodeEntities } from './extraction/html-values.js';
import { imgTagCandidates } from './extraction/img-candidates.js';
import { jsonLdCandidates, jsonLdHeadline } from './extraction/json-ld-candidates.js';
import { linkImageSrcCandidates, metaCandidates } from './extraction/meta-candidates.js';
import { nextDataCandidates } from './extraction/next-data-candidates.js';
import { collectElements, MAX_HEADLINE, type PageElements } from './extraction/page-elements.js';
import { regexCandidates } from './extraction/regex-sweep.js';

export { FEATURED_SOURCES, type FeaturedCandidate, type FeaturedSource } from './extraction/candidate-set.js';

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

function headlineOf(page: PageElements): string | null {
  const meta = (key: string) => page.metas.find((m) => (m.attribs.property ?? m.attribs.name ?? '').trim().toLowerCase() === key)?.attribs.content;
  for (const text of [meta('og:title'), meta('twitter:title'), jsonLdHeadline(page.scripts), page.h1, page.title]) {
    const clean = text === undefined ? '' : decodeEntities(text).replace(/\s+/g, ' ').trim();
    if (clean) return clean.length > MAX_HEADLINE ? `${clean.slice(0, MAX_HEADLINE - 1)}…` : clean;
  }
  return null;
}
