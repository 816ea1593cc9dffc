// One log line per request (method, path without query, status, duration, request id) and the
// request id in the X-Request-Id response header. The id of a well-formed incoming X-Request-Id is
// kept so a proxy's id follows the request.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { requestScope, type Logger } from '../platform/logger.js';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
  }
}

const INCOMING_ID = /^[A-Za-z0-9._-]{8,64}$/;

export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    const path = req.originalUrl.split('?')[0];
    let logged = false;
    const log = () => {
      if (logged) return;
      logged = true;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const level = res.statusCode >= 500 ? 'error' : 'info';
      logger[level]({ requestId: req.id, method: req.method, path, status: res.statusCode, durationMs: Math.round(durationMs * 100) / 100, aborted: !res.writableFinished || undefined }, 'request');
    };
    res.on('finish', log);
    res.on('close', log);
    requestScope.run({ requestId: req.id }, next);
  };
}
