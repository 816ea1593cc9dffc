// One answer for every route that serves stored bytes (library files and thumbnails, job files,
// transformation and watermark outputs), the way a CDN origin answers:
//   - a strong ETag and Last-Modified; If-None-Match (weak comparison, `*`) gives 304;
//   - `Accept-Ranges: bytes`; one byte range (`bytes=N-M`, `bytes=N-`, `bytes=-N`) gives
//     206 Partial Content with Content-Range; a range that starts past the end gives 416 with
//     `Content-Range: bytes */SIZE`;
//   - several ranges that do not merge into one (`bytes=0-1,5-9`) give the whole file with 200,
//     as RFC 9110 allows (no multipart/byteranges); a malformed Range or another unit is ignored (200);
//   - If-Range with the current ETag (strong comparison) or the exact Last-Modified date lets the
//     range through; any other If-Range (a stale resume) gives the whole file with 200.
// Ranges are parsed by Express's req.range (the range-parser package).
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { NotFound } from '../platform/errors.js';
import { RangeNotSatisfiable, type BlobInfo, type BlobStore } from '../platform/storage/blob-store.js';

export interface StoredBytes {
  info: BlobInfo;
  /** The whole blob: a stream from the store (destroyed when a range is served instead) or bytes in memory. */
  body: Readable | Buffer;
}

/**
 * Answers a GET (or HEAD) with a stored blob, honouring conditional and range headers (see the top
 * of this file). `headers` are sent with every answer but a 416 (Content-Type there overrides the blob's).
 */
export async function sendBlob(req: Request, res: Response, blobs: Pick<BlobStore, 'get'>, stored: StoredBytes, headers: Record<string, string> = {}): Promise<void> {
  const etag = `"${stored.info.etag}"`;
  if (matchesIfNoneMatch(req.get('if-none-match'), etag)) {
    discard(stored.body);
    res.set(baseHeaders(stored.info, headers)).status(304).end();
    return;
  }
  let range: { start: number; end: number } | undefined;
  try {
    range = requestedRange(req, stored.info);
  } catch (error) {
    discard(stored.body);
    throw error;
  }
  let info = stored.info;
  let body = stored.body;
  if (range && Buffer.isBuffer(body)) {
    body = body.subarray(range.start, range.end + 1);
  } else if (range && !Buffer.isBuffer(body)) {
    body.destroy();
    const part = await blobs.get(info.key, range);
    if (part && part.info.etag === info.etag && part.range) {
      body = part.body;
      range = part.range;
    } else {
      // Replaced between the two reads: the range was asked of other bytes, so the new whole answers.
      part?.body.destroy();
      const whole = await blobs.get(info.key);
      if (!whole) throw new NotFound('the file is no longer stored');
      ({ info, body } = whole);
      range = undefined;
    }
  }
  res.set(baseHeaders(info, headers));
  if (range) {
    res.status(206).set({ 'Content-Range': `bytes ${range.start}-${range.end}/${info.size}`, 'Content-Length': String(range.end - range.start + 1) });
  } else {
    res.status(200).set('Content-Length', String(info.size));
  }
  if (Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  // pipeline destroys the blob stream however the response ends, also when the client went away
  // before this point (a 'close' listener added now would never fire, and the file would stay open).
  await pipeline(body, res).catch(() => (body as Readable).destroy());
}

function baseHeaders(info: BlobInfo, headers: Record<string, string>): Record<string, string> {
  return {
    'Content-Type': info.contentType,
    ETag: `"${info.etag}"`,
    'Last-Modified': info.lastModified.toUTCString(),
    'Accept-Ranges': 'bytes',
    ...headers,
  };
}

/** The one byte range to send, undefined for the whole blob; throws RangeNotSatisfiable for a 416. */
function requestedRange(req: Request, info: BlobInfo): { start: number; end: number } | undefined {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || !req.get('range')) return undefined;
  if (!ifRangeHolds(req.get('if-range'), info)) return undefined;
  const ranges = req.range(info.size, { combine: true });
  if (ranges === -1) throw new RangeNotSatisfiable(info.size);
  // -2 (malformed), another unit than bytes, or several ranges: the whole file.
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/** If-Range: an entity tag compared strongly (a weak one never matches), or a date equal to Last-Modified. */
function ifRangeHolds(header: string | undefined, info: BlobInfo): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === `"${info.etag}"`;
  const date = Date.parse(value);
  return !Number.isNaN(date) && Math.floor(date / 1000) === Math.floor(info.lastModified.getTime() / 1000);
}

/** If-None-Match uses the weak comparison: W/"x" matches "x"; * matches anything. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function discard(body: Readable | Buffer): void {
  if (!Buffer.isBuffer(body)) body.destroy();
}
