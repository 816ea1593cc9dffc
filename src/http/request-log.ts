// One log line per request (method, path without query, status, duration, request id) and the
// request id in the X-Request-Id response header. The id of a well-formed incoming X-Request-Id is
// kept so a proxy's id follows the request. Path segments that carry a secret are blanked: the
// parameters each route declares secret in the route table (a sub-key to revoke, a share token),
// and, on any path, a segment that looks like an API key (a mistyped route, a 404, a 405).
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { match } from 'path-to-regexp';
import { requestScope, type Logger } from '../platform/logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

/** What is logged in place of a secret path segment. */
export const REDACTED = '[redacted]';

/** A segment longer than a key's display prefix (12 characters) that starts like a key. */
const KEY_LIKE = /^(?:mk|sk)_.{10,}/i;

/** A route's path and the parameters in it that carry a secret (the REST route table's rows). */
export interface PathWithSecrets {
  path: string;
  secretParams?: string[];
}

/** The path as it may be logged: declared secret parameters and key-like segments blanked. */
export function pathRedactor(routes: readonly PathWithSecrets[]): (path: string) => string {
  const secret = routes
    .filter((r) => r.secretParams?.length)
    .map((r) => {
      const segments = r.path.split('/');
      const positions = r.secretParams!.map((name) => segments.indexOf(`:${name}`));
      if (positions.some((p) => p < 0)) throw new Error(`route ${r.path} declares a secret parameter it does not have (${r.secretParams!.join(', ')})`);
      return { matches: match(r.path, { decode: false }), positions };
    });
  return (path) => {
    const segments = path.split('/');
    for (const route of secret) {
      if (!route.matches(path)) continue;
      for (const position of route.positions) segments[position] = REDACTED;
      break;
    }
    return segments.map((segment) => (KEY_LIKE.test(segment) ? REDACTED : segment)).join('/');
  };
}

/** Told of each finished request with the time the log measured (the metrics count it from there). */
export type OnRequestDone = (req: Request, res: Response, durationMs: number) => void;

export function requestLog(logger: Logger, redactPath: (path: string) => string = pathRedactor([]), onDone?: OnRequestDone) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      // The path is redacted only for a line that is written (a level below the logger's writes none).
      if (logger.isLevelEnabled(level)) {
        const path = redactPath(req.originalUrl.split('?')[0]!);
        logger[level]({ requestId: req.id, method: req.method, path, status: res.statusCode, durationMs: Math.round(durationMs * 100) / 100, aborted: !res.writableFinished || undefined }, 'request');
      }
      onDone?.(req, res, durationMs);
    };
    res.on('finish', log);
    res.on('close', log);
    requestScope.run({ requestId: req.id }, next);
  };
}
