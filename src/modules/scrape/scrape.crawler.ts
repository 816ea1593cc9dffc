// The crawl of one scrape job: fetch the page (and, in crawl mode, same-site pages up to
// crawl_depth), find assets, download them politely, keep the ones that pass the filters and store
// each distinct file once. Every URL goes through the SSRF-safe fetcher. It touches no database:
// it reports through CrawlHooks, so it runs the same inside the job's process or in a crawl process
// of its own (crawl-process.ts), while the job handler (scrape.job.ts) writes the rows.
import { createHash } from 'node:crypto';
import PQueue from 'p-queue';
import type { ScrapeConfig } from './scrape.settings.js';
import { AppError, ErrorCode } from '../../platform/errors.js';
import type { FetchedResponse, SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { Logger } from '../../platform/logger.js';
import type { JobProgress } from '../jobs/index.js';
import { extractPageResources, type FoundResource } from './page-resources.js';
import { filenameFor, sniffType, type ResourceKind } from './asset-types.js';
import { RobotsRules } from './robots.js';
import type { ScrapeInput } from './scrape.input.js';
// Types only: a crawl process, which never renders, does not load the render module.
import type { RenderAuto, RenderedPage, Renderer, RenderSession } from '../render/index.js';
import { shouldAutoRender } from './auto-render.js';

/** What a crawl needs of its process: built once per process, shared by its crawls. */
export interface CrawlDependencies {
  fetcher: SafeFetcher;
  blobs: BlobStore;
  logger: Logger;
  scrape: ScrapeConfig;
  userAgent: string;
  /** FETCH_MAX_REDIRECTS: the page budget keeps room for them (PageBudget). */
  maxRedirects: number;
  /** Loads pages in headless Chromium, for `render: true` (the job's process only). */
  renderer?: Pick<Renderer, 'renderPage' | 'openSession'>;
  /** RENDER_AUTO, with `renderer`: which pages of a scrape that did not ask for `render` are rendered anyway. */
  renderAuto?: RenderAuto;
}

/** One stored file, as the job handler records it (the job id is the handler's to add). */
export interface CrawledAsset {
  filename: string;
  url: string;
  type: string;
  contentType: string;
  size: number;
  sha256: string;
  storageKey: string;
  aiLabel: string | null;
}

/** How a crawl reports to its job, wherever it runs. */
export interface CrawlHooks {
  signal: AbortSignal;
  /** Absolute counts so far (called often: the receiver throttles). */
  progress(counts: Required<JobProgress>): void;
  /** Records stored files; the crawl waits for it, so rows never pile up in memory. */
  saveAssets(assets: CrawledAsset[]): Promise<void>;
  /** Labels for an image (ai_labeling), from the vision module. */
  label(image: Buffer): Promise<string[]>;
}

/** Never wait longer than this between two requests to one host, whatever Crawl-delay asks. */
const MAX_CRAWL_DELAY_MS = 10_000;
/**
 * Fetched bodies a job holds at once across all hosts: a request takes one of these slots before it
 * starts and gives it back once its body is stored (or dropped), so when storing falls behind,
 * requests wait, and memory stays bounded.
 */
export const JOB_BODY_SLOTS = 16;
const ROW_BATCH = 100;

/** Crawls for the job; resolves with the final counts, rejects (AppError) when the job fails. */
export function crawl(deps: CrawlDependencies, jobId: number, input: ScrapeInput, hooks: CrawlHooks): Promise<Required<JobProgress>> {
  return new ScrapeRun(deps, jobId, input, hooks).run();
}

/** Under the job's prefix (jobFilesPrefix of the jobs module), which goes when the job fails. */
export function assetStorageKey(jobId: number, filename: string): string {
  return `jobs/${jobId}/${filename}`;
}

class ScrapeRun {
  private readonly robots: RobotsRules;
  private readonly pageBudget: PageBudget;
  /** Set once the crawl has failed (or was stopped): nothing more is requested or stored. */
  private stopped = false;
  private readonly bodySlots = new PQueue({ concurrency: JOB_BODY_SLOTS });
  private readonly hosts = new Map<string, Promise<HostLane>>();
  private readonly seenPages = new Set<string>();
  private readonly seenAssets = new Set<string>();
  private readonly seenHashes = new Set<string>();
  private readonly usedNames = new Set<string>();
  private readonly downloads: Promise<void>[] = [];
  private readonly counts: Required<JobProgress> = { pagesFetched: 0, assetsFound: 0, assetsStored: 0 };
  /** Asset rows written in batches: one insert per row would be half of a large crawl's time. */
  private pendingRows: CrawledAsset[] = [];
  private flushing: Promise<void> = Promise.resolve();
  /** RENDER_AUTO for this crawl: never when the scrape said `render` either way. */
  private autoRule: RenderAuto | null;
  /** The job's browser context, opened by its first rendered page and closed when the crawl ends. */
  private session: RenderSession | null = null;

  constructor(
    private readonly deps: CrawlDependencies,
    private readonly jobId: number,
    private readonly input: ScrapeInput,
    private readonly hooks: CrawlHooks,
  ) {
    this.robots = new RobotsRules(deps.fetcher, deps.userAgent, deps.scrape.respectRobots);
    this.pageBudget = new PageBudget(deps.scrape.maxPages, deps.maxRedirects);
    this.autoRule = input.render === undefined && deps.renderer && deps.renderAuto?.enabled ? deps.renderAuto : null;
  }

  async run(): Promise<Required<JobProgress>> {
    const visits: Promise<void>[] = [];
    try {
      return await this.crawlOrStop(visits);
    } finally {
      await this.session?.close();
    }
  }

  private async crawlOrStop(visits: Promise<void>[]): Promise<Required<JobProgress>> {
    try {
      return await this.crawl(visits);
    } catch (error) {
      // A failed job's files are deleted (JobsService.fail) once this rejects: so before it does,
      // nothing new starts and whatever is still storing has finished.
      this.stopped = true;
      await Promise.allSettled(visits);
      await Promise.allSettled(this.downloads);
      await this.flushing.catch(() => {});
      throw error;
    }
  }

  private async crawl(visits: Promise<void>[]): Promise<Required<JobProgress>> {
    const start = new URL(this.input.url).href;
    if (!(await this.robots.isAllowed(start))) {
      const unreadable = await this.robots.unreadableReason(start);
      throw new AppError(
        unreadable
          ? `robots.txt of ${new URL(start).host} could not be read (${unreadable}), so nothing on that site may be fetched`
          : `robots.txt of ${new URL(start).host} does not allow fetching ${start}`,
        400,
        ErrorCode.RobotsDisallowed,
      );
    }
    const maxDepth = this.input.sniper_mode ? 0 : this.input.crawl_depth;
    let level = [start];
    this.seenPages.add(start);
    for (let depth = 0; depth <= maxDepth && level.length > 0 && !this.full(); depth++) {
      const next: string[] = [];
      visits.splice(0, visits.length, ...level.map((url) => this.visitPage(url, depth === 0, depth < maxDepth ? next : null)));
      await Promise.all(visits);
      level = next;
    }
    await Promise.all(this.downloads);
    await this.flushRows();
    this.checkAborted();
    return { ...this.counts };
  }

  private async visitPage(url: string, isStart: boolean, nextLevel: string[] | null): Promise<void> {
    this.checkAborted();
    if (this.full() || this.stopped) return;
    if (!isStart && !(await this.robots.isAllowed(url))) return;
    const share = await this.pageBudget.take();
    if (share === 0) return;
    if (this.input.render) return this.renderPage(url, isStart, nextLevel, share);
    let fetched;
    // A request that failed may have followed redirects first: it counts for its whole share.
    let used = share;
    try {
      fetched = await this.fetchOnHost(url, this.deps.scrape.maxPageBytes, () => !this.stopped && !this.hooks.signal.aborted, share - 1);
      used = fetched ? 1 + fetched.response.redirects.length : 0;
    } catch (error) {
      this.checkAborted(); // a stopped job's downloads are cancelled: it reports the stop, not their failure
      if (isStart) throw error; // the caller's own URL: the job fails with the fetcher's reason
      return;
    } finally {
      this.pageBudget.settle(share, used);
    }
    if (!fetched) return;
    const { response, release } = fetched;
    let page: { url: string; html: string } | null;
    try {
      page = await this.readPage(url, response, isStart);
    } finally {
      release();
    }
    if (!page) return;
    const plain = extractPageResources(page.html, page.url);
    const imagesFound = plain.resources.filter((resource) => resource.kind === 'image').length;
    const rendered = this.autoRule && shouldAutoRender(page.html, imagesFound, this.autoRule) ? await this.autoRender(page.url) : null;
    this.take(rendered ?? plain, nextLevel);
  }

  /** The page's HTML and where it ended, counted as a fetched page; null when it was no page (a file is kept as an asset). */
  private async readPage(url: string, response: FetchedResponse, isStart: boolean): Promise<{ url: string; html: string } | null> {
    if (response.status >= 400) {
      if (isStart) throw new AppError(`the page ${url} answered HTTP ${response.status}`, 400, ErrorCode.PageUnavailable);
      return null;
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!/html|xml/i.test(contentType)) {
      // The link led to a file (an image, a PDF ...) rather than a page: keep it like any asset.
      if (!this.seenAssets.has(url) && this.wanted('unknown', url)) {
        this.seenAssets.add(url);
        this.counts.assetsFound++;
        await this.keep({ url, kind: 'unknown' }, response.body, contentType);
      }
      return null;
    }
    this.counts.pagesFetched++;
    this.seenPages.add(response.url); // reached through a redirect: not fetched again under its own URL
    this.report();
    return { url: response.url, html: response.body.toString('utf8') };
  }

  /** Downloads what a page names and, in crawl mode, queues its same-site links for the next level. */
  private take({ resources, links }: FoundAssets, nextLevel: string[] | null): void {
    for (const resource of resources) this.schedule(resource);
    if (nextLevel) {
      for (const link of links) {
        if (sameSite(link, this.input.url) && !this.seenPages.has(link)) {
          this.seenPages.add(link);
          nextLevel.push(link);
        }
      }
    }
  }

  /**
   * render: true. The page is loaded in the browser under the host's politeness (its own requests go
   * through the browser's egress proxy, by the same address policy); its images are what the final
   * DOM shows (srcset, CSS backgrounds), what the static extractors find in that DOM, and the image
   * responses the page fetched. Each is then downloaded like any asset, so filters, size limits and
   * dedupe by hash apply the same. A rendered page counts as one page request.
   */
  private async renderPage(url: string, isStart: boolean, nextLevel: string[] | null, share: number): Promise<void> {
    const renderer = this.deps.renderer;
    let rendered: RenderedPage | null = null;
    try {
      if (!renderer) throw new AppError('render: true needs the browser, which this process does not run', 503, ErrorCode.Unavailable);
      rendered = await this.render(renderer, url);
    } catch (error) {
      this.checkAborted();
      if (isStart) throw error;
      return;
    } finally {
      this.pageBudget.settle(share, rendered ? 1 : 0);
    }
    if (!rendered) return;
    if (rendered.status >= 400) {
      if (isStart) throw new AppError(`the page ${url} answered HTTP ${rendered.status}`, 400, ErrorCode.PageUnavailable);
      return;
    }
    // The page may have ended elsewhere (a redirect, or its script navigating): what it shows there
    // is used only where robots.txt allows.
    if (!(await this.robots.isAllowed(rendered.url))) {
      if (isStart) throw new AppError(`robots.txt of ${new URL(rendered.url).host} does not allow fetching ${rendered.url}, where ${url} led`, 400, ErrorCode.RobotsDisallowed);
      return;
    }
    this.counts.pagesFetched++;
    this.seenPages.add(rendered.url);
    this.report();
    this.take(renderedFinds(rendered), nextLevel);
  }

  /**
   * RENDER_AUTO chose this page (already fetched and counted): it is rendered as one more page
   * request, under the host's politeness and the page budget. Null, so the page's HTML as served
   * stands, when the budget is spent, the render fails or ends where robots.txt disallows; once the
   * browser proves unavailable, the rest of the crawl is not rendered.
   */
  private async autoRender(url: string): Promise<FoundAssets | null> {
    // A new request, to where the fetch ended (after redirects): robots.txt is asked again for it.
    if (this.full() || !(await this.robots.isAllowed(url))) return null;
    const share = await this.pageBudget.take();
    if (share === 0) return null;
    let rendered: RenderedPage | null = null;
    try {
      rendered = await this.render(this.deps.renderer!, url);
    } catch (error) {
      this.checkAborted();
      // 503: no browser here (Chromium gone, the service stopping): the rest is read as served.
      if (error instanceof AppError && error.status === 503) this.autoRule = null;
      this.deps.logger.warn({ err: error, jobId: this.jobId, url }, 'RENDER_AUTO: the page could not be rendered; its HTML as served is used');
      return null;
    } finally {
      this.pageBudget.settle(share, rendered ? 1 : 0);
    }
    if (!rendered || rendered.status >= 400 || !(await this.robots.isAllowed(rendered.url))) return null;
    this.seenPages.add(rendered.url);
    this.deps.logger.info({ jobId: this.jobId, url, images: rendered.images.length }, 'RENDER_AUTO: page rendered');
    return renderedFinds(rendered);
  }

  /** Loads the page in the browser in the host's lane: its concurrency, and its delay counted from the navigation. */
  private render(renderer: Pick<Renderer, 'renderPage' | 'openSession'>, url: string): Promise<RenderedPage | null> {
    this.session ??= renderer.openSession();
    const session = this.session;
    // The bytes of the images the page loaded are kept, so they are stored without a second download.
    return this.onHost(url, () => !this.stopped && !this.hooks.signal.aborted, (takeTurn) =>
      renderer.renderPage(url, { signal: this.hooks.signal, beforeNavigation: takeTurn, session, keepImageBodies: this.deps.scrape.maxAssetBytes }),
    );
  }

  private schedule(resource: FoundAsset): void {
    if (this.stopped) return;
    if (this.seenAssets.has(resource.url) || !this.wanted(resource.kind, resource.url)) return;
    this.seenAssets.add(resource.url);
    this.counts.assetsFound++;
    this.downloads.push(this.download(resource));
  }

  /** Filters that the URL alone can decide; the bytes decide the rest in keep(). */
  private wanted(kind: ResourceKind, url: string): boolean {
    if (kind === 'video' && !this.input.download_videos) return false;
    if (kind === 'document' && !this.input.download_docs) return false;
    const keyword = this.input.keyword_filter?.toLowerCase();
    return !keyword || url.toLowerCase().includes(keyword);
  }

  private async download(resource: FoundAsset): Promise<void> {
    try {
      if (this.full() || this.stopped || this.hooks.signal.aborted) return;
      if (!(await this.robots.isAllowed(resource.url))) return;
      if (resource.received) return await this.keepReceived(resource, resource.received);
      // Waiting for the slots may outlast the job (stopped, or another worker took it over) or its need.
      const fetched = await this.fetchOnHost(resource.url, this.deps.scrape.maxAssetBytes, () => !this.full() && !this.stopped && !this.hooks.signal.aborted);
      if (!fetched) return;
      try {
        if (fetched.response.status < 400) await this.keep(resource, fetched.response.body, fetched.response.headers.get('content-type'));
      } finally {
        fetched.release();
      }
    } catch (error) {
      // One unreachable or oversized asset does not fail the job.
      this.deps.logger.debug({ err: error, jobId: this.jobId, url: resource.url }, 'asset skipped');
    }
  }

  /**
   * An image the rendered page already received (through the job's egress proxy): stored from those
   * bytes, under the same size limit, filters and dedupe as a download, holding a body slot as one does.
   */
  private async keepReceived(resource: FoundResource, received: { body: Buffer; contentType: string }): Promise<void> {
    if (received.body.length > this.deps.scrape.maxAssetBytes) return;
    const release = await this.takeBodySlot();
    try {
      await this.keep(resource, received.body, received.contentType);
    } finally {
      release();
    }
  }

  private async keep(resource: FoundResource, body: Buffer, contentType: string | null): Promise<void> {
    if (this.full() || this.stopped || this.hooks.signal.aborted) return;
    if (body.length < this.input.min_size_kb * 1024) return;
    const type = await sniffType(body, contentType, resource.url);
    if (type.kind === 'unknown' || !this.wanted(type.kind, resource.url)) return;
    const sha256 = createHash('sha256').update(body).digest('hex');
    if (this.seenHashes.has(sha256) || this.full()) return;
    this.seenHashes.add(sha256);
    this.counts.assetsStored++; // reserve the slot before awaiting, so max_files is never passed
    try {
      // ai_labeling: the vision module names what it sees; the labels also name the file.
      const labels = this.input.ai_labeling && type.kind === 'image' ? await this.hooks.label(body) : [];
      const filename = this.uniqueName(labels.length > 0 ? filenameFor(`https://x/${labels.slice(0, 3).join('-')}`, type.ext) : filenameFor(resource.url, type.ext));
      const storageKey = assetStorageKey(this.jobId, filename);
      if (this.stopped || this.hooks.signal.aborted) {
        this.counts.assetsStored--; // stopped while labelling: not stored
        return;
      }
      await this.deps.blobs.put(storageKey, body, { contentType: type.mime, size: body.length });
      this.pendingRows.push({
        filename,
        url: resource.url,
        type: type.kind,
        contentType: type.mime,
        size: body.length,
        sha256,
        storageKey,
        aiLabel: this.input.ai_labeling && type.kind === 'image' ? labels.join(',') : null,
      });
      if (this.pendingRows.length >= ROW_BATCH) await this.flushRows();
    } catch (error) {
      this.counts.assetsStored--;
      throw error;
    }
    this.report();
  }

  /** Writes the rows gathered so far; calls queue behind each other so no batch is lost or doubled. */
  private flushRows(): Promise<void> {
    const rows = this.pendingRows;
    this.pendingRows = [];
    this.flushing = this.flushing.then(async () => {
      if (rows.length > 0) await this.hooks.saveAssets(rows);
    });
    return this.flushing;
  }

  private uniqueName(name: string): string {
    let candidate = name;
    const dot = name.lastIndexOf('.');
    for (let n = 2; this.usedNames.has(candidate.toLowerCase()); n++) candidate = `${name.slice(0, dot)}-${n}${name.slice(dot)}`;
    this.usedNames.add(candidate.toLowerCase());
    return candidate;
  }

  /**
   * Fetches under the host's concurrency and delay. The host's slot covers the request only (the
   * host does not wait while we store); one of the job's body slots is taken before the request and
   * handed to the caller, who gives it back with `release` once done with the body. Resolves with
   * null, holding nothing, when `stillWanted` says no once the slots are there.
   */
  private async fetchOnHost(url: string, maxBytes: number, stillWanted: () => boolean, maxRedirects?: number): Promise<{ response: FetchedResponse; release: () => void } | null> {
    const lane = await this.laneOf(url);
    return lane.queue.add(async () => {
      // Long waits for the host's turn happen before taking a body slot; the check after it covers
      // a wait for that slot that brought two requests closer again.
      if (lane.delayMs > 0) await waitForTurn(lane);
      const release = await this.takeBodySlot();
      try {
        if (!stillWanted()) {
          release();
          return null;
        }
        const request = () => this.deps.fetcher.fetch(url, { maxBytes, maxRedirects, signal: this.hooks.signal });
        return { response: await takeTurn(lane, request), release };
      } catch (error) {
        release();
        throw error;
      }
    });
  }

  /**
   * Runs `work` (a rendered page) in the host's lane: its concurrency, and its delay between starts,
   * taken when `work` calls `takeTurn` (just before its request: a browser may take a second to get
   * there). The long wait happens before, so the page holds no browser slot while it waits.
   */
  private async onHost<T>(url: string, stillWanted: () => boolean, work: (takeTurn: () => Promise<void>) => Promise<T>): Promise<T | null> {
    const lane = await this.laneOf(url);
    const result = await lane.queue.add(async () => {
      if (lane.delayMs > 0) await waitForTurn(lane);
      return stillWanted() ? work(() => takeTurn(lane, () => undefined)) : null;
    });
    return result ?? null;
  }

  /** Waits for one of the job's body slots; resolves with the function that gives it back. */
  private takeBodySlot(): Promise<() => void> {
    return new Promise((taken) => void this.bodySlots.add(() => new Promise<void>((release) => taken(release))));
  }

  /** The host's lane, made on the first request to it. */
  private laneOf(url: string): Promise<HostLane> {
    const host = new URL(url).host;
    let pending = this.hosts.get(host);
    if (!pending) {
      pending = this.hostLane(url);
      this.hosts.set(host, pending);
    }
    return pending;
  }

  private async hostLane(url: string): Promise<HostLane> {
    const { hostConcurrency, hostDelayMs } = this.deps.scrape;
    const crawlDelayMs = Math.min(MAX_CRAWL_DELAY_MS, ((await this.robots.crawlDelaySeconds(url)) ?? 0) * 1000);
    return { queue: new PQueue({ concurrency: hostConcurrency }), delayMs: Math.max(hostDelayMs, crawlDelayMs), lastStartAt: -Infinity };
  }

  private full(): boolean {
    return this.counts.assetsStored >= this.input.max_files;
  }

  private report(): void {
    this.hooks.progress({ ...this.counts });
  }

  private checkAborted(): void {
    if (this.hooks.signal.aborted) throw new AppError('the job was stopped', 500, ErrorCode.JobStopped);
  }
}

/**
 * SCRAPE_MAX_PAGES counted as page requests the site answers, redirects included. A page takes a
 * share before its request is sent, room for the redirects it may follow included (never more than
 * is left), and gives back what it did not use once answered; while the pages in flight hold what
 * is left, the next one waits for their answers. So several pages in flight at once, and their
 * redirects, never pass the limit, and the crawl still uses it all.
 */
class PageBudget {
  private spent = 0;
  private held = 0;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly maxRedirects: number,
  ) {}

  /** How many requests the next page may make (its own and its redirects'); 0 once none are left. */
  async take(): Promise<number> {
    for (;;) {
      const left = this.limit - this.spent - this.held;
      if (left > 0) {
        const share = Math.min(left, 1 + this.maxRedirects);
        this.held += share;
        return share;
      }
      if (this.held === 0) return 0;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  /** A share is done with: `used` of its requests were made. */
  settle(share: number, used: number): void {
    this.held -= share;
    this.spent += used;
    const waiting = this.waiting;
    this.waiting = [];
    for (const wake of waiting) wake();
  }
}

/** One host's requests: at most the host concurrency at once, starts at least delayMs apart. */
interface HostLane {
  queue: PQueue;
  delayMs: number;
  /** When (performance.now()) the last request to the host started. */
  lastStartAt: number;
}

/**
 * Waits until delayMs have passed since the host's last request started. Measured against the actual
 * last start, not a booked time, so a timer that fires late (a busy event loop) cannot bring two
 * starts closer; p-queue's `interval` counts starts per fixed window, which lets two of them fall on
 * either side of a window's edge.
 */
async function waitForTurn(lane: HostLane): Promise<void> {
  for (let wait = untilTurn(lane); wait > 0; wait = untilTurn(lane)) await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)));
}

/** Milliseconds until the host's next request may start (0 or less: now). */
function untilTurn(lane: HostLane): number {
  return lane.lastStartAt + lane.delayMs - performance.now();
}

/**
 * Waits for the host's turn, then marks the request as started and starts it (`start`) in one
 * synchronous step with the check that let it through: two waiters cannot both pass, and the mark is
 * the moment the request is made, not some microtasks before it.
 */
async function takeTurn<T>(lane: HostLane, start: () => T): Promise<Awaited<T>> {
  // Another waiter may take the turn while this one resumes from a wait: the check that lets it
  // through is made again, in the step that marks and starts.
  while (untilTurn(lane) > 0) await waitForTurn(lane);
  lane.lastStartAt = performance.now();
  return await start();
}

/** A resource to store; `received` when a rendered page already has its bytes. */
type FoundAsset = FoundResource & { received?: { body: Buffer; contentType: string } };
/** What a page names: resources to store and links to follow. */
type FoundAssets = { resources: FoundAsset[]; links: string[] };

/**
 * What a rendered page names: what the static extractors find in its final DOM, the images it shows
 * and fetched, its links. Those the page received come with their bytes, whichever place named them
 * first; the rest (a srcset candidate the browser did not choose, say) are downloaded.
 */
function renderedFinds(rendered: RenderedPage): FoundAssets {
  const { resources, links } = extractPageResources(rendered.html, rendered.url);
  const images = [...rendered.images, ...rendered.fetchedImages.map((fetched) => fetched.url)].map((url) => ({ url, kind: 'image' as const }));
  const received = new Map(rendered.fetchedImages.flatMap((image) => (image.body ? [[image.url, { body: image.body, contentType: image.contentType }] as const] : [])));
  return {
    resources: [...resources, ...images].map((resource) => {
      const bytes = received.get(resource.url);
      return bytes ? { ...resource, received: bytes } : resource;
    }),
    links: [...new Set([...links, ...rendered.links])],
  };
}

/** Same host, ignoring a leading www. */
function sameSite(url: string, start: string): boolean {
  const host = (u: string) => new URL(u).hostname.replace(/^www\./, '');
  return host(url) === host(start);
}
