// The one way this service fetches a URL someone else chose (scraped pages and their assets,
// featured images, webhook targets, stock lists, watermarks). Every caller goes through here so the
// SSRF rules live in one place:
// - only http(s) URLs without credentials;
// - the address is checked where the socket is opened: names are resolved by a guarded `lookup`
//   that refuses if any answer is forbidden and hands the socket the very addresses it checked,
//   so DNS rebinding between check and connect has nothing to exploit; IP literals (which
//   net.connect never looks up) are checked in the connector and, for a clearer error, up front;
// - redirects are followed by hand, each hop re-checked the same way;
// - one deadline covers the whole exchange, body included, and the body is cut off as soon as it
//   passes maxBytes.
import { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import { AppError, ErrorCode } from '../errors.js';
import { AddressRefused, addressRefusal, createGuardedLookup, hostRefusal, isIpLiteral, type PrivateAddressAllowance } from './address-policy.js';

export interface SafeFetchOptions {
  /**
   * false (default): only public unicast addresses. true: private, loopback and link-local ones too
   * (development and fixture servers), cloud metadata addresses excepted. A list: exactly those
   * addresses besides public ones, which lets a test keep one fixture reachable and another not.
   */
  allowPrivateAddresses?: PrivateAddressAllowance;
  /** Deadline for the whole exchange: connecting, every redirect and reading the body. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
}

export interface FetchRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Aborted when the caller no longer wants the answer (a stopped job): the request and its body stop at once. */
  signal?: AbortSignal;
}

export interface FetchedResponse {
  /** The URL that finally answered. */
  url: string;
  status: number;
  headers: Headers;
  /** Every URL that answered with a redirect, in order, starting with the one asked for. */
  redirects: string[];
  body: Buffer;
}

export interface StreamedResponse {
  url: string;
  status: number;
  headers: Headers;
  redirects: string[];
  contentLength: number | null;
  /**
   * Errors with FetchRefused once more than maxBytes arrive and with FetchFailed on a timeout or a
   * network failure. Read it to the end or destroy it: the connection and the deadline stay
   * open until then.
   */
  body: Readable;
}

/** The URL or the address it leads to is not one this service may fetch. */
export class FetchRefused extends AppError {
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`refused to fetch ${target}: ${reason}`, 400, ErrorCode.FetchRefused);
  }
}

/** The URL was allowed but fetching it failed: timeout, DNS, connection or TLS errors. */
export class FetchFailed extends AppError {
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`could not fetch ${target}: ${reason}`, 400, ErrorCode.FetchFailed);
  }
}

const DEFAULTS = {
  timeoutMs: 15_000,
  maxBytes: 20 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'image-service/0.1 (+https://github.com/image-service)',
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Headers that carry the caller's identity to the origin it meant; dropped when a redirect leaves it.
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];
// Headers the fetcher owns: the user agent is always ours, and Host must match the connection.
const OWNED_HEADERS = new Set(['user-agent', 'host']);

export class SafeFetcher {
  private readonly allowPrivate: PrivateAddressAllowance;
  private readonly defaults: Required<Omit<SafeFetchOptions, 'allowPrivateAddresses'>>;
  private agent?: Promise<Agent>;

  constructor(options: SafeFetchOptions = {}) {
    this.allowPrivate = options.allowPrivateAddresses ?? false;
    this.defaults = {
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxBytes: options.maxBytes ?? DEFAULTS.maxBytes,
      maxRedirects: options.maxRedirects ?? DEFAULTS.maxRedirects,
      userAgent: options.userAgent ?? DEFAULTS.userAgent,
    };
  }

  /** undici's agent, made with the first request: loading undici costs a start that never fetches about 0.25 CPU s. */
  private dispatcher(): Promise<Agent> {
    this.agent ??= import('undici').then(({ Agent, buildConnector }) => {
      const connectGuarded = buildConnector({ lookup: createGuardedLookup(this.allowPrivate) });
      return new Agent({
        connect: (connectOptions, callback) => {
          // net.connect never calls `lookup` for an IP literal, so literals are judged here.
          if (isIpLiteral(connectOptions.hostname)) {
            const refusal = addressRefusal(connectOptions.hostname, this.allowPrivate);
            if (refusal) return callback(new AddressRefused(connectOptions.hostname, refusal), null);
          }
          connectGuarded(connectOptions, callback);
        },
      });
    });
    return this.agent;
  }

  async fetch(url: string, request: FetchRequest = {}): Promise<FetchedResponse> {
    const { body, contentLength: _contentLength, ...response } = await this.stream(url, request);
    const chunks: Buffer[] = [];
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { ...response, body: Buffer.concat(chunks) };
  }

  async stream(input: string, request: FetchRequest = {}): Promise<StreamedResponse> {
    const timeoutMs = request.timeoutMs ?? this.defaults.timeoutMs;
    const maxBytes = request.maxBytes ?? this.defaults.maxBytes;
    const maxRedirects = request.maxRedirects ?? this.defaults.maxRedirects;
    let url = this.checkedUrl(parseUrl(input));
    let method = (request.method ?? 'GET').toUpperCase();
    let requestBody = request.body;
    const headers = this.requestHeaders(request.headers);
    const redirects: string[] = [];
    // Before the request's clock starts: the first request of a process loads undici.
    const agent = await this.dispatcher();

    const controller = new AbortController();
    let limitedBody: Readable | undefined;
    const stop = (reason: AppError) => {
      // A body nobody listens to would turn the error into an uncaught exception; close it quietly.
      // Destroying it first also means the abort below finds nothing left to report on it.
      if (limitedBody) limitedBody.destroy(limitedBody.listenerCount('error') > 0 ? reason : undefined);
      controller.abort(reason);
    };
    const timer = setTimeout(() => stop(new FetchFailed(describe(url), `timed out after ${timeoutMs} ms`)), timeoutMs);
    const callerStopped = () => stop(new FetchFailed(describe(url), 'the request was cancelled'));
    const forgetCaller = () => request.signal?.removeEventListener('abort', callerStopped);
    if (request.signal?.aborted) callerStopped();
    else request.signal?.addEventListener('abort', callerStopped, { once: true });

    try {
      for (;;) {
        let response: Dispatcher.ResponseData;
        try {
          response = await agent.request({
            origin: url.origin,
            path: url.pathname + url.search,
            method,
            headers,
            body: requestBody,
            signal: controller.signal,
          });
        } catch (error) {
          throw fetchError(error, url, controller.signal);
        }

        const location = headerValue(response.headers, 'location');
        if (REDIRECT_STATUSES.has(response.statusCode) && location !== undefined) {
          discard(response.body);
          if (redirects.length >= maxRedirects) throw new FetchRefused(describe(url), `more than ${maxRedirects} redirects`);
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            throw new FetchFailed(describe(url), `it redirected to an invalid URL ${JSON.stringify(location.slice(0, 200))}`);
          }
          this.checkedUrl(next);
          redirects.push(url.href);
          // What browsers do: 303 always, and 301/302 after a POST, become a GET without a body.
          if ((response.statusCode === 303 && method !== 'HEAD') || ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')) {
            method = 'GET';
            requestBody = undefined;
            for (const name of Object.keys(headers)) if (name.startsWith('content-')) delete headers[name];
          }
          if (next.origin !== url.origin) for (const name of CREDENTIAL_HEADERS) delete headers[name];
          url = next;
          continue;
        }

        const contentLength = parseContentLength(headerValue(response.headers, 'content-length'));
        if (method !== 'HEAD' && contentLength !== null && contentLength > maxBytes) {
          discard(response.body);
          throw new FetchRefused(describe(url), tooLarge(maxBytes));
        }
        const finalUrl = url;
        limitedBody = limitBody(response.body, {
          maxBytes,
          tooLarge: () => new FetchRefused(describe(finalUrl), tooLarge(maxBytes)),
          failed: (error) => fetchError(error, finalUrl, controller.signal),
          settled: () => {
            clearTimeout(timer);
            forgetCaller();
          },
        });
        return {
          url: url.href,
          status: response.statusCode,
          headers: toHeaders(response.headers),
          redirects,
          contentLength,
          body: limitedBody,
        };
      }
    } catch (error) {
      clearTimeout(timer);
      forgetCaller();
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.agent) await (await this.agent).close();
  }

  /** The checks that need no network: scheme, credentials, and the address when it is a literal. */
  private checkedUrl(url: URL): URL {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new FetchRefused(`a ${url.protocol} URL`, 'only http: and https: URLs can be fetched');
    }
    if (url.username || url.password) throw new FetchRefused(describe(url), 'URLs with credentials (user:password@) are not allowed');
    const refusal = hostRefusal(url.hostname, this.allowPrivate);
    if (refusal) throw new FetchRefused(describe(url), refusal);
    return url;
  }

  /**
   * Why `input` would be refused, judged now without the network (scheme, credentials, an IP
   * literal or a localhost name): for work that fetches later (a scrape job, a schedule), so the
   * caller hears it as a 400 instead of a job that fails. Null when it may be tried.
   */
  refusal(input: string): string | null {
    try {
      this.checkedUrl(parseUrl(input));
      return null;
    } catch (error) {
      if (error instanceof FetchRefused) return error.reason;
      if (error instanceof AppError) return error.message;
      throw error;
    }
  }

  private requestHeaders(given: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) {
      const lower = name.toLowerCase();
      if (!OWNED_HEADERS.has(lower)) headers[lower] = value;
    }
    headers['user-agent'] = this.defaults.userAgent;
    return headers;
  }
}

function parseUrl(input: string): URL {
  try {
    return new URL(input);
  } catch {
    throw new FetchRefused(JSON.stringify(input.slice(0, 200)), 'not a valid URL');
  }
}

// Errors name the origin only: paths and queries can carry tokens (webhook URLs) that should not
// end up in logs or responses.
function describe(url: URL): string {
  return `${url.protocol}//${url.host}/`;
}

function tooLarge(maxBytes: number): string {
  return `the response is larger than the limit of ${maxBytes} bytes`;
}

function fetchError(error: unknown, url: URL, signal: AbortSignal): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof AddressRefused) return new FetchRefused(describe(url), error.reason);
  if (signal.aborted && signal.reason instanceof AppError) return signal.reason;
  return new FetchFailed(describe(url), networkReason(error));
}

function networkReason(error: unknown): string {
  const { code = '', message = String(error) } = error as { code?: string; message?: string };
  switch (code) {
    case 'ENOTFOUND':
      return 'host not found';
    case 'EAI_AGAIN':
      return 'host lookup failed temporarily';
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'UND_ERR_SOCKET':
      return 'the connection closed unexpectedly';
  }
  if (code.startsWith('HPE_')) return 'the server sent an invalid HTTP response';
  if (/^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_)/.test(code)) return `TLS error: ${message}`;
  return message || 'network error';
}

interface BodyLimits {
  maxBytes: number;
  tooLarge: () => Error;
  failed: (error: unknown) => Error;
  /** Called once the body has ended or been destroyed. */
  settled: () => void;
}

// Passes the body through while counting. The chunk that crosses the limit is never handed on:
// the source is destroyed at once, which makes undici drop the connection.
function limitBody(source: Readable, limits: BodyLimits): Readable {
  let received = 0;
  const limited = new Readable({
    read: () => source.resume(),
    destroy: (error, callback) => {
      source.destroy();
      limits.settled();
      callback(error);
    },
  });
  source.pause();
  source.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes) return void limited.destroy(limits.tooLarge());
    if (!limited.push(chunk)) source.pause();
  });
  source.on('end', () => {
    limits.settled();
    limited.push(null);
  });
  source.on('error', (error) => limited.destroy(limits.failed(error)));
  return limited;
}

// Drops a body we will not read. undici reports the abort as an error event; nobody needs it.
function discard(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

function headerValue(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseContentLength(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

function toHeaders(raw: Dispatcher.ResponseData['headers']): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
