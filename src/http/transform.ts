// Public, signed GET routes (no API key; the signature is the capability):
//   /media/<id>/t/<width>x<quality>.<format>?v=..&sig=..   transformation endpoint (optimize URLs)
//   /watermarks/<accountId>/<sha256>.<ext>?sig=..          watermark results
// Both answers are immutable (the URL changes whenever the bytes would): a strong ETag (the content
// hash from the blob store), `Cache-Control: public, max-age=31536000, immutable`, 304 on a
// matching If-None-Match. The services check the signatures (a missing or wrong one is a 403 JSON
// answer); this router only streams.
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Services } from '../services.js';
import type { BlobInfo } from '../platform/storage/blob-store.js';

export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function transformRouter(services: Services): Router {
  const router = createRouter();

  router.get('/media/:id/t/:variant', async (req: Request, res: Response) => {
    const { id, variant } = req.params as { id: string; variant: string };
    const opened = await services.transforms.openSigned(id, variant, req.query as Record<string, unknown>);
    sendImmutable(req, res, opened.info, opened.body, {
      'X-Transform-Cache': opened.cache,
      'Content-Disposition': `inline; filename="media-${id}-${variant}"`,
    });
  });

  router.get('/watermarks/:account/:file', async (req: Request, res: Response) => {
    const { account, file } = req.params as { account: string; file: string };
    const opened = await services.watermarks.openSigned(account, file, req.query as Record<string, unknown>);
    sendImmutable(req, res, opened.info, opened.body, { 'Content-Disposition': `inline; filename="watermarked.${file.split('.').pop()}"` });
  });

  return router;
}

function sendImmutable(req: Request, res: Response, info: BlobInfo, body: Readable | Buffer, headers: Record<string, string>): void {
  const etag = `"${info.etag}"`;
  res.set({
    'Content-Type': info.contentType,
    ETag: etag,
    'Cache-Control': IMMUTABLE,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    ...headers,
  });
  if (matchesIfNoneMatch(req.get('if-none-match'), etag)) {
    if (!Buffer.isBuffer(body)) body.destroy();
    res.status(304).end();
    return;
  }
  res.status(200).set('Content-Length', String(info.size));
  if (Buffer.isBuffer(body)) {
    res.end(body);
    return;
  }
  // pipeline destroys the file stream however the response ends, also when the client went away
  // before this point (a 'close' listener added now would never fire, and the file would stay open).
  pipeline(body, res).catch(() => undefined);
}

/** If-None-Match uses the weak comparison: W/"x" matches "x"; * matches anything. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((candidate) => {
    const tag = candidate.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}
