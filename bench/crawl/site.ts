// The generated site for the crawl benchmark, served from its own process on 127.0.0.1 so the
// server's CPU and memory never count against a crawler.
//
// Shape: the start page links to HUBS hub pages, the hubs share out the remaining leaf pages, so
// every page is reachable within crawl depth 2. Every page shows IMAGES_PER_PAGE images under
// names of their own. A dozen real JPEG/WebP/PNG bodies (5-60 KB) are rendered with sharp at
// start-up; each image URL gets one of them with a unique, format-valid marker inside (a JPEG
// comment segment, a PNG tEXt chunk, an extra WebP chunk), because the crawler under test stores
// identical bytes only once.
import sharp from 'sharp';
import { withMarker, type MarkedFormat as Format } from '../image-markers.js';
import { serveSiteInChild, type SiteAnswer, type SiteManifest, type SiteStats } from './common.js';

export const PAGES = 1000;
export const HUBS = 32;
export const IMAGES_PER_PAGE = 5;
const LEAVES = PAGES - 1 - HUBS;
const RELATED_LINKS = 8;

export const EXT: Record<Format, string> = { jpeg: 'jpg', png: 'png', webp: 'webp' };
export const MIME: Record<Format, string> = { jpeg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

interface Variant {
  format: Format;
  width: number;
  height: number;
  /** Noise strength: more noise, more bytes, like a busier photo. */
  sigma: number;
  /** PNGs are blurred and palettised (graphics rather than photos), or they would be far too big. */
  blur?: number;
}

// Sizes from about 6 to 60 KB; jpeg the most common, as on real sites.
export const VARIANTS: Variant[] = [
  { format: 'jpeg', width: 240, height: 160, sigma: 10 },
  { format: 'jpeg', width: 320, height: 240, sigma: 10 },
  { format: 'jpeg', width: 320, height: 240, sigma: 20 },
  { format: 'jpeg', width: 480, height: 320, sigma: 10 },
  { format: 'jpeg', width: 480, height: 320, sigma: 20 },
  { format: 'jpeg', width: 640, height: 427, sigma: 10 },
  { format: 'jpeg', width: 760, height: 506, sigma: 10 },
  { format: 'webp', width: 240, height: 160, sigma: 20 },
  { format: 'webp', width: 480, height: 320, sigma: 10 },
  { format: 'webp', width: 640, height: 427, sigma: 10 },
  { format: 'png', width: 160, height: 120, sigma: 40, blur: 2 },
  { format: 'png', width: 320, height: 240, sigma: 40, blur: 2 },
];

export async function render(v: Variant, index: number): Promise<Buffer> {
  const background = { r: 40 + ((index * 53) % 180), g: 60 + ((index * 97) % 160), b: 80 + ((index * 31) % 150) };
  let image = sharp({ create: { width: v.width, height: v.height, channels: 3, background, noise: { type: 'gaussian', mean: 120, sigma: v.sigma } } });
  if (v.blur) image = image.blur(v.blur);
  if (v.format === 'jpeg') return image.jpeg({ quality: 80 }).toBuffer();
  if (v.format === 'webp') return image.webp({ quality: 75 }).toBuffer();
  return image.png({ compressionLevel: 9, palette: true, colours: 16 }).toBuffer();
}

// ---------------------------------------------------------------------------------------------
// Pages: deterministic filler text so pages weigh what real article pages weigh (about 10 KB).

const WORDS = (
  'image gallery light colour portrait street morning harbour market mountain river city old new ' +
  'travel story photo season quiet window garden bridge evening winter summer road field village ' +
  'coast island museum studio archive camera lens frame shadow print detail texture north south'
).split(' ');

function words(seed: number, count: number): string {
  const out: string[] = [];
  let x = seed * 2654435761 + 1;
  for (let i = 0; i < count; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

interface Page {
  path: string;
  title: string;
  links: string[];
  images: string[];
}

function pagePath(index: number): string {
  if (index === 0) return '/';
  if (index <= HUBS) return `/section/${index}/`;
  const leaf = index - HUBS - 1;
  return `/section/${(leaf % HUBS) + 1}/story-${leaf + 1}.html`;
}

function buildPages(): { pages: Page[]; imageFormat: Format[] } {
  const pages: Page[] = [];
  const imageFormat: Format[] = [];
  const hubLeaves: number[][] = Array.from({ length: HUBS }, () => []);
  for (let leaf = 0; leaf < LEAVES; leaf++) hubLeaves[leaf % HUBS]!.push(HUBS + 1 + leaf);
  for (let index = 0; index < PAGES; index++) {
    const images: string[] = [];
    for (let j = 0; j < IMAGES_PER_PAGE; j++) {
      const k = index * IMAGES_PER_PAGE + j;
      const format = VARIANTS[variantOf(k)]!.format;
      imageFormat.push(format);
      images.push(`/media/${Math.floor(k / 500)}/photo-${k + 1}.${EXT[format]}`);
    }
    let links: string[];
    let title: string;
    if (index === 0) {
      title = 'Photo magazine';
      links = Array.from({ length: HUBS }, (_v, h) => pagePath(h + 1));
    } else if (index <= HUBS) {
      title = `Section ${index}`;
      links = hubLeaves[index - 1]!.map(pagePath);
    } else {
      // A leaf links back to its hub and to a few siblings: links the crawl has already seen.
      const hub = ((index - HUBS - 1) % HUBS) + 1;
      const siblings = hubLeaves[hub - 1]!;
      const at = siblings.indexOf(index);
      title = `Story ${index - HUBS}`;
      links = [pagePath(hub), ...Array.from({ length: RELATED_LINKS }, (_v, r) => pagePath(siblings[(at + r + 1) % siblings.length]!))];
    }
    pages.push({ path: pagePath(index), title, links, images });
  }
  return { pages, imageFormat };
}

/** Spreads the variants over the image numbers, so neighbours differ in format and size. */
export function variantOf(k: number): number {
  return (k * 7) % VARIANTS.length;
}

const NAV = [`<a href="/">Home</a>`, ...Array.from({ length: HUBS }, (_v, h) => `<a href="${pagePath(h + 1)}">Section ${h + 1}</a>`)].join('\n');
const STYLE = `<style>${'body{font-family:Georgia,serif;margin:0 auto;max-width:960px;color:#222}nav a{margin-right:.5em}figure{margin:1.5em 0}img{max-width:100%;height:auto}'.repeat(4)}</style>`;

function renderPage(page: Page, index: number): string {
  const figures = page.images.map(
    (src, j) =>
      `<figure><img src="${src}" alt="${words(index * 10 + j, 6)}" width="640" height="427" loading="lazy" decoding="async"><figcaption>${words(index * 20 + j, 14)}</figcaption></figure>\n<p>${words(index * 30 + j, 180)}</p>`,
  );
  const list = page.links.map((href, i) => `<li><a href="${href}">${words(index * 40 + i, 5)}</a></li>`).join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title><meta name="description" content="${words(index, 25)}">${STYLE}</head>
<body><header><nav>${NAV}</nav></header>
<main><article><h1>${page.title}</h1><p>${words(index + 7, 120)}</p>
${figures.join('\n')}
</article><aside><h2>Read more</h2><ul>${list}</ul></aside></main>
<footer><p>${words(index + 99, 40)}</p><p>&copy; Photo magazine</p></footer></body></html>`;
}

// ---------------------------------------------------------------------------------------------

/** Builds the site, listens on 127.0.0.1:0 and reports over IPC; runs until the parent disconnects. */
export async function runSiteServer(): Promise<void> {
  const bases = await Promise.all(VARIANTS.map(render));
  const { pages, imageFormat } = buildPages();
  const html = new Map<string, Buffer>();
  pages.forEach((page, index) => html.set(page.path, Buffer.from(renderPage(page, index))));
  // Every image body prepared once: serving should cost the server as little as possible.
  const images = new Map<string, { body: Buffer; mime: string }>();
  pages.forEach((page) =>
    page.images.forEach((path) => {
      const k = images.size;
      const format = imageFormat[k]!;
      images.set(path, { body: withMarker(format, bases[variantOf(k)]!, `crawl bench image ${k + 1} ${path}`), mime: MIME[format] });
    }),
  );
  // The markers must leave the files valid: decode one of each format completely.
  for (const format of ['jpeg', 'png', 'webp'] as const) {
    const sample = [...images.values()].find((i) => i.mime === MIME[format])!;
    const { info } = await sharp(sample.body).raw().toBuffer({ resolveWithObject: true });
    if (info.width <= 0) throw new Error(`a marked ${format} does not decode`);
  }

  const stats: Omit<SiteStats, 'cpuSeconds'> = { pages: 0, images: 0, robots: 0, notFound: 0, bytes: 0 };
  const answer = ({ pathname: path }: URL): SiteAnswer | undefined => {
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
    if (path === '/robots.txt') {
      stats.robots++;
      return { type: 'text/plain', body: 'User-agent: *\nAllow: /\n' };
    }
    return undefined;
  };

  const formats: SiteManifest['formats'] = {};
  for (const { body, mime } of images.values()) {
    const f = (formats[mime] ??= { count: 0, minKb: Infinity, maxKb: 0, meanKb: 0 });
    const kb = body.length / 1024;
    f.count++;
    f.minKb = Math.min(f.minKb, kb);
    f.maxKb = Math.max(f.maxKb, kb);
    f.meanKb += kb;
  }
  for (const f of Object.values(formats)) f.meanKb /= f.count;
  const manifestOf = (url: string): SiteManifest => ({
    url,
    pages: html.size,
    hubs: HUBS,
    images: images.size,
    imageBytes: [...images.values()].reduce((sum, i) => sum + i.body.length, 0),
    htmlBytes: [...html.values()].reduce((sum, b) => sum + b.length, 0),
    formats,
  });
  await serveSiteInChild(stats, answer, manifestOf, (bytes) => (stats.bytes += bytes));
}
