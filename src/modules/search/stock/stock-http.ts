// The one GET the stock clients share: JSON from a library's API within the caller's signal, with
// every way it can fail turned into a StockError that names the library and never carries a key.
import type { StockImage, StockSource } from './stock.types.js';

export type StockFailure = 'timeout' | 'network' | 'unauthorized' | 'rate_limited' | 'http' | 'malformed';

export class StockError extends Error {
  constructor(
    readonly source: StockSource,
    readonly failure: StockFailure,
    message: string,
    readonly upstreamStatus?: number,
  ) {
    super(message);
    this.name = 'StockError';
  }
}

/** A search page is a few hundred kilobytes at most; anything far larger is not an answer. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export interface StockRequest {
  source: StockSource;
  /** Base URL (from the configuration) plus path. */
  url: URL;
  headers?: Record<string, string>;
  signal: AbortSignal;
}

export async function getStockJson({ source, url, headers, signal }: StockRequest): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal, redirect: 'error' });
  } catch (error) {
    throw failed(source, error, signal);
  }
  let text: string;
  try {
    text = await readCapped(response, source);
  } catch (error) {
    throw error instanceof StockError ? error : failed(source, error, signal);
  }
  if (response.status === 401 || response.status === 403) throw new StockError(source, 'unauthorized', `${source} refused the configured key (HTTP ${response.status})`, response.status);
  if (response.status === 429) throw new StockError(source, 'rate_limited', `${source} is rate limiting this service (HTTP 429)`, 429);
  if (!response.ok) throw new StockError(source, 'http', `${source} answered HTTP ${response.status}`, response.status);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new StockError(source, 'malformed', `${source} answered something that is not JSON`);
  }
}

async function readCapped(response: Response, source: StockSource): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new StockError(source, 'malformed', `${source} answered more than ${MAX_ANSWER_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function failed(source: StockSource, error: unknown, signal: AbortSignal): StockError {
  if (signal.aborted || (error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') {
    return new StockError(source, 'timeout', `${source} did not answer before the deadline`);
  }
  return new StockError(source, 'network', `${source} could not be reached`);
}

/** `base` + `path` without doubling or losing the slash, with the query parameters set. */
export function stockUrl(base: string, path: string, params: Record<string, string | number | undefined>): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, String(value));
  return url;
}

/** Reads a field as text when it is a non-empty string. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Reads a field as a positive integer (dimensions). */
export function dimension(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Only http(s) image links are passed on: an answer cannot smuggle javascript: or data: URLs to callers. */
export function httpUrl(value: unknown): string | undefined {
  const candidate = text(value);
  if (!candidate || !/^https?:\/\//i.test(candidate) || !URL.canParse(candidate)) return undefined;
  return candidate;
}

/** The array under `field` of an answer that must be an object holding one, or a 'malformed' StockError. */
export function listIn(source: StockSource, answer: unknown, field: string): unknown[] {
  const list = answer && typeof answer === 'object' ? (answer as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(list)) throw new StockError(source, 'malformed', `${source} answered without a ${field} list`);
  return list;
}

export function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One image of an answer, its fields as the library gave them: none when its link is not an http(s)
 * URL, so an answer cannot pass javascript: or data: URLs to callers; other fields are kept only when
 * they are what they should be (text, positive integers, http(s) links).
 */
export function stockImage(
  source: StockSource,
  raw: { url: unknown; title: unknown; width: unknown; height: unknown; pageUrl: unknown; attribution: string | undefined },
): StockImage[] {
  const url = httpUrl(raw.url);
  if (!url) return [];
  return [{ url, title: text(raw.title) ?? 'Untitled', source, width: dimension(raw.width), height: dimension(raw.height), pageUrl: httpUrl(raw.pageUrl), attribution: raw.attribution }];
}
