// RENDER_AUTO's rule on small pages: a page is rendered when it names fewer images than
// RENDER_AUTO_MIN_IMAGES and at least RENDER_AUTO_SCRIPT_SHARE of it is script.
import { describe, expect, it } from 'vitest';
import { scriptShare, shouldAutoRender } from '../../src/modules/scrape/auto-render.js';
import { loadConfig } from '../../src/config.js';
import { galleryHtml } from '../fixtures/script-gallery.js';

const rule = { enabled: true, minImages: 3, scriptShare: 0.5 };

/** A single-page app's shell: a root element, a bundle by URL, the usual noscript note. */
const SHELL = `<!doctype html><html><head><title>Photos</title><link rel="stylesheet" href="/app.css"></head>
<body><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div>
<script src="/static/js/main.4f2a9c.js"></script></body></html>`;

const ARTICLE = `<html><body><h1>Harbour at dusk</h1><p>${'The boats come in as the light goes, and the quay fills with people buying the catch. '.repeat(8)}</p>
<script>window.dataLayer = window.dataLayer || []; dataLayer.push({ page: 'article' });</script></body></html>`;

describe('scriptShare', () => {
  it('is near 1 for an app shell and a script-built gallery, low for an article with a tracking script, 0 without script', () => {
    expect(scriptShare(SHELL)).toBe(1); // the title is not body text; noscript is not shown
    expect(scriptShare(galleryHtml(3))).toBeGreaterThan(0.9);
    expect(scriptShare(ARTICLE)).toBeLessThan(0.25);
    expect(scriptShare('<html><body><p>hello</p><img src="/a.png"></body></html>')).toBe(0);
    expect(scriptShare('')).toBe(0);
  });

  it('counts JSON data scripts as script, and style and template text as neither', () => {
    const data = `<html><body><div id="app"></div><script type="application/json" id="state">${JSON.stringify({ photos: ['a', 'b'] })}</script></body></html>`;
    expect(scriptShare(data)).toBe(1);
    const styled = `<html><body><style>${'.tile{width:300px}'.repeat(50)}</style><template>${'x'.repeat(500)}</template><p>ten chars!</p></body></html>`;
    expect(scriptShare(styled)).toBe(0);
  });

  it('does not count a <script> written inside a comment or as text', () => {
    const html = `<html><body><!-- <script>${'x'.repeat(500)}</script> --><p>a &lt;script&gt; tag, in words</p></body></html>`;
    expect(scriptShare(html)).toBe(0);
  });
});

describe('shouldAutoRender', () => {
  it('renders a mostly-script page that names fewer images than the threshold', () => {
    expect(shouldAutoRender(SHELL, 0, rule)).toBe(true);
    expect(shouldAutoRender(SHELL, 2, rule)).toBe(true);
    expect(shouldAutoRender(galleryHtml(3), 0, rule)).toBe(true);
  });

  it('leaves a page alone once it names enough images, however much script it has', () => {
    expect(shouldAutoRender(SHELL, 3, rule)).toBe(false);
    expect(shouldAutoRender(SHELL, 2, { ...rule, minImages: 2 })).toBe(false);
  });

  it('leaves a page with text of its own alone, however few images it names', () => {
    expect(shouldAutoRender(ARTICLE, 0, rule)).toBe(false);
    expect(shouldAutoRender(ARTICLE, 0, { ...rule, scriptShare: 0.1 })).toBe(true);
    expect(shouldAutoRender(SHELL, 0, { ...rule, scriptShare: 1 })).toBe(true);
  });

  it('never renders when RENDER_AUTO is off, the default', () => {
    expect(shouldAutoRender(SHELL, 0, { ...rule, enabled: false })).toBe(false);
    expect(loadConfig({}).render.auto).toEqual({ enabled: false, minImages: 3, scriptShare: 0.5 });
    expect(loadConfig({ RENDER_AUTO: 'true', RENDER_AUTO_MIN_IMAGES: '5', RENDER_AUTO_SCRIPT_SHARE: '0.8' }).render.auto).toEqual({ enabled: true, minImages: 5, scriptShare: 0.8 });
  });

  it('refuses a script share outside 0 to 1, naming the variable', () => {
    expect(() => loadConfig({ RENDER_AUTO_SCRIPT_SHARE: '1.5' })).toThrow(/RENDER_AUTO_SCRIPT_SHARE/);
  });
});
