// The GraphQL server: yoga over HTTP (with GraphiQL outside production) and graphql-ws over the same
// path, both running operations through the same envelope (context, auth, quotas, hardening).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { createFetch } from '@whatwg-node/fetch';
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError } from 'graphql';
import { schema } from './schema.js';
import { createContext, credentialsFromHeaders, type Context, type Credentials, type SiteAddress } from './context.js';
import { makeMaskError, toGraphQLError } from './errors.js';
import { useRequestBudget } from './request-budget.js';
import { useStorableText } from './storable-text.js';
import { useCompiledExecution } from './compiled-execution.js';
import { refuseDeepOperation, useNestingLimit } from './nesting-limit.js';
import { useProductionSecrecy } from './production.js';
import { useSubscriptionKeyWatch } from './key-watch.js';
import type { Actor, KeyWatch } from '../modules/accounts/index.js';
import { AppError } from '../platform/errors.js';
import type { Services } from '../platform/service-registry.js';
import type { Logger } from '../platform/logger.js';
import { randomUUID } from 'node:crypto';

export interface ServerContext {
  req?: IncomingMessage & { id?: unknown };
  res?: ServerResponse;
  /** Set by the REST shim and the WebSocket server, which read credentials their own way. */
  credentials?: Credentials;
  /** Set by the WebSocket server, which watches the socket's key itself (key-watch.ts). */
  watchedBySocket?: boolean;
}

export type Yoga = YogaServerInstance<ServerContext, Context>;

export const GRAPHQL_PATH = '/graphql';

/** What GraphiQL opens with: a query that runs once the key is in the Headers pane. */
export const GRAPHIQL_WELCOME = `# Image service GraphQL. Put your API key in the Headers pane below:
#   { "X-API-Key": "mk_..." }
# The first start saved the operator's key in data/initial-account.json.
# Press the run button (or Ctrl-Enter); the Docs button lists every type and field.
query Welcome {
  viewer {
    handle
    tier
    jobs(first: 5) {
      totalCount
      edges { node { databaseId kind state assetsStored } }
    }
  }
}
`;

/** What the GraphQL server reads of the configuration (src/config.ts's Config is one). */
export interface GraphQLServerSettings extends SiteAddress {
  env: 'development' | 'production' | 'test';
  /** GraphQL multipart uploads get the same size limit as REST uploads. */
  uploadMaxBytes: number;
  graphql: { maxDepth: number; maxAliases: number; maxCost: number; corsOrigins: '*' | string[] };
}

export function createGraphQLServer(services: Services, config: GraphQLServerSettings, logger: Logger): Yoga {
  const production = config.env === 'production';
  return createYoga<ServerContext, Context>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    graphiql: production
      ? false
      : {
          subscriptionsProtocol: 'WS',
          title: 'Image service GraphQL',
          defaultQuery: GRAPHIQL_WELCOME,
          // The Headers pane opens, empty: a placeholder key there would be sent (and refused, 401)
          // with every query, the public ones too. The welcome query's comment says what to put in it.
          defaultEditorToolsVisibility: 'headers',
        },
    // GraphiQL bundled into the page: the default one loads its scripts from a CDN, which offline
    // machines (and privacy-minded ones) cannot reach. Loaded on the first page view: the bundle
    // holds about 35 MB in memory, which production processes and workers never need.
    renderGraphiQL: async (options) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(options),
    landingPage: false,
    // Keys travel in a header, never in cookies: browsers get no credentials mode, so a page on
    // another origin cannot ride on anything ambient (yoga's default reflects any origin with
    // credentials allowed).
    cors: { origin: config.graphql.corsOrigins, credentials: false, allowedHeaders: ['Content-Type', 'X-API-Key', 'X-Admin-Token', 'Authorization', 'X-Request-Id'], maxAge: 600 },
    batching: false,
    // GraphQL multipart uploads get the same size limit as REST uploads (the default is none).
    fetchAPI: createFetch({ formDataLimits: { fileSize: config.uploadMaxBytes, files: 5, fieldSize: 1024 * 1024, fields: 20 } }),
    logging: false,
    maskedErrors: { maskError: makeMaskError(logger) },
    context: async (initial) => {
      const credentials = initial.credentials ?? {
        ...credentialsFromHeaders(initial.request.headers, String(initial.req?.id ?? randomUUID()), requestOrigin(initial)),
        // Express's req.ip honours TRUST_PROXY; without Express, the socket's peer.
        clientAddress: (initial.req as { ip?: string } | undefined)?.ip ?? initial.req?.socket?.remoteAddress,
      };
      try {
        const context = await createContext(services, credentials, config);
        for (const [name, value] of Object.entries(context.quotaHeaders)) initial.res?.setHeader(name, value);
        return context;
      } catch (error) {
        throw error instanceof AppError ? toGraphQLError(error) : error;
      }
    },
    plugins: [
      useNestingLimit(),
      useRequestBudget(),
      useSubscriptionKeyWatch(),
      useStorableText(),
      ...(production ? [useProductionSecrecy()] : []),
      EnvelopArmorPlugin({
        maxDepth: { n: config.graphql.maxDepth, ignoreIntrospection: true },
        maxAliases: { n: config.graphql.maxAliases },
        costLimit: { maxCost: config.graphql.maxCost },
        maxTokens: { n: 2000 },
        maxDirectives: { n: 20 },
        blockFieldSuggestion: { enabled: production },
      }),
      // Last, so its executor is the one run: the REST shim's fixed documents, compiled once.
      useCompiledExecution(),
    ],
  });
}

/** What a socket's connection_init must show, judged without counting a request (context.ts): the key's actor, or null for the admin token alone. */
type ConnectionCheck = (credentials: Credentials) => Promise<Actor | null>;

/** Time a new socket has to send connection_init with its key; then it is closed (4408). */
export const CONNECTION_INIT_TIMEOUT_MS = 3_000;

/**
 * graphql-ws on the GraphQL path; the API key travels in connectionParams (`X-API-Key` or `apiKey`).
 * connection_init is authenticated: without a valid key (or admin token) the socket is closed with
 * 4401 (4403 for a suspended account) and the HTTP message as reason, and a socket that does not
 * send it within CONNECTION_INIT_TIMEOUT_MS is closed too. Each operation is authenticated and
 * counted again when it starts, and the socket's key is watched while it is open (key-watch.ts):
 * once the key is revoked, rotated, expired or its account suspended, the socket is closed with
 * 4401 or 4403 and the reason a request would be told, which ends its subscriptions.
 */
export function attachWebSocketServer(httpServer: Server, yoga: Yoga, maxPayloadBytes: number, checkConnection: ConnectionCheck, keyWatch: KeyWatch): () => Promise<void> {
  // A message larger than BODY_LIMIT closes the socket (1009) before it is buffered whole; the
  // library's default allows 100 MiB per message, before any key is checked.
  const wsServer = new WebSocketServer({ server: httpServer, path: GRAPHQL_PATH, maxPayload: maxPayloadBytes });
  // The envelope's own execute/subscribe travel in rootValue from onSubscribe to here.
  type Run = (args: unknown) => ReturnType<Yoga['getEnveloped']>['execute'] extends (...a: never[]) => infer R ? R : never;
  type Root = { execute: Run; subscribe: Run };
  // graphql-ws closes a refused connection with a bare 4403; the reason says why, as HTTP would.
  const refuse = (ctx: { extra: { socket: { close(code: number, reason: string): void } } }, error: AppError) =>
    ctx.extra.socket.close(error.status === 401 ? 4401 : 4403, closeReason(error.message));
  const unwatch = new WeakMap<object, () => void>();
  // graphql-ws calls onClose at once when the socket closes, also while onConnect still awaits the
  // key's judgement: a watch set after that would never be removed.
  const closed = new WeakSet<object>();
  const disposable = useServer(
    {
      connectionInitWaitTimeout: CONNECTION_INIT_TIMEOUT_MS,
      onConnect: async (ctx) => {
        try {
          const actor = await checkConnection(connectionCredentials(ctx));
          if (actor && !closed.has(ctx)) unwatch.set(ctx, keyWatch.watch(actor, (error) => refuse(ctx, error)));
          return true;
        } catch (error) {
          if (!(error instanceof AppError) || (error.status !== 401 && error.status !== 403)) throw error;
          refuse(ctx, error);
          return false;
        }
      },
      onClose: (ctx) => {
        closed.add(ctx);
        unwatch.get(ctx)?.();
        unwatch.delete(ctx);
      },
      execute: (args) => (args.rootValue as Root).execute(args) as never,
      subscribe: (args) => (args.rootValue as Root).subscribe(args) as never,
      onSubscribe: async (ctx, _id, payload) => {
        // The message is parsed (V8's JSON.parse does not recurse); nothing has walked it yet.
        const tooDeep = refuseDeepOperation(payload);
        if (tooDeep) return [tooDeep];
        const enveloped = yoga.getEnveloped({ req: ctx.extra.request, credentials: connectionCredentials(ctx), params: payload, watchedBySocket: true });
        let document;
        try {
          document = enveloped.parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const errors = enveloped.validate(enveloped.schema, document);
        if (errors.length > 0) return errors;
        let contextValue: Context;
        try {
          contextValue = await enveloped.contextFactory();
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        return {
          schema: enveloped.schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue,
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
      },
    },
    wsServer,
  );
  return async () => {
    await disposable.dispose();
    await new Promise<void>((resolve) => wsServer.close(() => resolve()));
  };
}

type SocketContext = { connectionParams?: Readonly<Record<string, unknown>>; extra: { request: IncomingMessage } };

function connectionCredentials(ctx: SocketContext): Credentials {
  const params = ctx.connectionParams ?? {};
  return {
    apiKey: stringParam(params['X-API-Key'] ?? params['x-api-key'] ?? params.apiKey),
    adminToken: stringParam(params['X-Admin-Token'] ?? params.adminToken),
    requestId: randomUUID(),
    origin: ctx.extra.request.headers.host ? `http://${ctx.extra.request.headers.host}` : undefined,
    // The socket's peer: X-Forwarded-For is not read on WebSockets.
    clientAddress: ctx.extra.request.socket.remoteAddress,
  };
}

/** A close frame's reason is at most 123 bytes. */
function closeReason(message: string): string {
  const bytes = Buffer.from(message);
  return bytes.length <= 123 ? message : `${bytes.subarray(0, 120).toString().replace(/\uFFFD$/, '')}...`;
}

/** Express has already applied TRUST_PROXY to protocol and host. */
function requestOrigin(initial: ServerContext & { request: Request }): string {
  const req = initial.req as (IncomingMessage & { protocol?: string; get?: (name: string) => string | undefined }) | undefined;
  if (req?.protocol && req.get) return `${req.protocol}://${req.get('host')}`;
  return new URL(initial.request.url).origin;
}

function stringParam(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}
