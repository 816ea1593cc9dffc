// What configuration says about rendering pages in headless Chromium (src/config.ts reads it): the
// browser, how many pages at once, and the budget of one page. A leaf file (zod only).
import { z } from 'zod';
import { boolish } from '../../platform/env.js';

export interface RenderBudget {
  /** The whole render: loading, scrolling and reading the DOM. */
  timeMs: number;
  /** Scroll steps to the bottom of the page, each followed by a wait for new images. */
  scrollSteps: number;
  /** Requests the page may make (documents, scripts, images, XHR, WebSocket ...). */
  maxRequests: number;
  /** Bytes the page may receive, all requests together. */
  maxBytes: number;
}

/** When a scrape that did not ask for `render` has a page rendered anyway (scrape's auto-render.ts decides). */
export interface RenderAuto {
  enabled: boolean;
  /** A page is a candidate when its static parse finds fewer images than this. */
  minImages: number;
  /** ... and at least this share of its script-plus-text characters is inside <script> elements (0 to 1). */
  scriptShare: number;
}

export interface RenderConfig {
  /** The Chromium executable (Debian's `chromium`). */
  chromiumPath: string;
  /** Pages rendered at once by this process's one browser. */
  concurrency: number;
  /** Resident memory of the browser and its children past which it is restarted (MB). */
  maxBrowserMemoryMb: number;
  budget: RenderBudget;
  auto: RenderAuto;
}

export const renderEnvShape = {
  RENDER_CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium').describe('the Chromium executable used to render pages that build their images by script (`apt-get install chromium` on Debian)'),
  RENDER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2).describe('pages rendered at once by one process (they share one headless Chromium)'),
  RENDER_MAX_BROWSER_MB: z.coerce.number().int().min(128).default(1536).describe("resident memory of the browser and its children past which it is restarted once its pages are done"),
  RENDER_PAGE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(30_000).describe('time budget of one rendered page: loading, scrolling and reading it'),
  RENDER_SCROLL_STEPS: z.coerce.number().int().min(0).max(500).default(20).describe('most scroll steps on one rendered page (it stops earlier once a step brings no new image)'),
  RENDER_MAX_REQUESTS: z.coerce.number().int().min(1).default(500).describe('most requests one rendered page may make; later ones are refused'),
  RENDER_MAX_BYTES: z.coerce.number().int().min(1024).default(64 * 1024 * 1024).describe('most bytes one rendered page may receive, all its requests together; past it its connections are cut'),
  RENDER_AUTO: boolish.default(false).describe("render a page of a scrape that did not say `render` (a schedule's run too, when the schedule was created without it) when its HTML as served names fewer than RENDER_AUTO_MIN_IMAGES images and is mostly script (RENDER_AUTO_SCRIPT_SHARE); `render: false` never renders, and without Chromium pages are read as served. Costs the browser (a process of a few hundred MB) and seconds per rendered page; such scrapes run in the job's process, beside the browser, not in a crawl process"),
  RENDER_AUTO_MIN_IMAGES: z.coerce.number().int().min(1).default(3).describe('RENDER_AUTO: a page whose HTML as served names fewer images than this may be rendered'),
  RENDER_AUTO_SCRIPT_SHARE: z.coerce.number().min(0).max(1).default(0.5).describe('RENDER_AUTO: ... and at least this share of it is script: the characters of its <script> elements over those plus its visible text (0 to 1)'),
};

type RenderEnv = z.output<z.ZodObject<typeof renderEnvShape>>;

export function renderConfigFrom(e: RenderEnv): RenderConfig {
  return {
    chromiumPath: e.RENDER_CHROMIUM_PATH,
    concurrency: e.RENDER_CONCURRENCY,
    maxBrowserMemoryMb: e.RENDER_MAX_BROWSER_MB,
    budget: { timeMs: e.RENDER_PAGE_TIMEOUT_MS, scrollSteps: e.RENDER_SCROLL_STEPS, maxRequests: e.RENDER_MAX_REQUESTS, maxBytes: e.RENDER_MAX_BYTES },
    auto: { enabled: e.RENDER_AUTO, minImages: e.RENDER_AUTO_MIN_IMAGES, scriptShare: e.RENDER_AUTO_SCRIPT_SHARE },
  };
}
