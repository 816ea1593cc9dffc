// GET /media/<id>/<original|thumbnail>?v=..&sig=..: library files by signed URL (no API key), so
// an <img src> works; the media service checks the link. Files are served inert: nosniff, a sandboxing CSP, documents as attachments.
// Ranges, If-Range and conditional GETs as every file route: see send-blob.ts.
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Services } from '../platform/service-registry.js';
import { sendBlob } from './send-blob.js';
import { dispositionHeader } from './download-name.js';

export function mediaFilesRouter(services: Pick<Services, 'media' | 'blobs'>): Router {
  const router = createRouter();
  router.get('/media/:id/:variant', async (req: Request, res: Response) => {
    const { media, info, body } = await services.media.openSigned(String(req.params.id), String(req.params.variant), req.query as Record<string, unknown>);
    await sendBlob(req, res, services.blobs, { info, body }, {
      'Cache-Control': 'private, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Content-Disposition': dispositionHeader(media.kind === 'document' ? 'attachment' : 'inline', media.name, info.contentType),
    });
  });
  return router;
}
