// The same job done with Crawlee 3's CheerioCrawler, written the way Crawlee's docs suggest:
// one crawler, one request queue, a router by label. Pages (default route) enqueue their <img src>
// URLs with the IMAGE label and, below the depth limit, their same-hostname links with depth + 1 in
// userData. Image requests come back through the same crawler (additionalMimeTypes lets
// CheerioCrawler accept image responses; their `body` is then a Buffer) and are written to a temp
// folder under their SHA-256, so identical bytes are stored once, as our service does.
//
// Fairness: maxConcurrency 16 (our job's overall limit), starting at 16 instead of autoscaling up
// from 1 (the pool still scales down when it sees the CPU or event loop overloaded), robots.txt
// respected (ours reads it too), storage in memory (persistStorage: false), no session pool, no
// proxy; everything else is Crawlee's default, including its HTTP client (got-scraping).
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { filesUnder, inCrawleeWorkDir, kernelPeakRssMb, settle, startMonitor, type CrawlResult } from './common.js';

const DEPTH = 2;
const EXT: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

export interface CrawleeOptions {
  startUrl: string;
  /** Temp folders go under this one (the parent removes it even if this process dies). */
  tmpRoot: string;
  maxConcurrency: number;
  /** Where the pool starts; Crawlee's default is 1 (minConcurrency), scaling up 5 % every 10 s. */
  desiredConcurrency: number;
}

export async function runCrawlee(options: CrawleeOptions): Promise<CrawlResult> {
  return inCrawleeWorkDir(options.tmpRoot, async ({ outDir, notes: notesOf }) => {
    // Imported here, not at the top, so only this child pays for loading Crawlee.
    const { CheerioCrawler, Configuration, createCheerioRouter, log, LogLevel } = await import('@crawlee/cheerio');
    log.setLevel(LogLevel.WARNING);

    let pages = 0;
    let images = 0;
    let failed = 0;
    const router = createCheerioRouter();
    router.addDefaultHandler(async ({ request, $, enqueueLinks }) => {
      pages++;
      const depth = typeof request.userData.depth === 'number' ? request.userData.depth : 0;
      const base = request.loadedUrl ?? request.url;
      const imageUrls = $('img[src]')
        .map((_i, el) => new URL($(el).attr('src')!, base).href)
        .get();
      await enqueueLinks({ urls: imageUrls, label: 'IMAGE' });
      if (depth < DEPTH) await enqueueLinks({ strategy: 'same-hostname', userData: { depth: depth + 1 } });
    });
    router.addHandler('IMAGE', async ({ body, contentType }) => {
      // For non-HTML responses CheerioCrawler hands over the raw bytes (typed as string).
      const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await writeFile(join(outDir, `${sha256}.${EXT[contentType.type] ?? 'bin'}`), bytes);
      images++;
    });

    const crawler = new CheerioCrawler(
      {
        requestHandler: router,
        additionalMimeTypes: Object.keys(EXT),
        maxConcurrency: options.maxConcurrency,
        autoscaledPoolOptions: { desiredConcurrency: options.desiredConcurrency },
        respectRobotsTxtFile: true,
        useSessionPool: false,
        persistCookiesPerSession: false,
        failedRequestHandler: () => {
          failed++;
        },
      },
      new Configuration({ persistStorage: false }),
    );
    await settle();

    const monitor = startMonitor();
    const started = process.hrtime.bigint();
    const stats = await crawler.run([{ url: options.startUrl, userData: { depth: 0 } }]);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const measured = monitor.stop();

    const onDisk = filesUnder(outDir);
    const notes = notesOf(stats, failed);
    return {
      crawler: `Crawlee CheerioCrawler (maxConcurrency ${options.maxConcurrency}, starting at ${options.desiredConcurrency})`,
      pages,
      assets: images,
      filesOnDisk: onDisk.files,
      bytesOnDisk: onDisk.bytes,
      seconds,
      ...measured,
      vmHwmMb: kernelPeakRssMb(),
      notes,
    };
  });
}
