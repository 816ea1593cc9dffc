// GET /media/<id>/<original|thumbnail>?v=..&sig=..: library files by signed URL (no API key), so
// an <img src> works; the media service checks the link. Files are served inert: nosniff, a sandboxing CSP, documents as attachments.
import { pipeline } from 'node:stream/promises';
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Services } from '../services.js';

export function mediaFilesRouter(services: Services): Router {
  const router = createRouter();
  router.get('/media/:id/:variant', async (req: Request, res: Response) => {
    const { media, info, body } = await services.media.openSigned(String(req.params.id), String(req.params.variant), req.query as Record<string, unknown>);
    const etag = `"${info.etag}"`;
    res.set({
      'Content-Type': info.contentType,
      'Content-Length': String(info.size),
      ETag: etag,
      'Cache-Control': 'private, max-age=86400',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      'Content-Disposition': `${media.kind === 'document' ? 'attachment' : 'inline'}; filename="${media.name.replace(/[^\w .-]/g, '_')}"`,
    });
    if (req.get('if-none-match') === etag) {
      body.destroy();
      res.status(304).end();
      return;
    }
    // pipeline closes the file when the client goes away at any moment (also before piping starts).
    await pipeline(body, res).catch(() => body.destroy());
  });
  return router;
}
