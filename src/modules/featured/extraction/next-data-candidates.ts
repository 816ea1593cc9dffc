// Framework data: the page's image in Next.js <script id="__NEXT_DATA__">, found by key names.
import { SOURCE_SCORES, type CandidateSet } from './candidate-set.js';
import { jsonStrings, parseJsonLoosely, URL_LIKE, type Json } from './loose-json.js';
import type { Element } from './page-elements.js';

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

export function nextDataCandidates(scripts: Element[], found: CandidateSet): void {
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
