// The script-built gallery site of the render benchmark, served from its own process on 127.0.0.1
// (so its CPU and memory never count against a crawler). test/fixtures/script-gallery.ts shows one
// such page; this is a site of them.
//
// Shape: the home page links to HUBS hub pages in its static nav; each hub's list of its LEAVES_PER_HUB
// story pages comes as JSON and is written into the page by script (so only a crawler that runs the
// script reaches the stories); every page is within crawl depth 2 of the home page. No page's HTML
// as served names an image: each page's gallery is built by script, in one of four ways (by page
// number), and every page shows the site's logo as a CSS background set by script:
// - json: the image list comes as JSON and becomes <img src> (half of them with a 2x srcset);
// - lazy: <img data-src> tiles, src set by an IntersectionObserver when a tile scrolls into view;
// - infinite: a sentinel under the grid fetches the next JSON page when it scrolls into view, and
//   the tiles it adds load lazily as above;
// - backgrounds: tiles whose CSS background-image is set by an IntersectionObserver.
// Every image URL has bytes of its own (a marker inside a real JPEG/WebP/PNG thumbnail, as the
// crawl benchmark's site does), so dedupe by hash keeps each one and a crawler's count is a count of URLs.
import { withMarker } from '../image-markers.js';
import { EXT, MIME, render, VARIANTS } from '../crawl/site.js';
import { serveSiteInChild, type SiteAnswer } from '../crawl/common.js';

export const HUBS = 9;
export const LEAVES_PER_HUB = 10;
const KINDS = ['json', 'lazy', 'infinite', 'backgrounds'] as const;
type Kind = (typeof KINDS)[number];
const JSON_IMAGES = 8;
const LAZY_TILES = 12;
const INFINITE_BATCHES = 2;
// Three rows of four: a batch pushes the sentinel out of view, so the next comes only by scrolling.
const INFINITE_PER_BATCH = 12;
const BACKGROUND_TILES = 8;
// Thumbnails: the small ones of the crawl benchmark's variants (6-20 KB), as a gallery grid shows.
const THUMBS = VARIANTS.flatMap((v, i) => (v.width <= 320 ? [i] : []));
const LOGO = '/img/logo.png';

/** What the site server says about itself once it listens. */
export interface RenderSiteManifest {
  url: string;
  pages: number;
  /** Distinct image URLs the pages show once scrolled to the end (srcset candidates and the logo included). */
  images: number;
  imageBytes: number;
  /** Pages per kind of gallery. */
  kinds: Record<Kind, number>;
}

/** Requests the site answered (cumulative; the parent takes differences around each run). */
export interface RenderSiteStats {
  pages: number;
  json: number;
  images: number;
  notFound: number;
  cpuSeconds: number;
}

interface Page {
  path: string;
  title: string;
  kind: Kind;
  /** Links in the static HTML. */
  links: string[];
  /** Links written by script from /api/links/<id>.json. */
  scriptLinks: string[];
  /** The gallery's images: batches (one for all kinds but infinite), each a list of [src, 2x src?]. */
  batches: Array<Array<[string, string?]>>;
}

const hubPath = (h: number) => `/hub/${h}/`;
const leafPath = (h: number, k: number) => `/hub/${h}/story-${k}.html`;

/** The pages, and for each image path the index of the VARIANTS entry its bytes are made from (its extension names that format). */
function buildPages(): { pages: Page[]; variantOfImage: Map<string, number> } {
  const pages: Page[] = [];
  const variantOfImage = new Map<string, number>([[LOGO, VARIANTS.findIndex((v) => v.format === 'png')]]);
  const paths = [
    '/',
    ...Array.from({ length: HUBS }, (_v, h) => hubPath(h + 1)),
    ...Array.from({ length: HUBS * LEAVES_PER_HUB }, (_v, i) => leafPath((i % HUBS) + 1, Math.floor(i / HUBS) + 1)),
  ];
  const nav = ['/', ...Array.from({ length: HUBS }, (_v, h) => hubPath(h + 1))];
  paths.forEach((path, id) => {
    const kind = KINDS[id % KINDS.length]!;
    const image = (n: number, suffix = '') => {
      const variant = THUMBS[(id * 31 + n + suffix.length) % THUMBS.length]!;
      const path = `/img/p${id}-${n}${suffix}.${EXT[VARIANTS[variant]!.format]}`;
      variantOfImage.set(path, variant);
      return path;
    };
    let batches: Page['batches'];
    if (kind === 'json') batches = [Array.from({ length: JSON_IMAGES }, (_v, n) => (n % 2 === 0 ? [image(n), image(n, '@2x')] : [image(n)]))];
    else if (kind === 'lazy') batches = [Array.from({ length: LAZY_TILES }, (_v, n) => [image(n)])];
    else if (kind === 'infinite') batches = Array.from({ length: INFINITE_BATCHES }, (_v, b) => Array.from({ length: INFINITE_PER_BATCH }, (_w, n) => [image(b * INFINITE_PER_BATCH + n)]));
    else batches = [Array.from({ length: BACKGROUND_TILES }, (_v, n) => [image(n)])];
    const hub = /^\/hub\/(\d+)\/$/.exec(path)?.[1];
    const leaf = /^\/hub\/(\d+)\/story-(\d+)\.html$/.exec(path);
    let scriptLinks: string[] = [];
    if (hub) scriptLinks = Array.from({ length: LEAVES_PER_HUB }, (_v, k) => leafPath(Number(hub), k + 1));
    if (leaf) {
      const [h, k] = [Number(leaf[1]), Number(leaf[2])];
      scriptLinks = [1, 2].map((step) => leafPath(h, ((k - 1 + step) % LEAVES_PER_HUB) + 1));
    }
    pages.push({ path, title: id === 0 ? 'Gallery' : hub ? `Hub ${hub}` : `Story ${id}`, kind, links: nav, scriptLinks, batches });
  });
  return { pages, variantOfImage };
}

// One script for every page; the page's id and kind come as data attributes on <body>.
const SCRIPT = `
const body = document.body;
const id = body.dataset.id;
const kind = body.dataset.kind;
const grid = document.getElementById('grid');
document.getElementById('logo').style.backgroundImage = 'url(' + ${JSON.stringify(LOGO)} + ')';
const lazy = new IntersectionObserver((entries) => {
  for (const e of entries) {
    if (!e.isIntersecting) continue;
    const t = e.target;
    if (t.tagName === 'IMG') t.src = t.dataset.src;
    else t.style.backgroundImage = 'url(' + t.dataset.bg + ')';
    lazy.unobserve(t);
  }
});
async function json(path) { return (await fetch(path)).json(); }
function tile(item) {
  if (kind === 'backgrounds') {
    const div = document.createElement('div');
    div.className = 'tile';
    div.dataset.bg = item[0];
    lazy.observe(div);
    return div;
  }
  const img = document.createElement('img');
  img.className = 'tile';
  img.alt = '';
  if (kind === 'json') {
    img.src = item[0];
    if (item[1]) img.srcset = item[0] + ' 1x, ' + item[1] + ' 2x';
  } else {
    img.dataset.src = item[0];
    lazy.observe(img);
  }
  return img;
}
let batch = 0;
let loading = false;
async function more() {
  if (loading) return;
  loading = true;
  const answer = await json('/api/gallery/' + id + '.json?batch=' + batch);
  for (const item of answer.items) grid.appendChild(tile(item));
  batch++;
  loading = false;
  if (answer.last) { sentinel.remove(); return; }
  if (kind !== 'infinite') more();
}
const sentinel = document.getElementById('sentinel');
if (kind === 'infinite') new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more(); }).observe(sentinel);
else more();
json('/api/links/' + id + '.json').then((links) => {
  const list = document.getElementById('more');
  for (const link of links) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = link.href;
    a.textContent = link.title;
    li.appendChild(a);
    list.appendChild(li);
  }
});
`;

const STYLE =
  '<style>body{font-family:sans-serif;margin:0 auto;max-width:1240px}#logo{width:160px;height:48px;background-size:contain}' +
  '#grid{display:grid;grid-template-columns:repeat(4,290px);gap:10px}.tile{display:block;width:290px;height:290px;background-size:cover}' +
  '#sentinel{height:40px}</style>';

function renderPage(page: Page, id: number): string {
  const nav = page.links.map((href) => `<a href="${href}">${href === '/' ? 'Home' : `Hub ${href.split('/')[2]}`}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${page.title}</title>${STYLE}</head>
<body data-id="${id}" data-kind="${page.kind}"><header><div id="logo"></div><nav>${nav}</nav></header>
<main><h1>${page.title}</h1><div id="grid"></div><div id="sentinel">loading</div></main>
<aside><h2>More</h2><ul id="more"></ul></aside>
<script>${SCRIPT}</script></body></html>`;
}

/** Builds the site, listens on 127.0.0.1:0 and reports over IPC; runs until the parent disconnects. */
export async function runRenderSiteServer(): Promise<void> {
  const bases = await Promise.all(VARIANTS.map(render));
  const { pages, variantOfImage } = buildPages();
  const html = new Map<string, Buffer>();
  const gallery = new Map<string, Buffer[]>();
  const links = new Map<string, Buffer>();
  const images = new Map<string, { body: Buffer; mime: string }>();
  for (const [path, v] of variantOfImage) {
    images.set(path, { body: withMarker(VARIANTS[v]!.format, bases[v]!, `render bench image ${images.size + 1} ${path}`), mime: MIME[VARIANTS[v]!.format] });
  }
  pages.forEach((page, id) => {
    html.set(page.path, Buffer.from(renderPage(page, id)));
    gallery.set(String(id), page.batches.map((items, b) => Buffer.from(JSON.stringify({ items, last: b === page.batches.length - 1 }))));
    const titled = page.scriptLinks.map((href) => ({ href, title: pages.find((p) => p.path === href)!.title }));
    links.set(String(id), Buffer.from(JSON.stringify(titled)));
  });

  const stats = { pages: 0, json: 0, images: 0, notFound: 0 };
  const answer = (url: URL): SiteAnswer | undefined => {
    const path = url.pathname;
    const page = html.get(path);
    if (page) {
      stats.pages++;
      return { type: 'text/html; charset=utf-8', body: page };
    }
    const image = images.get(path);
    if (image) {
      stats.images++;
      return { type: image.mime, body: image.body };
    }
    const api = /^\/api\/(gallery|links)\/(\d+)\.json$/.exec(path);
    const json = api?.[1] === 'gallery' ? gallery.get(api[2]!)?.[Number(url.searchParams.get('batch') ?? 0)] : api ? links.get(api[2]!) : undefined;
    if (json) {
      stats.json++;
      return { type: 'application/json', body: json };
    }
    if (path === '/robots.txt') return { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
    return undefined;
  };
  const kinds = Object.fromEntries(KINDS.map((k) => [k, pages.filter((p) => p.kind === k).length])) as Record<Kind, number>;
  const manifestOf = (url: string): RenderSiteManifest => ({
    url,
    pages: html.size,
    images: images.size,
    imageBytes: [...images.values()].reduce((sum, i) => sum + i.body.length, 0),
    kinds,
  });
  await serveSiteInChild(stats, answer, manifestOf);
}
