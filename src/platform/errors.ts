// Typed service errors. Each carries the HTTP status the REST shim answers with and a stable code;
// GraphQL exposes them as the ServiceError member of mutation results or as errors whose
// extensions carry `http.status`.

/**
 * Every error code the service answers with (GraphQL `extensions.code`, `ServiceError.code`, a
 * pipeline step's `error.code`): the one list, name -> code, with what each means. The codes on the
 * wire are stable; a new one is added here.
 */
export const ErrorCode = {
  // The general ones (the classes below).
  /** 400: the input is not what the field expects; the message names the field. */
  InvalidInput: 'INVALID_INPUT',
  /** 401: no API key, or one that is not (or no longer) valid. */
  Unauthenticated: 'UNAUTHENTICATED',
  /** 403: the key may not do this (scope, role, another account's object it may not change). */
  Forbidden: 'FORBIDDEN',
  /** 404: no such object, or none the key may see. */
  NotFound: 'NOT_FOUND',
  /** 409: the request clashes with the current state (a duplicate, a state that does not allow it). */
  Conflict: 'CONFLICT',
  /** 413: a body, file or image larger than the limit. */
  PayloadTooLarge: 'PAYLOAD_TOO_LARGE',
  /** 429: a quota or rate limit is used up; the headers say when it resets. */
  QuotaExceeded: 'QUOTA_EXCEEDED',
  /** 503: a dependency (the database, every provider, a stopping service) cannot serve now. */
  Unavailable: 'UNAVAILABLE',
  /** 500: a bug; the message carries the request id to find it in the log (GraphQL layer). */
  InternalServerError: 'INTERNAL_SERVER_ERROR',
  // Money.
  /** 402: the account's spendable API credits do not cover the price. */
  InsufficientCredits: 'INSUFFICIENT_CREDITS',
  /** 402: the account's spendable coins do not cover the amount. */
  InsufficientCoins: 'INSUFFICIENT_COINS',
  /** 402: a premium style preset that the account has not unlocked. */
  StyleLocked: 'STYLE_LOCKED',
  // Fetching and reading what a caller pointed at.
  /** 400: the SSRF-safe fetcher refused the URL (scheme, credentials, a private address). */
  FetchRefused: 'FETCH_REFUSED',
  /** 400: the URL was allowed but fetching it failed (timeout, DNS, connection, TLS). */
  FetchFailed: 'FETCH_FAILED',
  /** 400: the page a caller named answered an HTTP error. */
  PageUnavailable: 'PAGE_UNAVAILABLE',
  /** 400: the page a caller named is not HTML. */
  NotHtml: 'NOT_HTML',
  /** 400: robots.txt does not allow fetching the start page, or could not be read. */
  RobotsDisallowed: 'ROBOTS_DISALLOWED',
  /** 400: the article page has no featured image that could be read (ReplaceFlow). */
  NoFeaturedImage: 'NO_FEATURED_IMAGE',
  /** 400 (or 413): an upload or image the image processor refuses (not an image, too many pixels). */
  ImageRejected: 'IMAGE_REJECTED',
  /** 400: the image at a URL could not be read as an image (mirrors). */
  UnreadableImage: 'UNREADABLE_IMAGE',
  /** 416: a byte range outside the file. */
  RangeNotSatisfiable: 'RANGE_NOT_SATISFIABLE',
  // Outside services.
  /** 502: every provider (or the one named) failed to deliver. */
  ProviderFailed: 'PROVIDER_FAILED',
  /** 502: an export destination (WordPress, Shopify ...) refused or failed the upload. */
  ExportFailed: 'EXPORT_FAILED',
  // Pipelines.
  /** 400: a step's parameter refers to an output that does not exist. */
  UnresolvedReference: 'UNRESOLVED_REFERENCE',
  /** 504: the pipeline's deadline passed before the step finished. */
  PipelineDeadline: 'PIPELINE_DEADLINE',
  /** 502: the scrape job a step started failed. */
  ScrapeFailed: 'SCRAPE_FAILED',
  /** 500: the scrape job a step waited for is gone. */
  JobGone: 'JOB_GONE',
  /** A step not run because an earlier one failed and stop_on_error is true (no status). */
  Skipped: 'SKIPPED',
  /** 500: a step failed with an unexpected error (logged). */
  Internal: 'INTERNAL',
  // Scrape jobs and their crawl processes.
  /** 500: the job was stopped while it ran. */
  JobStopped: 'JOB_STOPPED',
  /** 500: a crawl failed with an unexpected error (logged by the crawl process). */
  CrawlFailed: 'CRAWL_FAILED',
  /** 500: the crawl process exited while it crawled (often out of memory). */
  CrawlProcessExited: 'CRAWL_PROCESS_EXITED',
  /** 500: the job's process could not answer a request of its crawl process. */
  CrawlRequestFailed: 'CRAWL_REQUEST_FAILED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class AppError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: ErrorCode,
    /** The input field the message is about, when there is one. */
    readonly field?: string,
    /** Extra response headers (Retry-After, RateLimit-*). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The base of an error that always answers one status and code: `class NotFound extends
 * fixedStatus(404, ErrorCode.NotFound) {}` (its name still comes from the subclass).
 */
function fixedStatus(status: number, code: ErrorCode) {
  return class extends AppError {
    constructor(message: string, field?: string) {
      super(message, status, code, field);
    }
  };
}

export class InvalidInput extends fixedStatus(400, ErrorCode.InvalidInput) {}
export class Unauthenticated extends fixedStatus(401, ErrorCode.Unauthenticated) {}
export class Forbidden extends fixedStatus(403, ErrorCode.Forbidden) {}
export class NotFound extends fixedStatus(404, ErrorCode.NotFound) {}
export class Conflict extends fixedStatus(409, ErrorCode.Conflict) {}
export class PayloadTooLarge extends fixedStatus(413, ErrorCode.PayloadTooLarge) {}

export class QuotaExceeded extends AppError {
  constructor(message: string, headers: Record<string, string>) {
    super(message, 429, ErrorCode.QuotaExceeded, undefined, headers);
  }
}

export class Unavailable extends fixedStatus(503, ErrorCode.Unavailable) {}
