// Files people share, by signed URL (no API key), so an <img src> works; the owning service checks
// the link (and an original's expiry):
//   GET /community/<id>/<public|original>?v=..&sig=..[&exp=..]   community items
//   GET /wiki/<photos|featured>/<id>?v=..&sig=..                 wiki photos and subjects' featured images
// Served inert, like library files: nosniff and a sandboxing CSP; ranges and conditional GETs by send-blob.ts.
import type { Request, Response, Router } from 'express';
import { Router as createRouter } from 'express';
import type { Services } from '../platform/service-registry.js';
import { sendBlob } from './send-blob.js';
import { dispositionHeader } from './download-name.js';

/** The public files may sit in shared caches; an original is the buyer's alone. */
const inert = (cache: 'public' | 'private', name: string, contentType: string) => ({
  'Cache-Control': cache === 'public' ? 'public, max-age=86400' : 'private, max-age=900',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'Content-Disposition': dispositionHeader('inline', name, contentType),
});

export function sharedFilesRouter(services: Pick<Services, 'community' | 'wiki' | 'blobs'>): Router {
  const router = createRouter();
  router.get('/community/:id/:variant', async (req: Request, res: Response) => {
    const { item, info, body } = await services.community.openSigned(String(req.params.id), String(req.params.variant), req.query as Record<string, unknown>);
    await sendBlob(req, res, services.blobs, { info, body }, inert(req.params.variant === 'public' ? 'public' : 'private', `community-${item.id}`, info.contentType));
  });
  router.get('/wiki/:kind/:id', async (req: Request, res: Response) => {
    const { info, body } = await services.wiki.openSigned(String(req.params.kind), String(req.params.id), req.query as Record<string, unknown>);
    await sendBlob(req, res, services.blobs, { info, body }, inert('public', `wiki-${String(req.params.kind)}-${Number(req.params.id)}`, info.contentType));
  });
  return router;
}
