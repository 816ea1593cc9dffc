// RENDER_AUTO's rule: which pages of a scrape that did not ask for `render` are rendered anyway.
// A page is rendered when its HTML as served names few images and is mostly script: the shape of
// a gallery built in the browser (a single-page app's shell, a JSON list read by script). A page
// that names its images, or has text of its own, is read as served.
import * as cheerio from 'cheerio';
import type { RenderAuto } from '../render/index.js';

/**
 * Whether a page whose static parse found `imagesFound` images should be rendered. Checked in that
 * order: the script measure parses the page again, which only pages with few images pay.
 */
export function shouldAutoRender(html: string, imagesFound: number, rule: RenderAuto): boolean {
  return rule.enabled && imagesFound < rule.minImages && scriptShare(html) >= rule.scriptShare;
}

/**
 * The share of a page that is script: characters of its <script> elements (tags included, so an
 * app's `<script src>` counts too; JSON data scripts alike), over those plus the characters of its
 * body's visible text (whitespace collapsed). 0 for a page with neither.
 */
export function scriptShare(html: string): number {
  const $ = cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
  let script = 0;
  $('script').each((_i, el) => {
    script += $.html(el).length;
  });
  $('script, style, noscript, template').remove();
  const text = $('body').text().replace(/\s+/g, ' ').trim().length;
  return script + text === 0 ? 0 : script / (script + text);
}
