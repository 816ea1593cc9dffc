// The shared-collection gallery in a real browser (headless Chromium): the password form, a wrong
// password, the right one, three thumbnails that really load and full-size links that answer
// images; another collection's items never appear. Leaves screenshots at $SCREENSHOT_DIR/gallery.png and gallery-password.png.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchBrowser } from '../helpers/browser.js';
import { form, photo } from '../helpers/images.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

async function upload(key: string, name: string, colour: string, seed: number): Promise<number> {
  const body = form({ body: await photo(colour, { seed, width: 960, height: 640 }), name, type: 'image/jpeg' }, { name });
  const response = await fetch(`${t.url}/api/media/upload`, { method: 'POST', headers: { 'X-API-Key': key }, body });
  const json = await response.json();
  if (response.status !== 201) throw new Error(`upload failed: ${response.status} ${JSON.stringify(json)}`);
  return json.media_id as number;
}

describe.runIf(chromiumAvailable)('gallery in Chromium', () => {
  it('asks for the password, refuses a wrong one, then shows exactly the three images of the collection', { timeout: 120_000 }, async () => {
    const account = await t.createAccount('gallery-browser');
    const ids = [await upload(account.key, 'Morning dunes.jpg', '#d9a441', 1), await upload(account.key, 'Blue harbour.jpg', '#2f6db5', 2), await upload(account.key, 'Green valley.jpg', '#3f9a4f', 3)];
    const created = await t.request('POST', '/api/media/collections', { key: account.key, body: { name: 'Summer on the coast', description: 'Three days along the cliffs, from the dunes to the harbour.' } });
    const id = created.body.collection_id as number;
    expect((await t.request('POST', `/api/media/collections/${id}/items`, { key: account.key, body: { media_ids: ids } })).body.added).toBe(3);
    const other = await t.request('POST', '/api/media/collections', { key: account.key, body: { name: 'Private drafts' } });
    await t.request('POST', `/api/media/collections/${other.body.collection_id}/items`, { key: account.key, body: { media_ids: [await upload(account.key, 'Draft-not-shared.jpg', '#aa2222', 4)] } });
    await t.request('POST', `/api/media/collections/${other.body.collection_id}/share`, { key: account.key, body: { public: true } });
    const shared = await t.request('POST', `/api/media/collections/${id}/share`, { key: account.key, body: { public: false, password: 'sea breeze 2026' } });
    expect(shared.body.share_url).toBe(`/gallery/${shared.body.share_token}`);

    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      // Console errors (CSP violations would show here); failed loads are judged by their responses below.
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
      });
      const failed: string[] = [];
      page.on('response', (response) => {
        if (response.status() >= 400) failed.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
      });
      page.on('pageerror', (error) => problems.push(error.message));

      await page.goto(t.url + shared.body.share_url, { waitUntil: 'load' });
      expect(await page.locator('input[type=password]').count()).toBe(1);
      expect(await page.content()).not.toContain('Summer on the coast');

      await page.fill('input[type=password]', 'land breeze');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      expect(await page.locator('.error').innerText()).toContain('That password is not right');
      expect(await page.locator('img').count()).toBe(0);
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/gallery-password.png` });

      await page.fill('input[type=password]', 'sea breeze 2026');
      await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('button[type=submit]')]);
      expect(new URL(page.url()).pathname).toBe(shared.body.share_url);
      expect(await page.locator('h1').innerText()).toBe('Summer on the coast');

      const images = page.locator('.grid img');
      expect(await images.count()).toBe(3);
      await page.waitForFunction(() => [...document.querySelectorAll('.grid img')].every((img) => (img as HTMLImageElement).complete));
      const widths = await images.evaluateAll((list) => list.map((img) => (img as HTMLImageElement).naturalWidth));
      expect(widths.every((w) => w > 0), `naturalWidth ${widths.join(', ')}`).toBe(true);
      expect(await page.locator('.grid .name').allInnerTexts()).toEqual(['Morning dunes.jpg', 'Blue harbour.jpg', 'Green valley.jpg']);
      expect(await page.content()).not.toContain('Draft-not-shared');

      const links = await page.locator('.grid a').evaluateAll((list) => list.map((a) => (a as HTMLAnchorElement).href));
      expect(links).toHaveLength(3);
      for (const link of links) {
        const full = await page.request.get(link);
        expect(full.status()).toBe(200);
        expect(full.headers()['content-type']).toMatch(/^image\//);
      }

      await page.setViewportSize({ width: 1100, height: 640 });
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/gallery.png`, fullPage: true });
      expect(problems).toEqual([]);
      // Only the wrong password (and the browser's own favicon probe) failed.
      expect(failed.filter((f) => !f.endsWith(' GET /favicon.ico'))).toEqual([`401 POST ${shared.body.share_url}`]);
    } finally {
      await close();
    }
  });
});
