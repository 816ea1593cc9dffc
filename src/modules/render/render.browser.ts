// Renders pages that build their images by script, in one headless Chromium shared by the process
// (Debian's `chromium`, driven by playwright-core). Safety: the browser's only way out is an
// EgressProxy (src/platform/http/egress-proxy.ts) that connects by SafeFetcher's address policy;
// each job gets fresh browser contexts with a proxy of their own (a RenderSession), closed with the
// job; each context keeps one tab that goes from one of the job's URLs to the next, so the job's
// pages share one renderer warm-up, HTTP cache and connections, as a person's browsing would (a
// context per page cost about twice the browser CPU per page, and a new tab per page three times a
// tab that navigates on: 1.1 against 0.3 CPU s a page on the render benchmark's site). A page's
// budget (requests, bytes) is counted on the page itself and, once spent, the page is cut off the
// network (DevTools' blocked URLs and offline emulation) and its tab is not used again.
// Downloads, service workers, popups and dialogs are off. The browser is
// launched on first use, launched again after a crash, and replaced once it grows past its memory
// limit (the old one closes when its pages are done).
import { existsSync, statfsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import PQueue from 'p-queue';
import type { Browser, BrowserContext, CDPSession, Page, Request, Response } from 'playwright-core';
import { AppError, ErrorCode, Unavailable } from '../../platform/errors.js';
import { EgressProxy, REFUSED_HEADER } from '../../platform/http/egress-proxy.js';
import { hostRefusal, type PrivateAddressAllowance, type Resolver } from '../../platform/http/address-policy.js';
import { FetchFailed, FetchRefused } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { RenderBudget, RenderConfig } from './render.settings.js';

/** Chromium is not installed (or not where RENDER_CHROMIUM_PATH says): render mode answers 503. */
export class BrowserUnavailable extends Unavailable {
  constructor(path: string, detail?: string) {
    super(
      `rendering pages needs Chromium, which is not available at ${path}${detail ? ` (${detail})` : ''}: install it (Debian/Ubuntu: apt-get install chromium) or point RENDER_CHROMIUM_PATH at it`,
    );
  }
}

/** An image response the page itself received. */
export interface FetchedImage {
  url: string;
  contentType: string;
  /** Its bytes as the browser received them (decoded), when the request asked for them (keepImageBodies) and they could be read. */
  body?: Buffer;
}

export interface RenderedPage {
  /** The URL the page ended on (after redirects). */
  url: string;
  /** HTTP status of the page's document. */
  status: number;
  /** The final DOM, serialised: the static extractors (srcset, data-src, JSON-LD ...) read it. */
  html: string;
  /** Image URLs in the DOM: current sources of images and CSS backgrounds (computed style). */
  images: string[];
  /** Image responses the page fetched, in order. */
  fetchedImages: FetchedImage[];
  /** http(s) links of the final DOM (crawl mode follows them). */
  links: string[];
  /** What ended the scrolling, and what the page used. */
  ended: 'settled' | 'time' | 'scrollSteps' | 'requests' | 'bytes';
  scrollSteps: number;
  requests: number;
  bytes: number;
}

export interface RendererOptions {
  settings: RenderConfig;
  allowPrivateAddresses: PrivateAddressAllowance;
  userAgent: string;
  logger: Logger;
  /** Name resolution of the egress proxy (tests play a rebinding DNS server with it). */
  resolve?: Resolver;
}

export interface RenderRequest {
  /** Narrows the configured budget for this page. */
  budget?: Partial<RenderBudget>;
  /** Aborted when the job stops: the page is closed at once. */
  signal?: AbortSignal;
  /**
   * Awaited just before the page's document is requested: a crawler takes the host's turn here, so
   * its politeness counts from the navigation, not from the browser's start. The wait is not the
   * page's time.
   */
  beforeNavigation?: () => Promise<void>;
  /**
   * The job's session (Renderer.openSession): the page opens in its context. Without one, the page
   * gets a context of its own, closed with it.
   */
  session?: RenderSession;
  /**
   * Keep the bytes of the image responses the page received, each up to this size, so the caller
   * need not download them again (FetchedImage.body). Off by default.
   */
  keepImageBodies?: number;
}

// Off the network except through the proxy: no QUIC (UDP), WebRTC only through the proxy (so no UDP
// at all), no background traffic, and no name resolution in the browser (the proxy resolves).
const CHROMIUM_ARGS = [
  '--disable-quic',
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-domain-reliability',
  '--disable-sync',
  '--dns-prefetch-disable',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-gpu',
  '--mute-audio',
];

/**
 * Chromium's shared memory (rendered tiles, decoded images, IPC) lives in /dev/shm; only where that
 * is too small (a container's 64 MB default) is it moved to /tmp, which on a disk costs the browser
 * file-system writes for every frame and image (this machine's /tmp is on its disk, its /dev/shm
 * a tmpfs of 24 GB).
 */
function sharedMemoryArgs(): string[] {
  try {
    const shm = statfsSync('/dev/shm');
    return shm.blocks * shm.bsize >= 512 * 1024 * 1024 ? [] : ['--disable-dev-shm-usage'];
  } catch {
    return ['--disable-dev-shm-usage'];
  }
}
const VIEWPORT = { width: 1280, height: 900 };
/**
 * Network quiet this long, and for two animation frames of the page, counts as settled: a lazy
 * loader's next request starts within a frame or two of what it waited for (a JSON list's answer,
 * a tile scrolled into view). The frames stretch the window on a busy machine, where the page's
 * scripts run late. (300 ms alone, before: the same images on the render benchmark's site in twice
 * the time.)
 */
const QUIET_MS = 100;
/** The most one scroll step waits for the network to go quiet (a long poll never does). */
const MAX_SETTLE_MS = 3000;
/** Scroll steps at the bottom in a row that bring no new image and no new height before the page counts as settled. */
const SETTLED_AFTER_QUIET_STEPS = 2;
/** Kept back from the time budget for reading the DOM and closing the page. */
const SNAPSHOT_RESERVE_MS = 1500;
/** The most the snapshot waits for image bodies still arriving (those that do not come are downloaded by the caller). */
const BODY_WAIT_MS = 1000;
/** A browser's memory is measured after a page at most this often (it reads every process's smaps). */
const MEMORY_CHECK_MS = 2000;

/** One of a session's contexts and its one tab: its page and that page's DevTools session (null until its first page, or after one was closed). */
interface Tab {
  context: BrowserContext;
  open: { page: Page; cdp: CDPSession } | null;
}

interface LiveBrowser {
  browser: Browser;
  pages: number;
  /** Replaced (memory, crash): no new pages; closed once its pages are done. */
  retired: boolean;
  /** When (performance.now()) its memory was last measured. */
  measuredAt: number;
}

export class Renderer {
  private readonly queue: PQueue;
  private current: Promise<LiveBrowser> | null = null;
  /** What `current` resolved to. */
  private currentLive: LiveBrowser | null = null;
  private readonly live = new Set<LiveBrowser>();
  /** The launch-level proxy: refuses everything, so only a page's own proxy lets anything out. */
  private guard: Promise<EgressProxy> | null = null;
  private closed = false;
  /** Browsers launched so far (a restart adds one). */
  launches = 0;
  /** Pages given a browser page so far (tests and logs tell rendered scrapes from plain ones by it). */
  pagesRendered = 0;

  constructor(private readonly options: RendererOptions) {
    this.queue = new PQueue({ concurrency: options.settings.concurrency });
  }

  /** Whether Chromium is where the settings say; render requests answer 503 otherwise. */
  get available(): boolean {
    return existsSync(this.options.settings.chromiumPath);
  }

  /** Throws BrowserUnavailable when Chromium is missing (for a request's early 503). */
  assertAvailable(): void {
    if (!this.available) throw new BrowserUnavailable(this.options.settings.chromiumPath);
  }

  /**
   * A job's session: one browser context (and egress proxy) for all its pages, opened on its first
   * page and ended by close(). Pass it as RenderRequest.session.
   */
  openSession(): RenderSession {
    return new RenderSession(this.options);
  }

  /**
   * Loads `url` (in the session's context, or a fresh one of its own), scrolls until no new images
   * appear or the budget ends, and reads what the page shows.
   */
  async renderPage(url: string, request: RenderRequest = {}): Promise<RenderedPage> {
    const target = checkedUrl(url, this.options.allowPrivateAddresses);
    this.assertAvailable();
    const budget = { ...this.options.settings.budget, ...request.budget };
    const session = request.session ?? this.openSession();
    try {
      const page = await this.queue.add(async () => {
        request.signal?.throwIfAborted();
        const live = await this.browser();
        live.pages++;
        this.pagesRendered++;
        try {
          return await session.render(live, target, budget, request);
        } finally {
          live.pages--;
          await this.afterPage(live);
        }
      });
      return page!;
    } finally {
      if (!request.session) await session.close();
    }
  }

  /** Resident memory of the browser and all its processes, in MB (null before the first launch). */
  async memoryMb(): Promise<number | null> {
    const live = this.current && (await this.current.catch(() => null));
    return live ? browserMemoryMb(live.browser) : null;
  }

  /** The OS process id of the browser in use (tests end it to check the restart). */
  async browserPid(): Promise<number | null> {
    const live = this.current && (await this.current.catch(() => null));
    if (!live) return null;
    const processes = await processInfo(live.browser);
    return processes.find((p) => p.type === 'browser')?.id ?? null;
  }

  /** Closes every browser and the guard proxy; later renders are refused. */
  async close(): Promise<void> {
    // Pages still waiting for their turn are not dropped (their callers would wait forever): they
    // run next and are refused at once, since no browser is launched once closed.
    this.closed = true;
    const launching = this.current;
    this.current = null;
    this.currentLive = null;
    await launching?.catch(() => {});
    await Promise.allSettled([...this.live].map((live) => live.browser.close()));
    this.live.clear();
    const guard = await this.guard?.catch(() => null);
    await guard?.close();
  }

  private async browser(): Promise<LiveBrowser> {
    if (this.closed) throw new Unavailable('the service is stopping: no more pages are rendered');
    const launching = (this.current ??= this.launch().catch((error: unknown) => {
      this.current = null;
      throw error;
    }));
    const live = await launching;
    if (this.current === launching) this.currentLive = live;
    // Crashed, and its 'disconnected' event not handled yet: the page goes to a new one.
    if (!live.browser.isConnected()) {
      this.retire(live);
      return this.browser();
    }
    return live;
  }

  private async launch(): Promise<LiveBrowser> {
    const { chromiumPath } = this.options.settings;
    this.guard ??= EgressProxy.listen({ allowPrivateAddresses: false, maxConnections: 0 });
    const guard = await this.guard;
    let browser: Browser;
    try {
      // Loaded on the first render, not at start: playwright-core costs about 240 ms and 70 MB of
      // RSS, which a service that never renders should not pay.
      const { chromium } = await import('playwright-core');
      browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        // Gives --proxy-server and --proxy-bypass-list=<-loopback>: loopback goes through the proxy too.
        proxy: { server: guard.url },
        args: [...CHROMIUM_ARGS, ...sharedMemoryArgs()],
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
        timeout: 30_000,
      });
    } catch (error) {
      if (!existsSync(chromiumPath)) throw new BrowserUnavailable(chromiumPath);
      throw new BrowserUnavailable(chromiumPath, `it did not start: ${String((error as Error).message ?? error).split('\n')[0]}`);
    }
    this.launches++;
    const live: LiveBrowser = { browser, pages: 0, retired: false, measuredAt: -Infinity };
    this.live.add(live);
    browser.on('disconnected', () => {
      this.live.delete(live);
      if (!live.retired && !this.closed) this.options.logger.warn({ launches: this.launches }, 'the rendering browser went away; the next page starts a new one');
      this.retire(live);
    });
    if (this.closed) {
      await browser.close();
      throw new Unavailable('the service is stopping: no more pages are rendered');
    }
    return live;
  }

  /** No new pages on `live`; the next one launches a fresh browser. */
  private retire(live: LiveBrowser): void {
    live.retired = true;
    if (this.currentLive === live) {
      this.current = null;
      this.currentLive = null;
    }
  }

  private async afterPage(live: LiveBrowser): Promise<void> {
    if (!live.retired && live.browser.isConnected() && performance.now() - live.measuredAt >= MEMORY_CHECK_MS) {
      live.measuredAt = performance.now();
      const used = await browserMemoryMb(live.browser).catch(() => null);
      if (used !== null && used > this.options.settings.maxBrowserMemoryMb) {
        this.options.logger.info({ memoryMb: Math.round(used), limitMb: this.options.settings.maxBrowserMemoryMb }, 'the rendering browser passed its memory limit; it is replaced');
        this.retire(live);
      }
    }
    if (live.retired && live.pages === 0 && live.browser.isConnected()) {
      this.live.delete(live);
      await live.browser.close().catch(() => {});
    }
  }
}

/**
 * One job's browsing: its browser contexts, and the egress proxy that is their only way out, made on
 * the job's first page and closed with the job (close()). Each context has one tab (a Tab), which
 * goes from one of the job's URLs to the next: a second tab in a context's window would be a hidden
 * one, where animation frames and IntersectionObservers (lazy loaders) do not run; so a job with
 * pages side by side has as many contexts as it has pages at once (RENDER_CONCURRENCY at most), each
 * reused by its next pages. A tab whose page was cut off the network (its budget spent), stopped or
 * failed is closed, and the next page opens a new one. Should the browser be replaced (crash,
 * memory), the next page gets a new context on the new browser.
 */
export class RenderSession {
  private proxy: Promise<EgressProxy> | null = null;
  /** Every context of the session (closed with it), and the tabs no page is rendering in now, by browser. */
  private readonly contexts = new Set<BrowserContext>();
  private readonly idle = new Map<LiveBrowser, Tab[]>();
  /** The job's tabs open now: any other page a context opens (a popup) is closed. */
  private readonly pages = new Set<Page>();
  /** The job's pages being opened (context.newPage): the context's 'page' event comes before they are known. */
  private readonly opening = new Set<Promise<Page>>();
  private closed = false;
  /** Contexts made so far (a job's sequential pages share one). */
  contextsMade = 0;
  /** Tabs opened so far (a context's tab goes on to its next page unless the last one was cut off, stopped or failed). */
  tabsOpened = 0;

  /** @internal Renderer.openSession makes sessions. */
  constructor(private readonly options: RendererOptions) {}

  /** Closes the context(s) and the proxy; a page still rendering ends with an error. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const contexts = [...this.contexts];
    this.contexts.clear();
    this.idle.clear();
    await Promise.allSettled(contexts.map((context) => context.close()));
    const proxy = await this.proxy?.catch(() => null);
    await proxy?.close();
  }

  private egress(): Promise<EgressProxy> {
    return (this.proxy ??= EgressProxy.listen({ allowPrivateAddresses: this.options.allowPrivateAddresses, resolve: this.options.resolve }));
  }

  /** A context of the session on `live` that no page is rendering in: an idle one (with its tab, if still open), or a new one. */
  private async takeTab(live: LiveBrowser): Promise<Tab> {
    const idle = this.idle.get(live);
    const reused = idle?.pop();
    if (reused) return reused;
    const context = await this.newContext(live);
    this.contextsMade++;
    this.contexts.add(context);
    const tab: Tab = { context, open: null };
    context.once('close', () => {
      this.contexts.delete(context);
      const list = this.idle.get(live);
      if (list?.includes(tab)) list.splice(list.indexOf(tab), 1);
    });
    return tab;
  }

  /** The tab's page, opened when it has none (its first page, or the last one was closed). */
  private async openPage(tab: Tab): Promise<{ page: Page; cdp: CDPSession }> {
    if (tab.open && !tab.open.page.isClosed()) return tab.open;
    // Known as one of the job's pages while it opens: the context's 'page' event must not take it for a popup.
    const opening = tab.context.newPage();
    this.opening.add(opening);
    let page: Page;
    try {
      page = await opening;
      this.pages.add(page);
    } finally {
      this.opening.delete(opening);
    }
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
    page.on('filechooser', () => {}); // never answered: nothing is uploaded
    page.once('close', () => this.pages.delete(page));
    // The page's own DevTools session: its budget's byte count, and the cut-off (blocked URLs, offline).
    const cdp = await tab.context.newCDPSession(page);
    await cdp.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 });
    tab.open = { page, cdp };
    this.tabsOpened++;
    return tab.open;
  }

  /** The page is done with `tab`: the next page of the job may use it, unless its browser is gone; `keepPage` false closes its page. */
  private giveBack(live: LiveBrowser, tab: Tab, keepPage: boolean): void {
    if (!keepPage && tab.open) {
      void tab.open.page.close().catch(() => {});
      tab.open = null;
    }
    if (this.closed || !this.contexts.has(tab.context) || !live.browser.isConnected() || live.retired) return void tab.context.close().catch(() => {});
    const list = this.idle.get(live) ?? [];
    list.push(tab);
    this.idle.set(live, list);
  }

  private async newContext(live: LiveBrowser): Promise<BrowserContext> {
    const proxy = await this.egress();
    const context = await live.browser.newContext({
      proxy: { server: proxy.url },
      acceptDownloads: false,
      serviceWorkers: 'block',
      permissions: [],
      userAgent: this.options.userAgent,
      viewport: VIEWPORT,
    });
    // Popups are off: window.open answers null, a link or form aimed at another window does
    // nothing (each popup would cost a tab before it could be closed: 49 of them took 12 s), and
    // any page the context opens anyway is closed.
    await context.addInitScript(() => {
      window.open = () => null;
      const opensAnotherWindow = (element: Element) => {
        const target = (element.getAttribute('target') ?? document.querySelector('base[target]')?.getAttribute('target') ?? '').toLowerCase();
        if (target === '' || target === '_self' || target === '_top' || target === '_parent') return false;
        return ![...document.querySelectorAll('iframe[name]')].some((frame) => frame.getAttribute('name')?.toLowerCase() === target);
      };
      document.addEventListener(
        'click',
        (event) => {
          const link = event.target instanceof Element ? event.target.closest('a[href], area[href]') : null;
          if (link && opensAnotherWindow(link)) event.preventDefault();
        },
        true,
      );
      document.addEventListener('submit', (event) => event.target instanceof HTMLFormElement && opensAnotherWindow(event.target) && event.preventDefault(), true);
    });
    // A link with target=_blank still opens a tab; it is closed, and the job's pages brought back to
    // the front, where their animation frames and observers run again.
    context.on('page', (other) => {
      void Promise.allSettled([...this.opening])
        .then(() => (this.pages.has(other) ? undefined : other.close().then(() => Promise.all([...this.pages].map((page) => page.bringToFront())))))
        .catch(() => {});
    });
    if (this.closed) {
      await context.close().catch(() => {});
      throw new Unavailable('the render session is closed');
    }
    return context;
  }

  /** @internal One page, on `live` (Renderer.renderPage has taken its turn). */
  async render(live: LiveBrowser, url: URL, budget: RenderBudget, { signal, beforeNavigation, keepImageBodies }: RenderRequest): Promise<RenderedPage> {
    if (this.closed) throw new Unavailable('the render session is closed');
    let deadline = performance.now() + budget.timeMs;
    let ended: RenderedPage['ended'] | null = null;
    let page: Page | undefined;
    const abort = () => void page?.close().catch(() => {});
    signal?.addEventListener('abort', abort, { once: true });
    let proxy: EgressProxy | undefined;
    let refusedBefore = 0;
    let tab: Tab | undefined;
    // Listeners of this render on the tab's page, taken off when it ends (the tab goes on to the next page).
    const detach: Array<() => void> = [];
    let reusable = false;
    try {
      proxy = await this.egress();
      refusedBefore = proxy.stats.refused;
      tab = await this.takeTab(live);
      const opened = await this.openPage(tab);
      page = opened.page;
      const { cdp } = opened;
      if (signal?.aborted) abort();

      // The page's budget: counted on the page (the context's proxy serves all the job's pages) and,
      // once spent, the page is cut off the network: no new request, and (bytes) the ones in flight fail.
      let bytes = 0;
      const cutOff = (what: 'requests' | 'bytes') => {
        ended ??= what;
        void cdp.send('Network.setBlockedURLs', { urls: ['*'] }).catch(() => {});
        if (what === 'bytes') void cdp.send('Network.emulateNetworkConditions', { offline: true, latency: 0, downloadThroughput: -1, uploadThroughput: -1 }).catch(() => {});
      };
      const received = (length: number) => {
        bytes += length;
        if (bytes > budget.maxBytes) cutOff('bytes');
      };
      const onData = (event: { encodedDataLength: number }) => received(event.encodedDataLength);
      const onFrame = (event: { response: { payloadData: string } }) => received(event.response.payloadData.length);
      cdp.on('Network.dataReceived', onData);
      cdp.on('Network.webSocketFrameReceived', onFrame);
      detach.push(() => {
        cdp.off('Network.dataReceived', onData);
        cdp.off('Network.webSocketFrameReceived', onFrame);
      });

      const network = new NetworkWatch(page, budget.maxRequests, () => cutOff('requests'));
      detach.push(() => network.detach());
      const fetchedImages: FetchedImage[] = [];
      const bodies: Promise<void>[] = [];
      const seenImages = new Set<string>();
      const onResponse = (response: Response) => {
        const headers = response.headers();
        const contentType = headers['content-type'] ?? '';
        const isImage = contentType.startsWith('image/') || response.request().resourceType() === 'image';
        const responseUrl = response.url();
        if (isImage && response.status() >= 200 && response.status() < 300 && /^https?:/.test(responseUrl) && !seenImages.has(responseUrl)) {
          seenImages.add(responseUrl);
          const image: FetchedImage = { url: responseUrl, contentType: contentType.split(';')[0]!.trim() };
          fetchedImages.push(image);
          const declared = Number(headers['content-length'] ?? 0);
          if (keepImageBodies !== undefined && declared <= keepImageBodies) {
            bodies.push(
              response.body().then(
                (body) => void (body.length <= keepImageBodies && (image.body = body)),
                () => {}, // not kept by the browser, or the page closed first: the caller downloads it
              ),
            );
          }
        }
      };
      page.on('response', onResponse);
      const watched = page;
      detach.push(() => watched.off('response', onResponse));

      const left = () => deadline - performance.now() - SNAPSHOT_RESERVE_MS;
      let status = 0;
      if (beforeNavigation) {
        const waitStart = performance.now();
        await beforeNavigation();
        signal?.throwIfAborted();
        deadline += performance.now() - waitStart;
      }
      try {
        const response = await page.goto(url.href, { waitUntil: 'load', timeout: Math.max(1, left()) });
        status = response?.status() ?? 200;
        const refused = response?.headers()[REFUSED_HEADER];
        if (refused) throw new FetchRefused(`${new URL(response.url()).origin}/`, refused);
      } catch (error) {
        signal?.throwIfAborted();
        if (error instanceof FetchRefused) throw error;
        if (network.documentAnswered === null) throw startFailure(url, error, proxy);
        ended ??= 'time'; // the document came but the page never finished loading: read what is there
        status = network.documentAnswered;
      }

      let steps = 0;
      let quietSteps = 0;
      if (!ended) {
        // Settle where the page opened before the first scroll: a gallery whose first tiles arrive by
        // script after 'load' (and load lazily once seen) would otherwise get them while the page is
        // already scrolled past, and they would never be seen (seen as 2 of 25 missing, side by side).
        await settle(page, network, left);
        let before = await countImages(page, seenImages.size);
        for (;;) {
          if (ended) break;
          if (left() <= 0) {
            ended = 'time';
            break;
          }
          if (steps >= budget.scrollSteps) {
            ended = 'scrollSteps';
            break;
          }
          const atBottom = await page.evaluate(() => {
            const scroller = document.scrollingElement ?? document.documentElement;
            const bottom = scroller.scrollTop + window.innerHeight >= scroller.scrollHeight - 2;
            window.scrollBy(0, window.innerHeight);
            return bottom;
          });
          steps++;
          await settle(page, network, left);
          const after = await countImages(page, seenImages.size);
          // Two quiet steps at the bottom, not one: on a loaded machine a script can append the next
          // page's tiles after the network went quiet, and one quiet step would stop before them.
          quietSteps = atBottom && after.images <= before.images && after.height <= before.height ? quietSteps + 1 : 0;
          if (quietSteps >= SETTLED_AFTER_QUIET_STEPS) {
            ended ??= 'settled';
            break;
          }
          before = after;
        }
      }
      signal?.throwIfAborted();
      const snapshot = await page.evaluate(readPage);
      if (bodies.length > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.all(bodies), new Promise((resolve) => (timer = setTimeout(resolve, BODY_WAIT_MS)))]).finally(() => clearTimeout(timer));
      }
      // Not cut off the network, not stopped, nothing thrown: the tab goes on to the job's next page.
      const cut = ended as RenderedPage['ended'] | null; // set by cutOff, which TypeScript does not see
      reusable = cut !== 'requests' && cut !== 'bytes';
      return {
        url: page.url(),
        status,
        html: snapshot.html,
        images: snapshot.images,
        // A copy: bodies that arrive after this are not the caller's (the tab has moved on).
        fetchedImages: fetchedImages.map((image) => ({ ...image })),
        links: snapshot.links,
        ended: ended ?? 'settled',
        scrollSteps: steps,
        requests: network.requests,
        bytes,
      };
    } catch (error) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new AppError('the job was stopped', 500, ErrorCode.JobStopped);
      throw error;
    } finally {
      signal?.removeEventListener('abort', abort);
      for (const off of detach) off();
      if (tab) this.giveBack(live, tab, reusable && !signal?.aborted);
      if (proxy && proxy.stats.refused > refusedBefore) this.options.logger.debug({ url: url.origin, refused: proxy.stats.reasons }, 'the rendered page was refused connections');
    }
  }
}

/** Requests of a page: how many, how many in flight, and when the network last went quiet. */
class NetworkWatch {
  requests = 0;
  /** Requests this watch saw start and not end (the tab's previous page may still have some of its own). */
  private readonly open = new Set<Request>();
  /** Status of the main document once it answered. */
  documentAnswered: number | null = null;
  private quietWaiters: Array<() => void> = [];

  /** Takes the watch's listeners off the page. */
  readonly detach: () => void;

  get inFlight(): number {
    return this.open.size;
  }

  constructor(page: Page, maxRequests: number, overBudget: () => void) {
    const onRequest = (request: Request) => {
      this.open.add(request);
      this.requests++;
      if (this.requests > maxRequests) overBudget();
    };
    const done = (request: Request) => {
      if (this.open.delete(request) && this.open.size === 0) for (const wake of this.quietWaiters.splice(0)) wake();
    };
    const onResponse = (response: Response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) this.documentAnswered = response.status();
    };
    page.on('request', onRequest);
    page.on('requestfinished', done);
    page.on('requestfailed', done);
    page.on('response', onResponse);
    this.detach = () => {
      page.off('request', onRequest);
      page.off('requestfinished', done);
      page.off('requestfailed', done);
      page.off('response', onResponse);
    };
  }

  /** Resolves once no request is in flight (at once when none is). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }
}

/**
 * After a scroll: let observers and scripts react (two animation frames), then wait until the network
 * has been quiet for QUIET_MS and two more animation frames (a lazy loader's request can start just
 * after the last one ends), or the time budget ends.
 */
async function settle(page: Page, network: NetworkWatch, budgetLeft: () => number): Promise<void> {
  const stepEnd = performance.now() + MAX_SETTLE_MS;
  const left = () => Math.min(budgetLeft(), stepEnd - performance.now());
  // Two animation frames (observers run between them); a hidden page has none, so a short timer ends
  // the wait there. A page that navigates meanwhile ends it too (its old document is gone).
  const frames = () =>
    page
      .evaluate(
        () =>
          new Promise<void>((resolve) => {
            setTimeout(resolve, 200);
            requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
          }),
      )
      .catch(() => {});
  const until = (promise: Promise<unknown>) => {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, left()))))]).finally(() => clearTimeout(timer));
  };
  await until(frames());
  for (;;) {
    if (left() <= 0) return;
    await until(network.idle());
    const requestsBefore = network.requests;
    await until(Promise.all([new Promise((resolve) => setTimeout(resolve, QUIET_MS)), frames()]));
    if (network.requests === requestsBefore && network.inFlight === 0) return;
  }
}

/** Images the page has shown so far (DOM sources and responses) and its height: a step that adds neither found nothing new. */
async function countImages(page: Page, responses: number): Promise<{ images: number; height: number }> {
  const dom = await page.evaluate(() => ({
    images: new Set([...document.images].map((img) => img.currentSrc || img.src).filter(Boolean)).size,
    height: (document.scrollingElement ?? document.documentElement).scrollHeight,
  }));
  return { images: dom.images + responses, height: dom.height };
}

/** Runs in the page: the DOM as HTML, image URLs (CSS backgrounds by computed style), links. */
function readPage(): { html: string; images: string[]; links: string[] } {
  const images = new Set<string>();
  const http = (value: string | null | undefined) => {
    if (!value) return;
    try {
      const url = new URL(value, document.baseURI);
      if (url.protocol === 'http:' || url.protocol === 'https:') {
        url.hash = '';
        images.add(url.href);
      }
    } catch {
      // not a URL
    }
  };
  for (const img of document.images) http(img.currentSrc || img.src);
  for (const video of document.querySelectorAll('video[poster]')) http(video.getAttribute('poster'));
  for (const image of document.querySelectorAll('svg image')) http(image.getAttribute('href') ?? image.getAttribute('xlink:href'));
  const elements = document.querySelectorAll('body *');
  const limit = Math.min(elements.length, 20_000);
  for (let i = 0; i < limit; i++) {
    const style = getComputedStyle(elements[i]!);
    for (const value of [style.backgroundImage, style.getPropertyValue('content')]) {
      if (!value || value === 'none' || !value.includes('url(')) continue;
      for (const match of value.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/g)) http(match[2]);
    }
  }
  const links = new Set<string>();
  for (const anchor of document.querySelectorAll('a[href], area[href]')) {
    const href = (anchor as HTMLAnchorElement).href;
    if (/^https?:/.test(href)) links.add(href.split('#')[0]!);
  }
  return { html: document.documentElement.outerHTML, images: [...images], links: [...links] };
}

/** Only http(s) pages without credentials, and no address the policy refuses by its spelling. */
function checkedUrl(input: string, allowPrivate: PrivateAddressAllowance): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchRefused(JSON.stringify(input.slice(0, 200)), 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefused(`a ${url.protocol} URL`, 'only http: and https: URLs can be rendered');
  if (url.username || url.password) throw new FetchRefused(url.origin + '/', 'URLs with credentials (user:password@) are not allowed');
  const refusal = hostRefusal(url.hostname, allowPrivate);
  if (refusal) throw new FetchRefused(url.origin + '/', refusal);
  return url;
}

/** The start page never answered: refused by the policy (as the plain fetcher says it), or failed. */
function startFailure(url: URL, error: unknown, proxy: EgressProxy): AppError {
  const origin = `${url.protocol}//${url.host}/`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refused = proxy.stats.reasons.find((r) => r.host === host);
  if (refused) return new FetchRefused(origin, refused.reason);
  const message = String((error as Error).message ?? error).split('\n')[0]!;
  return new FetchFailed(origin, /Timeout/i.test(message) ? 'the page did not load within the time budget' : message.replace(/^page\.goto: /, ''));
}

interface ProcessInfo {
  type: string;
  id: number;
}

async function processInfo(browser: Browser): Promise<ProcessInfo[]> {
  const session = await browser.newBrowserCDPSession();
  try {
    const { processInfo: processes } = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: ProcessInfo[] };
    return processes;
  } finally {
    await session.detach().catch(() => {});
  }
}

/** Proportional set size (shared pages split between sharers) of the browser's processes, in MB; Linux only. */
async function browserMemoryMb(browser: Browser): Promise<number | null> {
  const processes = await processInfo(browser);
  let kb = 0;
  for (const { id } of processes) {
    const text = await readFile(`/proc/${id}/smaps_rollup`, 'utf8').catch(() => null);
    const pss = text && /^Pss:\s+(\d+) kB/m.exec(text);
    if (pss) kb += Number(pss[1]);
  }
  return kb === 0 ? null : kb / 1024;
}
