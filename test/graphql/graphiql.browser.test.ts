// GraphiQL in a real browser: it renders from the service alone (no CDN) and runs a query.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { chromiumAvailable, launchBrowser } from '../helpers/browser.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

describe.runIf(chromiumAvailable)('GraphiQL in Chromium', () => {
  it('renders without any outside request and answers a query', { timeout: 90_000 }, async () => {
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      const outside: string[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) outside.push(request.url());
      });
      const loaded = await page.goto(`${t.url}/graphql?query=${encodeURIComponent('{ health }')}`, { waitUntil: 'load' });
      // The page (megabytes of inlined JavaScript) comes compressed, and the browser decodes it.
      expect(['br', 'gzip']).toContain(loaded?.headers()['content-encoding']);
      await page.waitForSelector('.graphiql-container', { timeout: 60_000 });
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${t.url}/graphql`) && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('health')),
        page.click('.graphiql-execute-button'),
      ]);
      expect(await response.json()).toEqual({ data: { health: true } });
      await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/graphiql.png` });
      expect(outside).toEqual([]);
    } finally {
      await close();
    }
  });

  it('opens with the welcome query, which answers data once the key is in the Headers pane', { timeout: 90_000 }, async () => {
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(`${t.url}/graphql`, { waitUntil: 'load' });
      await page.waitForSelector('.graphiql-container', { timeout: 60_000 });
      // The Headers pane is open and empty; the key goes there as its comment says.
      const headers = page.locator('.graphiql-editor-tool .graphiql-editor').last();
      await headers.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.insertText(JSON.stringify({ 'X-API-Key': t.ownerKey }));
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().startsWith(`${t.url}/graphql`) && r.request().method() === 'POST' && (r.request().postData() ?? '').includes('Welcome')),
        page.click('.graphiql-execute-button'),
      ]);
      const body = await response.json();
      expect(body.errors).toBeUndefined();
      expect(body.data.viewer).toMatchObject({ handle: 'owner', jobs: { totalCount: 0 } });
      expect(response.request().headers()['x-api-key']).toBe(t.ownerKey);
    } finally {
      await close();
    }
  });
});
