// Response compression (gzip, brotli or deflate, as the client's Accept-Encoding asks) for what
// compresses well and is sent whole: JSON (REST answers, GraphQL results, /openapi.json), HTML
// (GraphiQL, the gallery page), JavaScript and CSS. Never for what is compressed already or
// streamed: files from the blob store (job files with their Range/206 answers, ZIP downloads,
// library files, transformations, watermarks), GraphQL subscriptions over SSE
// (text/event-stream) and incremental delivery (multipart/mixed), which compression would buffer.
import compression from 'compression';
import type { Request, RequestHandler, Response } from 'express';

/** Content types worth compressing: JSON (and `+json`), HTML, JavaScript, CSS. */
const COMPRESSIBLE_TYPE = /^\s*(?:application\/(?:[\w.-]+\+)?json|text\/html|text\/css|(?:text|application)\/(?:x-)?javascript)\s*(?:;|$)/i;

/** Routers that stream bytes from the blob store (src/http/*, the shim's stream routes). */
const BLOB_PATH = /^\/(?:files|download|media|watermarks)\//;

export function shouldCompress(req: Request, res: Response): boolean {
  if (BLOB_PATH.test(req.path)) return false;
  if (res.statusCode === 206 || res.getHeader('Content-Range') !== undefined) return false;
  const type = res.getHeader('Content-Type');
  return typeof type === 'string' && COMPRESSIBLE_TYPE.test(type);
}

/**
 * Answers under 1 KB go as they are: compressing them saves nothing worth the CPU. A request that
 * accepts no encoding skips the middleware altogether: it wraps every response's writes, which
 * measured 10% of the CPU of a small authenticated answer (bench/hot-path.bench.ts).
 */
export function compressResponses(): RequestHandler {
  const compress = compression({ filter: shouldCompress, threshold: 1024 });
  return (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
}
