// img tags (img, amp-img, a video's poster), their srcset and the <source> elements of their
// <picture>, scored 50..85 by what the page says about them (scoreImgTag).
import type { CandidateSet } from './candidate-set.js';
import { classOrIdMatches, pixels } from './html-values.js';
import type { Element } from './page-elements.js';
import { largestSrcsetEntry } from './srcset.js';
import { ICON_WORDS, PLACEHOLDER_CLASS_WORDS } from './url-screening.js';

/** Parts of an img tag's score; the sum of everything is exactly the top of the spec's 50..85 range. */
export const IMG_SCORE = { base: 50, hint: 15, large: 10, medium: 5, inContent: 5, early: 5, max: 85 } as const;

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

const IMG_HINT = / (hero|featured?|cover|main|lead|article|post thumbnail|wp post image|entry image|post image) /;
const WRAPPER_HINT = / (hero|featured?|cover|lead|post thumbnail|wp post image|(article|entry|post|main|header|top|lead) (image|img|media|photo|figure|picture)) /;
const EARLY_IMAGES = 3;
const WRAPPER_LEVELS = 3;

export function imgTagCandidates(images: Element[], found: CandidateSet): void {
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
