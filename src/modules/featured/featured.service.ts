// GET /api/featured-image: fetch the page through the SSRF-safe fetcher (or, with render, load it in
// the shared headless Chromium, whose every connection passes the same address policy) and rank its
// candidates.
import { z } from 'zod';
import { AppError, ErrorCode } from '../../platform/errors.js';
import { FetchFailed, FetchRefused, type SafeFetcher } from '../../platform/http/safe-fetch.js';
import { absoluteHttpUrl, parseInput } from '../../platform/validation.js';
import type { Renderer } from '../render/index.js';
import { extractArticle, type FeaturedCandidate, type FeaturedSource } from './featured.extractor.js';

export const inputSchema = z.object({
  url: absoluteHttpUrl('url is required: the full URL of the page', { nonEmpty: true })
    .describe('the page: an absolute http or https URL'),
  all: z.boolean({ error: 'expected true or false (or 1 or 0)' }).default(false).describe('rank every candidate (true/false/1/0)'),
  min_score: z
    .number({ error: 'expected an integer from 0 to 100' })
    .int('expected an integer from 0 to 100')
    .min(0, 'expected an integer from 0 to 100')
    .max(100, 'expected an integer from 0 to 100')
    .default(0)
    .describe('drop candidates scoring less'),
  render: z
    .boolean({ error: 'expected true or false (or 1 or 0)' })
    .default(false)
    .describe('load the page in headless Chromium and read its final DOM (og:image or a hero image set by script); slower. 503 when Chromium is not installed'),
});

export interface FeaturedImageResult {
  /** The best candidate, or nulls when the page has none at or above min_score. */
  url: string | null;
  score: number | null;
  source: FeaturedSource | null;
  /** The page that was read (after redirects). */
  page: string;
  /** Every candidate, best first (only when `all` was asked). */
  all: FeaturedCandidate[] | null;
}

export class FeaturedService {
  constructor(
    private readonly fetcher: SafeFetcher,
    private readonly maxPageBytes: number,
    /** Loads pages in headless Chromium (render: true). */
    private readonly renderer: Pick<Renderer, 'renderPage' | 'assertAvailable'>,
  ) {}

  async find(input: { url?: string | null; all?: boolean | null; min_score?: number | null; render?: boolean | null }): Promise<FeaturedImageResult> {
    const options = parseInput(inputSchema, { url: input.url ?? undefined, all: input.all ?? undefined, min_score: input.min_score ?? undefined, render: input.render ?? undefined });
    const article = options.render ? await this.renderedArticle(options.url, 'url') : await this.article(options.url, 'url');
    const candidates = article.candidates.filter((c) => c.score >= options.min_score);
    const best = candidates[0];
    return { url: best?.url ?? null, score: best?.score ?? null, source: best?.source ?? null, page: article.page, all: options.all ? candidates : null };
  }

  /**
   * Reads a page (an absolute http(s) URL, checked by the caller) for its headline and its image
   * candidates, best first. Failures are 400s naming `field`, the caller's input.
   */
  async article(url: string, field: string): Promise<Article> {
    const response = await fieldErrors(field, () => this.fetcher.fetch(url, { maxBytes: this.maxPageBytes, headers: { Accept: 'text/html,application/xhtml+xml' } }));
    if (response.status >= 400) throw new AppError(`the page ${url} answered HTTP ${response.status}`, 400, ErrorCode.PageUnavailable, field);
    const contentType = response.headers.get('content-type') ?? '';
    if (!/html|xml/i.test(contentType)) {
      throw new AppError(`${url} is not an HTML page (Content-Type ${contentType || 'missing'})`, 400, ErrorCode.NotHtml, field);
    }
    const { headline, candidates } = extractArticle(response.body.toString('utf8'), response.url);
    return { page: response.url, headline, candidates };
  }

  /**
   * As `article`, on the page's final DOM after its scripts ran: what they set (og:image, a hero
   * image, JSON-LD) is found as if served. 503 without Chromium, before anything is loaded.
   */
  async renderedArticle(url: string, field: string): Promise<Article> {
    this.renderer.assertAvailable();
    const rendered = await fieldErrors(field, () => this.renderer.renderPage(url));
    if (rendered.status >= 400) throw new AppError(`the page ${url} answered HTTP ${rendered.status}`, 400, ErrorCode.PageUnavailable, field);
    const { headline, candidates } = extractArticle(rendered.html, rendered.url);
    return { page: rendered.url, headline, candidates };
  }
}

interface Article {
  page: string;
  headline: string | null;
  candidates: FeaturedCandidate[];
}

/** A refused address or a failed load is about the caller's url: the 400 names the field. */
async function fieldErrors<T>(field: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof FetchRefused || error instanceof FetchFailed) throw new AppError(`${field}: ${error.message}`, error.status, error.code, field);
    throw error;
  }
}
