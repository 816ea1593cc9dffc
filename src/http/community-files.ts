// GET /community/<id>/<public|original>?v=..&sig=..[&exp=..]: community files by signed URL (no API
// key), so an <img src> works; the community service checks the link (and an original's expiry).
// Served inert, like library files: nosniff and a sandboxing CSP; ranges and conditional GETs by send-blob.ts.
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Services } from '../services.js';
import { sendBlob } from './send-blob.js';

export function communityFilesRouter(services: Services): Router {
  const router = createRouter();
  router.get('/community/:id/:variant', async (req: Request, res: Response) => {
    const { item, info, body } = await services.community.openSigned(String(req.params.id), String(req.params.variant), req.query as Record<string, unknown>);
    await sendBlob(req, res, services.blobs, { info, body }, {
      // The public file may sit in shared caches; an original is the buyer's alone.
      'Cache-Control': req.params.variant === 'public' ? 'public, max-age=86400' : 'private, max-age=900',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Content-Disposition': `inline; filename="community-${item.id}"`,
    });
  });
  return router;
}
