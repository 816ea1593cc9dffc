// The same job done with Crawlee 3's PlaywrightCrawler, written the way Crawlee's docs suggest: one
// crawler, Debian's Chromium driven through playwright-core's `chromium` as the launcher (no browser
// download), each page scrolled with the context's infiniteScroll (playwrightUtils.infiniteScroll)
// until no new requests come, then its images taken from
// - the image responses the page received (their bodies, from the browser), and
// - the final DOM: img currentSrc and every srcset candidate, and CSS background images (computed
//   style); those the browser never loaded are fetched with the context's sendRequest;
// and its same-hostname links enqueued with enqueueLinks. Every image is written to a temp folder
// under its SHA-256, so identical bytes count once, as our service stores them.
//
// Fairness: robots.txt respected (ours reads it too), storage in memory (persistStorage: false), no
// session pool, no proxy, no fingerprints (they would pick a random viewport; ours is 1280x900, this
// one Playwright's 1280x720). infiniteScroll's waitForSecs (how many 1-second checks without a new
// XHR/fetch end the scrolling; Crawlee's default 4) is a knob; the bench states what it ran with.
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Response } from 'playwright-core';
import type { RenderCrawlResult } from './common.js';
import { inCrawleeWorkDir } from '../crawl/common.js';

export interface CrawleeOptions {
  startUrl: string;
  /** Temp folders go under this one (the parent removes it even if this process dies). */
  tmpRoot: string;
  chromiumPath: string;
  /** Undefined: Crawlee's autoscaled default (from 1 page up to 200, as CPU and memory allow). */
  maxConcurrency?: number;
  waitForSecs: number;
}

/**
 * Runs in the page: image URLs of the final DOM (img current source, srcset candidates, CSS
 * backgrounds). A string, not a function: tsx's compiled functions call a helper the page lacks.
 */
const DOM_IMAGES = `(() => {
  const urls = new Set();
  const add = (value) => { if (value) urls.add(new URL(value, document.baseURI).href); };
  for (const img of document.images) {
    add(img.currentSrc || img.src);
    for (const candidate of (img.getAttribute('srcset') || '').split(',')) add(candidate.trim().split(/\\s+/)[0]);
  }
  for (const element of document.querySelectorAll('body *')) {
    for (const match of getComputedStyle(element).backgroundImage.matchAll(/url\\(\\s*(['"]?)(.*?)\\1\\s*\\)/g)) add(match[2]);
  }
  return [...urls].filter((url) => url.startsWith('http'));
})()`;

export async function runCrawlee(options: CrawleeOptions, started: (rootPid: number) => Promise<void>): Promise<RenderCrawlResult> {
  return inCrawleeWorkDir(options.tmpRoot, async ({ outDir, notes: notesOf }) => {
    // Imported here, not at the top, so only this child pays for loading Crawlee.
    const { PlaywrightCrawler, Configuration, createPlaywrightRouter, log, LogLevel } = await import('@crawlee/playwright');
    const { chromium } = await import('playwright-core');
    log.setLevel(LogLevel.WARNING);

    let pages = 0;
    let failed = 0;
    const seenUrls = new Set<string>();
    const stored = new Set<string>();
    const store = async (bytes: Buffer) => {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (stored.has(sha256)) return;
      stored.add(sha256);
      await writeFile(join(outDir, sha256), bytes);
    };
    // The image bodies each page received, read while the page runs; the handler waits for them.
    const pending = new WeakMap<object, Array<Promise<void>>>();

    const router = createPlaywrightRouter();
    router.addDefaultHandler(async ({ page, infiniteScroll, enqueueLinks, sendRequest }) => {
      await infiniteScroll({ waitForSecs: options.waitForSecs });
      const inDom = await page.evaluate<string[]>(DOM_IMAGES);
      await Promise.all(pending.get(page) ?? []);
      for (const url of inDom) {
        if (seenUrls.has(url)) continue;
        seenUrls.add(url);
        const response = await sendRequest({ url, responseType: 'buffer' });
        if (response.statusCode < 300 && String(response.headers['content-type']).startsWith('image/')) await store(response.rawBody);
      }
      await enqueueLinks({ strategy: 'same-hostname' });
      pages++;
    });

    const crawler = new PlaywrightCrawler(
      {
        requestHandler: router,
        launchContext: { launcher: chromium, launchOptions: { executablePath: options.chromiumPath } },
        browserPoolOptions: { useFingerprints: false },
        ...(options.maxConcurrency ? { maxConcurrency: options.maxConcurrency } : {}),
        respectRobotsTxtFile: true,
        useSessionPool: false,
        persistCookiesPerSession: false,
        preNavigationHooks: [
          ({ page }) => {
            const reads: Array<Promise<void>> = [];
            pending.set(page, reads);
            page.on('response', (response: Response) => {
              const type = response.headers()['content-type'] ?? '';
              const url = response.url();
              if (!type.startsWith('image/') || response.status() >= 300 || seenUrls.has(url)) return;
              seenUrls.add(url);
              reads.push(
                response.body().then(store, () => {
                  seenUrls.delete(url); // the body is gone (page closed): the DOM pass fetches it instead
                }),
              );
            });
          },
        ],
        failedRequestHandler: () => {
          failed++;
        },
      },
      new Configuration({ persistStorage: false }),
    );

    await started(process.pid);
    const startedAt = process.hrtime.bigint();
    const stats = await crawler.run([options.startUrl]);
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const notes = notesOf(stats, failed);
    return {
      crawler: `Crawlee PlaywrightCrawler (${options.maxConcurrency ? `maxConcurrency ${options.maxConcurrency}` : 'autoscaled'}, waitForSecs ${options.waitForSecs})`,
      pages,
      images: stored.size,
      seconds,
      rootPid: process.pid,
      notes,
    };
  });
}
