// What an image generation provider is, how it fails, and the HTTP helpers the clients share.
import type { GenerationProviderName } from '../generation.settings.js';
import { ProviderError, redact } from '../../../platform/http/provider-error.js';

/** The failure type is the platform's, one for every module that calls a provider. */
export { ProviderError, joinUrl, redact, type ProviderFailure } from '../../../platform/http/provider-error.js';

export type Orientation = 'landscape' | 'portrait' | 'square';

export interface ProviderRequest {
  /** The prompt as the provider gets it (the style already worked in). */
  prompt: string;
  orientation: Orientation;
  /** Images wanted (1 to 4); a provider may deliver fewer. */
  count: number;
  /** Ends the call: the attempt's deadline, or the caller going away. */
  signal: AbortSignal;
  /** The caller's own key for this provider (vendor_key), used instead of the server's for this call. */
  apiKey?: string;
}

/** Downloads a URL a provider answered with (a result file): the SSRF-safe fetcher, bounded in bytes. */
export type ResultDownloader = (url: string, options: { signal: AbortSignal; maxBytes: number }) => Promise<Buffer>;

export interface GenerationProvider {
  readonly name: GenerationProviderName;
  /** The encoded bytes of each image made, in any image format (the chain checks and converts them). */
  generate(request: ProviderRequest): Promise<Buffer[]>;
}

export interface CallOptions {
  provider: GenerationProviderName;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Largest answer read; a larger one is malformed. */
  maxBytes: number;
  /** Secrets to blank in anything that reaches a log line. */
  secrets: Array<string | undefined>;
}

export interface CallAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/**
 * One request to a configured provider host (its base URL is the operator's, not a caller's, so it
 * is not the SSRF-safe fetcher's business; redirects are refused). Every way it can go wrong becomes
 * a ProviderError; a non-2xx answer is `http`.
 */
export async function call(url: string, options: CallOptions): Promise<CallAnswer> {
  const { provider, signal, secrets } = options;
  let response: Response;
  try {
    response = await fetch(url, { method: options.method ?? 'GET', headers: options.headers, body: options.body, signal, redirect: 'error' });
  } catch (error) {
    throw networkError(provider, error, signal, secrets);
  }
  let body: Buffer;
  try {
    body = await readLimited(response, options.maxBytes);
  } catch (error) {
    if (error instanceof OversizedAnswer) throw new ProviderError(provider, 'malformed', `${provider} answered more than ${options.maxBytes} bytes`);
    throw networkError(provider, error, signal, secrets);
  }
  if (!response.ok) {
    throw new ProviderError(provider, 'http', `${provider} answered HTTP ${response.status}`, redact(body.subarray(0, 300).toString('utf8'), secrets), response.status);
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', body };
}

/** A JSON answer of a provider: `call`, then parsed (anything else is malformed). */
export async function callJson(url: string, options: CallOptions): Promise<unknown> {
  const answer = await call(url, options);
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch {
    throw new ProviderError(options.provider, 'malformed', `${options.provider} answered something that is not JSON`, redact(answer.body.subarray(0, 300).toString('utf8'), options.secrets));
  }
}

function networkError(provider: GenerationProviderName, error: unknown, signal: AbortSignal, secrets: Array<string | undefined>): ProviderError {
  const e = error as Error;
  if (signal.aborted || e.name === 'TimeoutError' || e.name === 'AbortError') return new ProviderError(provider, 'timeout', `${provider} did not answer in time`);
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return new ProviderError(provider, 'network', `${provider} could not be reached`, redact(cause?.code ?? cause?.message ?? e.message, secrets));
}

/** Reads a body to the end, cutting it off (malformed) past maxBytes. */
async function readLimited(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new OversizedAnswer();
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new OversizedAnswer();
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

class OversizedAnswer extends Error {}

/**
 * Runs one request per wanted image at once (providers that make one image a call): the images
 * that came, in order; when none came, the first failure.
 */
export async function eachImage(count: number, make: (index: number) => Promise<Buffer>): Promise<Buffer[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, (_, index) => make(index)));
  const images = settled.filter((s): s is PromiseFulfilledResult<Buffer> => s.status === 'fulfilled').map((s) => s.value);
  if (images.length > 0) return images;
  throw (settled[0] as PromiseRejectedResult).reason;
}

/** A random seed per image: variations differ, and a retry is not the same picture. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2_147_483_647);
}
