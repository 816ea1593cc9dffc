// JSON-LD (application/ld+json): the images of the nodes that describe the page (articles,
// products, recipes ... first), never an author's photo or a publisher's logo; and its headline.
import { SOURCE_SCORES, type CandidateSet } from './candidate-set.js';
import { jsonStrings, parseJsonLoosely, URL_LIKE, type Json, type JsonObject } from './loose-json.js';
import type { Element } from './page-elements.js';
import { IMAGE_FILE } from './url-screening.js';

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

export function jsonLdCandidates(scripts: Element[], found: CandidateSet): void {
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

/** The first string `headline` (or `name` of an Article-like node) in the page's JSON-LD. */
export function jsonLdHeadline(scripts: Element[]): string | undefined {
  for (const script of scripts) {
    if (script.attribs?.type?.trim().toLowerCase() !== 'application/ld+json') continue;
    const data = parseJsonLoosely(script.text ?? '');
    const nodes: JsonObject[] = [];
    if (data !== undefined) collectJsonLdNodes(data, nodes, () => {}, 0);
    for (const node of nodes) if (typeof node.headline === 'string' && node.headline.trim()) return node.headline;
  }
  return undefined;
}
