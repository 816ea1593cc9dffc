// Public, signed GET routes (no API key; the signature is the capability):
//   /media/<id>/t/<width>x<quality>.<format>?v=..&sig=..   transformation endpoint (optimize URLs)
//   /watermarks/<accountId>/<sha256>.<ext>?sig=..          watermark results
// Both answers are immutable (the URL changes whenever the bytes would): a strong ETag (the content
// hash from the blob store), `Cache-Control: public, max-age=31536000, immutable`, 304 on a
// matching If-None-Match; byte ranges and If-Range as every file route (send-blob.ts), a freshly
// rendered variant's too. The services check the signatures (a missing or wrong one is a 403 JSON
// answer); this router only streams.
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Services } from '../platform/service-registry.js';
import { sendBlob, type StoredBytes } from './send-blob.js';
import { dispositionHeader } from './download-name.js';

export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function transformRouter(services: Pick<Services, 'transforms' | 'watermarks' | 'blobs'>): Router {
  const router = createRouter();

  router.get('/media/:id/t/:variant', async (req: Request, res: Response) => {
    const { id, variant } = req.params as { id: string; variant: string };
    const opened = await services.transforms.openSigned(id, variant, req.query as Record<string, unknown>);
    await sendImmutable(req, res, services, opened, {
      'X-Transform-Cache': opened.cache,
      'Content-Disposition': dispositionHeader('inline', `media-${id}-${variant}`, opened.info.contentType),
    });
  });

  router.get('/watermarks/:account/:file', async (req: Request, res: Response) => {
    const { account, file } = req.params as { account: string; file: string };
    const opened = await services.watermarks.openSigned(account, file, req.query as Record<string, unknown>);
    await sendImmutable(req, res, services, opened, { 'Content-Disposition': dispositionHeader('inline', 'watermarked', opened.info.contentType) });
  });

  return router;
}

function sendImmutable(req: Request, res: Response, services: Pick<Services, 'blobs'>, stored: StoredBytes, headers: Record<string, string>): Promise<void> {
  return sendBlob(req, res, services.blobs, stored, {
    'Cache-Control': IMMUTABLE,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
    ...headers,
  });
}
