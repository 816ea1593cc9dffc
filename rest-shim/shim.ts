// The REST shim: each row of the route table becomes an Express handler that authenticates through
// the GraphQL context factory (same keys, scopes and quotas as /graphql), turns the request into
// variables, runs the row's operation through the yoga envelope and answers the documented JSON.
import { Router, type Request, type Response, type NextFunction, type RequestHandler } from 'express';
import multer from 'multer';
import { validate, type DocumentNode, type GraphQLError, type GraphQLSchema } from 'graphql';
import type { Yoga } from '../src/graphql/server.js';
import type { Context, Credentials } from '../src/graphql/context.js';
import { credentialsFromHeaders } from '../src/graphql/context.js';
import { InvalidInput, Unauthenticated } from '../src/platform/errors.js';
import type { AnyRoute, CachedRoute, RouteDefinition, RestInput, StreamRouteDefinition } from './route.js';
import { ADMIN_TOKEN_REQUIRED_MESSAGE, ANY_KEY, MISSING_KEY_MESSAGE, requireKey } from '../src/modules/access/index.js';
import { readRequest, type Source } from './input.js';
import { sendJsonText } from '../src/http/respond.js';
import { AnswerCache } from './answer-cache.js';
import { isRefusal } from '../src/graphql/request-budget.js';
import { refuseUnstorableText } from '../src/platform/validation.js';
import { executeCompiled } from '../src/graphql/compiled-execution.js';

/** What the shim reads of the configuration (src/config.ts's Config is one). */
export interface RestLimits {
  /** Memory for answers of list routes kept to serve again (ANSWER_CACHE_MB; 0: none kept). */
  answerCacheBytes: number;
  /** Largest uploaded file of a multipart route (UPLOAD_MAX_BYTES). */
  uploadMaxBytes: number;
}

export function createRestRouter(yoga: Yoga, table: AnyRoute[], limits: RestLimits): Router {
  const router = Router();
  const { schema } = yoga.getEnveloped({});
  const answers = new AnswerCache(limits.answerCacheBytes);
  // Routes without parameters are also found by their exact method and path, in one lookup instead
  // of Express trying its routes one by one (about 6% of the CPU of an authenticated request to a
  // late row, in a profile).
  const literal = new Map<string, RequestHandler[]>();
  // Rows with a parameter are tried by Express's router one by one (a regular expression each). A
  // request is given a router of only the rows that can match it (rowsByPrefix).
  const mounted: Array<{ route: AnyRoute; handlers: RequestHandler[] }> = [];
  const add = (route: AnyRoute, ...rowHandlers: RequestHandler[]) => {
    // The row's pattern, for the request log and metrics: the literal lookup below leaves no req.route.
    const handlers: RequestHandler[] = [(_req, res, next) => ((res.locals.routePattern = route.path), next()), ...rowHandlers];
    mount(router, route, handlers);
    mounted.push({ route, handlers });
    if (!route.path.includes(':')) literal.set(`${route.method} ${route.path}`, [...(literal.get(`${route.method} ${route.path}`) ?? []), ...handlers]);
  };
  for (const route of bySpecificity(table)) {
    // Mounted rows are served by their own routers (src/http); the table only documents them.
    if (route.kind === 'mounted') continue;
    // A multipart body is read only once its key, scope and quotas checked out.
    if (route.multipart) add(route, judgedBeforeBody(yoga, route), multipartBody(route.multipart.files, limits.uploadMaxBytes));
    if (route.kind === 'stream') {
      add(route, streamHandler(yoga, route));
      continue;
    }
    add(route, restHandler(yoga, route, answers, schema));
  }
  const narrowed = new Map<string, Router>();
  for (const [prefix, rows] of rowsByPrefix(mounted, (row) => row.route)) {
    const only = Router();
    for (const { route, handlers } of rows) mount(only, route, handlers);
    narrowed.set(prefix, only);
  }
  const front = Router();
  front.use((req, res, next) => {
    const handlers = literal.get(`${req.method} ${req.path}`);
    if (!handlers) return (narrowed.get(requestPrefix(req.method, req.path)) ?? router)(req, res, next);
    req.params = {};
    runHandlers(handlers, req, res, next);
  });
  return front;
}

function mount(router: Router, route: AnyRoute, handlers: RequestHandler[]): void {
  router[route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'put' | 'delete'](route.path, ...handlers);
}

/** Segments a prefix holds: '', 'api' and the area ('/api/economy/...'). */
const PREFIX_SEGMENTS = 3;

/**
 * The rows (in the order given) a request can match, by its method and first path segments: those
 * whose method and first segments are its own, and those of its method with a parameter among their
 * first segments. A request whose prefix is none of these keys can match only rows of the second
 * kind, or none: the caller leaves it to the router of all rows. Keys are lower case: Express matches
 * paths case-insensitively.
 */
export function rowsByPrefix<T>(rows: T[], routeOf: (row: T) => { method: string; path: string }): Map<string, T[]> {
  // Each row's key once (undefined: a parameter among its first segments), then each key's rows.
  const keyed = rows.map((row) => {
    const { method, path } = routeOf(row);
    const withParameter = path.split('/', PREFIX_SEGMENTS).some((segment) => /[:*{(]/.test(segment));
    return { row, method, prefix: withParameter ? undefined : requestPrefix(method, path) };
  });
  const byPrefix = new Map<string, T[]>();
  for (const { prefix, method } of keyed) {
    if (prefix === undefined || byPrefix.has(prefix)) continue;
    byPrefix.set(
      prefix,
      keyed.filter((other) => (other.prefix === undefined ? other.method === method : other.prefix === prefix)).map((other) => other.row),
    );
  }
  return byPrefix;
}

/** A request's key in rowsByPrefix's map (a row's key is the same of its own method and path). */
export function requestPrefix(method: string, path: string): string {
  return `${method} ${path.split('/', PREFIX_SEGMENTS).join('/').toLowerCase()}`;
}

/** Runs route handlers in turn, as Express does with a route's: each calls next, or next(error). */
function runHandlers(handlers: RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const next: NextFunction = (error?: unknown) => {
    if (error !== undefined && error !== null) return done(error);
    const handler = handlers[index++];
    if (!handler) return done();
    try {
      void Promise.resolve(handler(req, res, next)).catch(next);
    } catch (thrown) {
      next(thrown);
    }
  };
  next();
}

/**
 * Routes with a literal segment come before routes with a parameter in that place, whatever the
 * table's order: /api/media/list, /api/media/trash and /api/media/folders are never taken for
 * /api/media/{id}.
 */
export function bySpecificity(table: AnyRoute[]): AnyRoute[] {
  const rank = (route: AnyRoute) => route.path.split('/').map((segment) => (segment.startsWith(':') ? '1' : '0')).join('');
  return [...table].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0));
}

type Enveloped = ReturnType<Yoga['getEnveloped']>;
interface Opened {
  enveloped: Enveloped;
  contextValue: Context;
}

/**
 * Authenticates and counts the request through the same context factory GraphQL uses (a multipart
 * request was already judged before its body was read: that context is reused).
 */
async function openContext(yoga: Yoga, route: AnyRoute, req: Request, res: Response) {
  const opened = (res.locals.opened as Opened | undefined) ?? (await authenticateRequest(yoga, route, req, res));
  const { api_key: _bodyKey, ...body } = isPlainObject(req.body) ? (req.body as Source) : {};
  const input: RestInput = { query: req.query as Source, body, params: req.params as Record<string, string>, baseUrl: opened.contextValue.baseUrl, files: uploadedFiles(req) };
  return { ...opened, input };
}

async function authenticateRequest(yoga: Yoga, route: AnyRoute, req: Request, res: Response): Promise<Opened> {
  const credentials = restCredentials(req, isPlainObject(req.body) ? (req.body as Source).api_key : undefined);
  if (route.auth === 'key' && !credentials.apiKey) throw new Unauthenticated(MISSING_KEY_MESSAGE);
  if (route.auth === 'admin' && !credentials.adminToken) {
    throw new Unauthenticated(ADMIN_TOKEN_REQUIRED_MESSAGE);
  }
  const enveloped = yoga.getEnveloped({ req, res, credentials });
  const contextValue = (await enveloped.contextFactory()) as Context;
  res.set(contextValue.quotaHeaders);
  return { enveloped, contextValue };
}

/**
 * A multipart request's key, scope and quotas are judged from its headers before a byte of its
 * body is read (a multipart body cannot carry api_key: that is the JSON body's). A stranger, a
 * sub-key without the scope or an exhausted quota is refused with nothing buffered.
 */
function judgedBeforeBody(yoga: Yoga, route: AnyRoute) {
  return async (req: Request, res: Response, next: NextFunction) => {
    if (!req.is('multipart/form-data')) return next();
    let context: Context | undefined;
    try {
      const opened = await authenticateRequest(yoga, route, req, res);
      context = opened.contextValue;
      if (route.auth === 'key') requireKey(context.actor, route.key ?? ANY_KEY);
      res.locals.opened = opened;
      next();
    } catch (error) {
      await refundIfRefused(context, error);
      next(error);
    }
  };
}

function streamHandler(yoga: Yoga, route: StreamRouteDefinition) {
  return async (req: Request, res: Response, next: NextFunction) => {
    let context: Context | undefined;
    try {
      const opened = await openContext(yoga, route, req, res);
      context = opened.contextValue;
      requireKey(context.actor, route.key ?? ANY_KEY);
      refuseStoredTextProblems(opened.input);
      await route.handle(context, opened.input, req, res);
    } catch (error) {
      await refundIfRefused(context, error);
      next(error);
    }
  };
}

/** A NUL character or an unpaired surrogate anywhere in the input is a 400 naming the field. */
function refuseStoredTextProblems(input: RestInput): void {
  refuseUnstorableText(input.params);
  refuseUnstorableText(input.query);
  refuseUnstorableText(input.body);
}

/** A refused request gives its unit of the sub-key's request budget back (see request-budget.ts). */
async function refundIfRefused(context: Context | undefined, error: unknown): Promise<void> {
  if (context && isRefusal(error)) await context.refundBudget();
}

/**
 * The row's operation, validated against the schema. The shim executes its documents without
 * per-request parsing or validation (they are ours and fixed), so each is validated once, on the
 * row's first request: validating all of them at start cost about a CPU second of every start.
 * test/rest/route-operations.unit.test.ts validates every row's document, so a stale one fails there.
 */
export function checkedOperation(schema: GraphQLSchema, route: RouteDefinition): DocumentNode {
  const document = route.operation as DocumentNode;
  const problems = validate(schema, document);
  if (problems.length > 0) throw new Error(`REST route ${route.method} ${route.path}: its operation is invalid: ${problems[0]!.message}`);
  return executeCompiled(document);
}

function restHandler(yoga: Yoga, route: RouteDefinition, answers: AnswerCache, schema: GraphQLSchema) {
  let document: DocumentNode | undefined;
  return async (req: Request, res: Response, next: NextFunction) => {
    let context: Context | undefined;
    try {
      document ??= checkedOperation(schema, route);
      const { enveloped, contextValue, input } = await openContext(yoga, route, req, res);
      context = contextValue;
      refuseStoredTextProblems(input);
      const request = readRequest(route.request, input);
      // An absent REST field is an absent variable (undefined would reach resolvers as null,
      // and null means "clear this" for fields such as folder_id).
      const variableValues = withoutUndefined(route.variables?.(request) ?? {});
      const place = route.cache ? answers.place(route as CachedRoute, contextValue, variableValues) : undefined;
      const kept = place && answers.get(place);
      if (kept !== undefined) {
        // What the operation's own scope check would say, without running it.
        requireKey(contextValue.actor, route.key ?? ANY_KEY);
        return sendJsonText(res, 200, kept);
      }
      const result = await enveloped.execute({ schema: enveloped.schema, document, variableValues, contextValue });
      if ('errors' in result && result.errors?.length) throw result.data === undefined ? requestError(result.errors[0]!) : result.errors[0];
      const failure = route.failure?.(result.data) ?? null;
      const success = failure === null;
      const body = JSON.stringify(envelope(failure, route.shape(result.data, input)));
      const status = route.successStatus ?? 200;
      if (place && success && status === 200) answers.set(place, body, route.cache!.validUntil?.(result.data) ?? null);
      sendJsonText(res, status, body);
    } catch (error) {
      await refundIfRefused(context, error);
      next(error);
    }
  };
}

/** `success` first, then (for a reported failure) `error`, then the documented fields. */
function envelope(failure: string | null, shaped: Record<string, unknown>): Record<string, unknown> {
  if (failure === null) return { success: true, ...shaped };
  const answer: Record<string, unknown> = { success: false, error: failure, ...shaped };
  // A documented error field of the answer (a failed job's) keeps its place; it is never empty.
  if (typeof answer.error !== 'string' || !answer.error) answer.error = failure;
  return answer;
}

/**
 * An error with no data at all is the request's, not a resolver's: the shim's documents are valid,
 * so it is a variable the route's schemas let through that GraphQL could not coerce. The caller's 400,
 * not a 500 (the route's request schema should have refused it in its words first).
 */
function requestError(error: GraphQLError): Error {
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  return error.originalError || (status && status !== 500) ? error : new InvalidInput(error.message);
}

function restCredentials(req: Request, bodyKey: unknown): Credentials {
  const headers = { get: (name: string) => req.get(name) ?? null };
  const credentials: Credentials = { ...credentialsFromHeaders(headers, String(req.id), `${req.protocol}://${req.get('host')}`), clientAddress: req.ip };
  // Spec "Authentication" 1: the key may come as the JSON body field api_key instead of the header.
  if (!credentials.apiKey && typeof bodyKey === 'string' && bodyKey.trim()) credentials.apiKey = bodyKey.trim();
  return credentials;
}

/**
 * multipart/form-data into memory (bounded by UPLOAD_MAX_BYTES per file); other requests pass
 * through untouched. Text fields land in req.body as strings, files in req.files.
 */
function multipartBody(fileFields: string[], maxBytes: number) {
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: maxBytes, files: fileFields.length, fields: 20, fieldSize: 1024 * 1024 } });
  const parse = upload.fields(fileFields.map((name) => ({ name, maxCount: 1 })));
  // multer's own refusals (sizes, unexpected fields) keep their status; anything else it reports is
  // the body's syntax (busboy: a missing boundary, a truncated or malformed part), the caller's 400.
  const parsed = (next: NextFunction) => (error?: unknown) =>
    next(error && !(error instanceof multer.MulterError) ? new InvalidInput(`malformed multipart body: ${error instanceof Error ? error.message : 'unreadable'}`) : error);
  return (req: Request, res: Response, next: NextFunction) => (req.is('multipart/form-data') ? parse(req, res, parsed(next)) : next());
}

function uploadedFiles(req: Request): Record<string, File> {
  const files = (req.files ?? {}) as Record<string, Express.Multer.File[]>;
  const result: Record<string, File> = {};
  for (const [field, [file]] of Object.entries(files)) {
    if (file) result[field] = new File([new Uint8Array(file.buffer)], file.originalname, { type: file.mimetype });
  }
  return result;
}

function withoutUndefined(variables: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
