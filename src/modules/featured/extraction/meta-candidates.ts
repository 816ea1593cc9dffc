// The site's explicit choice: og:image, twitter:image (meta tags) and link rel=image_src.
import { SOURCE_SCORES, type CandidateSet } from './candidate-set.js';
import { pixels, words } from './html-values.js';
import type { Element } from './page-elements.js';

const META_SOURCES: Record<string, 'og_meta' | 'twitter_meta'> = {
  'og:image': 'og_meta',
  'og:image:url': 'og_meta',
  'og:image:secure_url': 'og_meta',
  'twitter:image': 'twitter_meta',
  'twitter:image:src': 'twitter_meta',
};

export function metaCandidates(metas: Element[], found: CandidateSet): void {
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

export function linkImageSrcCandidates(links: Element[], found: CandidateSet): void {
  for (const { attribs = {} } of links) {
    if (attribs.rel && words(attribs.rel).includes(' image src ')) found.add(attribs.href, 'link_image_src', SOURCE_SCORES.link_image_src);
  }
}
