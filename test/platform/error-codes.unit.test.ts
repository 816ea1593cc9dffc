// The table of error codes (src/platform/errors.ts ErrorCode): the codes on the wire are stable, so
// the list is pinned here; each code appears once, and the general error classes carry theirs.
import { describe, expect, it } from 'vitest';
import { Conflict, ErrorCode, Forbidden, InvalidInput, NotFound, PayloadTooLarge, QuotaExceeded, Unauthenticated, Unavailable } from '../../src/platform/errors.js';

describe('ErrorCode', () => {
  it('holds the codes the service has always answered with, each once', () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(
      [
        'CONFLICT', 'CRAWL_FAILED', 'CRAWL_PROCESS_EXITED', 'CRAWL_REQUEST_FAILED', 'EXPORT_FAILED', 'FETCH_FAILED', 'FETCH_REFUSED', 'FORBIDDEN',
        'IMAGE_REJECTED', 'INSUFFICIENT_COINS', 'INSUFFICIENT_CREDITS', 'INTERNAL', 'INTERNAL_SERVER_ERROR', 'INVALID_INPUT', 'JOB_GONE', 'JOB_STOPPED',
        'NOT_FOUND', 'NOT_HTML', 'NO_FEATURED_IMAGE', 'PAGE_UNAVAILABLE', 'PAYLOAD_TOO_LARGE', 'PIPELINE_DEADLINE', 'PROVIDER_FAILED', 'QUOTA_EXCEEDED',
        'RANGE_NOT_SATISFIABLE', 'ROBOTS_DISALLOWED', 'SCRAPE_FAILED', 'SKIPPED', 'STYLE_LOCKED', 'UNAUTHENTICATED', 'UNAVAILABLE', 'UNREADABLE_IMAGE',
        'UNRESOLVED_REFERENCE',
      ].sort(),
    );
  });

  it('is what the general error classes carry', () => {
    expect([new InvalidInput('x'), new Unauthenticated('x'), new Forbidden('x'), new NotFound('x'), new Conflict('x'), new PayloadTooLarge('x'), new QuotaExceeded('x', {}), new Unavailable('x')].map((e) => [e.status, e.code])).toEqual([
      [400, 'INVALID_INPUT'],
      [401, 'UNAUTHENTICATED'],
      [403, 'FORBIDDEN'],
      [404, 'NOT_FOUND'],
      [409, 'CONFLICT'],
      [413, 'PAYLOAD_TOO_LARGE'],
      [429, 'QUOTA_EXCEEDED'],
      [503, 'UNAVAILABLE'],
    ]);
  });
});
