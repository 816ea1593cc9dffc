// The Express application: request log, health check, JSON body parsing with a size limit, the REST
// shim, GraphQL, and JSON answers for unknown routes and every error.
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import cors from 'cors';
import { isGraphQLError } from '../graphql/errors.js';
import { match } from 'path-to-regexp';
import type { Logger } from '../platform/logger.js';
import type { Services } from '../platform/service-registry.js';
import { AppError } from '../platform/errors.js';
import { jsonNestsTooDeep, tooDeeplyNested } from '../platform/validation.js';
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from '../platform/database/unavailable.js';
import { GRAPHQL_PATH, type Yoga } from '../graphql/server.js';
import { checkAdminToken, checkCredentials, credentialsFromHeaders } from '../graphql/context.js';
import { createMetrics } from './metrics.js';
import { readyzHandler } from './readiness.js';
import { ADMIN_TOKEN_REQUIRED_MESSAGE } from '../modules/access/index.js';
import type { OpenApiInfo } from './docs.js';
import { pathRedactor, requestLog } from './request-log.js';
import { compressResponses } from './compression.js';
import { BACKUP_PATH } from './backup.js';
import { mediaFilesRouter } from './media-files.js';
import { sharedFilesRouter } from './shared-files.js';
import { galleryRouter } from './gallery.js';
import { signupRouter } from './signup.js';
import type { SignupConfig } from '../modules/accounts/accounts.settings.js';
import { transformRouter } from './transform.js';
import { docsRouter } from './docs.js';
import { sendError, sendJson } from './respond.js';
import { TELEGRAM_WEBHOOK_PATH } from '../modules/bot/index.js';

/** What the HTTP application reads of the configuration (src/config.ts's Config is one). */
export interface HttpAppSettings {
  trustProxy: boolean;
  publicBaseUrl?: string;
  bodyLimit: string;
  uploadMaxBytes: number;
  graphql: { corsOrigins: '*' | string[] };
  signup: SignupConfig;
}

/** The services the routers here use: the health check's database, the key check, the file and gallery routes. */
export type HttpServices = Pick<
  Services,
  'db' | 'queue' | 'generation' | 'adminToken' | 'auth' | 'accounts' | 'media' | 'blobs' | 'community' | 'wiki' | 'transforms' | 'watermarks' | 'gallery' | 'collections' | 'signer' | 'logger' | 'quota'
>;

export interface HttpAppOptions {
  config: HttpAppSettings;
  logger: Logger;
  yoga: Yoga;
  services: HttpServices;
  /** The REST shim, built by the composition root (src/app.ts): src/ never imports rest-shim/ itself. */
  rest: RestSurface;
  /** POST /telegram/webhook when the Telegram bot runs here (src/modules/bot); 404 otherwise. */
  telegramWebhook?: (req: Request, res: Response) => Promise<void>;
  /** GET /api/admin/backup (src/http/backup.ts); 404 when not given. */
  backup?: (req: Request, res: Response) => Promise<void>;
}

export interface RestSurface {
  router: Router;
  /** Every documented method and path (405 with Allow for a known path and another method). */
  routes: ReadonlyArray<{ method: string; path: string; secretParams?: string[] }>;
  buildOpenApiDocument: (info: OpenApiInfo) => Promise<Record<string, unknown>>;
}

export function createHttpApp({ config, logger, yoga, services, rest, telegramWebhook, backup }: HttpAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  const metrics = createMetrics(services);
  app.use(requestLog(logger, pathRedactor(rest.routes), metrics.observeRequest));
  // JSON, HTML, JS and CSS compressed when asked for; blob files, ranges and SSE never.
  app.use(compressResponses());

  app.get('/healthz', async (_req, res) => {
    try {
      await services.db.query('SELECT 1');
      sendJson(res, 200, { success: true, status: 'ok' });
    } catch {
      sendJson(res, 503, { success: false, error: 'database unavailable' });
    }
  });

  // Readiness (GET /readyz): database, queue and blob store answer; /healthz above stays the liveness probe.
  app.get('/readyz', readyzHandler(services));

  // Prometheus metrics, for the operator: the admin token as on the admin routes (401 without it).
  app.get('/metrics', async (req, res) => {
    const presented = credentialsFromHeaders({ get: (name) => req.get(name) ?? null }, req.id).adminToken;
    if (presented === undefined) return sendError(res, 401, ADMIN_TOKEN_REQUIRED_MESSAGE);
    if (!checkAdminToken(presented, services.adminToken)) return sendError(res, 401, 'invalid admin token');
    res.set('Content-Type', metrics.registry.contentType);
    res.send(await metrics.registry.metrics());
  });

  // Browser front ends on other origins (CORS_ORIGINS) reach REST as they reach /graphql, whose
  // answers yoga sends itself: never with credentials, since keys travel in a header.
  const restCors = cors({
    origin: config.graphql.corsOrigins,
    credentials: false,
    allowedHeaders: ['Content-Type', 'X-API-Key', 'X-Admin-Token', 'Authorization', 'X-Request-Id', 'If-None-Match', 'Range', 'If-Range'],
    exposedHeaders: ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'ETag', 'Content-Disposition', 'Content-Range', 'Accept-Ranges'],
    maxAge: 600,
  });
  app.use((req, res, next) => (req.path === GRAPHQL_PATH ? next() : restCors(req, res, next)));

  // GET /openapi.json and the /docs page (no key).
  app.use(docsRouter({ buildDocument: rest.buildOpenApiDocument, publicBaseUrl: config.publicBaseUrl }));

  // Nesting deeper than MAX_NESTING_DEPTH is refused from the raw text, before JSON.parse and
  // everything after it (zod, GraphQL's variable coercion, the text checks) would walk it.
  app.use(express.json({ limit: config.bodyLimit, type: ['application/json', 'application/*+json'], verify: refuseDeepJson }));
  app.post(TELEGRAM_WEBHOOK_PATH, telegramWebhook ?? ((_req, res) => void res.status(404).json({ success: false, error: 'the Telegram bot is off here (TELEGRAM_BOT_TOKEN is unset)' })));
  if (backup) app.get(BACKUP_PATH, backup);
  app.use(rest.router);
  app.post(GRAPHQL_PATH, credentialsBeforeMultipart(services));
  app.all(GRAPHQL_PATH, (req, res) => yoga(req, res));
  app.use(mediaFilesRouter(services));
  app.use(sharedFilesRouter(services));
  // Public HTML page of a shared collection (its own urlencoded parser for the password form).
  app.use(galleryRouter(services));
  app.use(signupRouter(services, { ...config.signup, publicBaseUrl: config.publicBaseUrl }));
  app.use(transformRouter(services));

  const matchers = rest.routes.map((r) => ({ method: r.method, matches: match(r.path) }));
  app.use((req: Request, res: Response) => {
    const allowed = matchers.filter((m) => m.matches(req.path)).map((m) => m.method);
    if (allowed.length > 0) {
      res.set('Allow', [...new Set(allowed)].join(', '));
      return sendError(res, 405, `method ${req.method} is not allowed on ${req.path}; use ${[...new Set(allowed)].join(' or ')}`);
    }
    sendError(res, 404, `no such endpoint: ${req.method} ${req.path}`);
  });

  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const answer = errorAnswer(error, config.bodyLimit, config.uploadMaxBytes);
    if (answer.status === 503) logger.warn({ err: error, requestId: req.id }, 'request failed: a dependency is unavailable');
    else if (answer.status >= 500) logger.error({ err: error, requestId: req.id }, 'request failed');
    if (res.headersSent) return res.end();
    sendError(res, answer.status, answer.message, answer.headers);
  });
  return app;
}

/** express.json's verify hook: a body nested too deep is a 400 saying the limit (body-parser keeps the error's status). */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer, encoding: string): void {
  if (jsonNestsTooDeep(/^utf-?8$/i.test(encoding) ? body.toString('latin1') : decodeOrLatin1(body, encoding))) throw tooDeeplyNested('request body');
}

/** UTF-16 and the like, decoded; a charset TextDecoder lacks (UTF-7, UTF-32) is read byte by byte, which still sees its brackets. */
function decodeOrLatin1(body: Buffer, encoding: string): string {
  try {
    return new TextDecoder(encoding).decode(body);
  } catch {
    return body.toString('latin1');
  }
}

/**
 * A GraphQL multipart request (file uploads) is read by yoga before its operation runs, so its key
 * (or admin token), sent in headers, is checked first: a stranger gets 401 with nothing of the body
 * read. The operation's scope and the quotas are judged as for any request once the body is in.
 */
function credentialsBeforeMultipart(services: Pick<Services, 'adminToken' | 'auth'>) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    try {
      await checkCredentials(services, credentialsFromHeaders({ get: (name) => req.get(name) ?? null }, String(req.id)));
      next();
    } catch (error) {
      next(error);
    }
  };
}

interface ErrorAnswer {
  status: number;
  message: string;
  headers?: Record<string, string>;
}

/** Maps anything thrown while handling a request to a status and a message fit for the caller. */
function errorAnswer(error: unknown, bodyLimit: string, uploadMaxBytes: number): ErrorAnswer {
  if (error instanceof AppError) return { status: error.status, message: error.message, headers: error.headers };
  if (isGraphQLError(error)) {
    const original = error.originalError;
    if (original instanceof AppError) return { status: original.status, message: original.message, headers: original.headers };
    const http = error.extensions?.http as { status?: number; headers?: Record<string, string> } | undefined;
    return { status: http?.status ?? 500, message: error.message, headers: http?.headers };
  }
  const bodyError = error as { type?: string; status?: number; message?: string; code?: string; field?: string; name?: string };
  if (bodyError?.name === 'MulterError') {
    if (bodyError.code === 'LIMIT_FILE_SIZE') return { status: 413, message: `${bodyError.field ?? 'file'}: larger than the upload limit of ${uploadMaxBytes} bytes` };
    if (bodyError.code === 'LIMIT_UNEXPECTED_FILE') return { status: 400, message: `${bodyError.field}: unexpected file field (or more than one file in it)` };
    return { status: 400, message: `malformed multipart body: ${bodyError.message}` };
  }
  if (bodyError?.type === 'entity.parse.failed') return { status: 400, message: 'malformed JSON in the request body' };
  // Express's router cannot percent-decode a path segment ("Failed to decode param '%FF'").
  const undecodable = error instanceof URIError ? /^Failed to decode param '(.*)'$/.exec(error.message) : null;
  if (undecodable) return { status: 400, message: `path: '${undecodable[1]}' is not percent-encoded UTF-8` };
  if (bodyError?.type === 'entity.too.large') return { status: 413, message: `request body is larger than the limit of ${bodyLimit}` };
  if (typeof bodyError?.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
    return { status: bodyError.status, message: bodyError.message ?? 'bad request' };
  }
  if (isDatabaseUnavailable(error)) return { status: 503, message: DATABASE_UNAVAILABLE_MESSAGE, headers: { 'Retry-After': '5' } };
  return { status: 500, message: 'internal server error; retry, and quote the X-Request-Id header when reporting it' };
}
