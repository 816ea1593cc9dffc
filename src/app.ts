// Builds the whole service from a configuration: the core (database, services, workers), GraphQL,
// the REST shim and the HTTP server. `src/main.ts` starts it; tests build it in memory.
import type { Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { createLogger, type Logger } from './platform/logger.js';
import { writeSecretFile } from './platform/secrets-files.js';
import type { Services } from './services.js';
import type { Database } from './platform/database/database.js';
import { buildCore } from './core.js';
import { attachWebSocketServer, createGraphQLServer, type Yoga } from './graphql/server.js';
import { checkCredentials } from './graphql/context.js';
import { createHttpApp, type RestSurface } from './http/app.js';
import { createAppServer } from './http/server.js';
import { backupHandler } from './http/backup.js';
import { routes } from '../rest-shim/routes.js';
import { createRestRouter, type RestLimits } from '../rest-shim/shim.js';
import type { AnyRoute } from '../rest-shim/route.js';
import { OPERATOR_TIER } from './modules/quota/index.js';
import { loadTelegramRuntime, type TelegramRuntime, type TelegramRuntimeOptions } from './modules/bot/index.js';

export { MIGRATIONS_DIR } from './core.js';
export const INITIAL_HANDLE = 'owner';

export interface App {
  services: Services;
  yoga: Yoga;
  server: Server;
  logger: Logger;
  /** The Telegram bot, when TELEGRAM_BOT_TOKEN is set. */
  telegram: TelegramRuntime | null;
  /** Set on the first start of an empty database: the account created then, with its key. */
  initialAccount: { handle: string; apiKey: string; file: string } | null;
  adminTokenFile?: string;
  start(port?: number, host?: string): Promise<string>;
  stop(): Promise<void>;
}

/** The REST shim over a route table: its router, its paths and its OpenAPI document. */
export function restSurface(yoga: Yoga, table: AnyRoute[], limits: RestLimits): RestSurface {
  return {
    router: createRestRouter(yoga, table, limits),
    routes: table,
    // The OpenAPI builder loads with the first request of /openapi.json.
    buildOpenApiDocument: async (info) => (await import('../rest-shim/openapi.js')).buildOpenApiDocument(table, info) as unknown as Record<string, unknown>,
  };
}

export async function buildApp(
  config: Config,
  options: { logger?: Logger; telegram?: TelegramRuntimeOptions; database?: Promise<Database> } = {},
): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const core = await buildCore(config, logger, options.database);
  const { services } = core;

  let initialAccount: App['initialAccount'] = null;
  const created = await services.accounts.bootstrap(INITIAL_HANDLE, OPERATOR_TIER);
  if (created) {
    const file = join(config.dataDir, 'initial-account.json');
    writeSecretFile(file, `${JSON.stringify({ handle: created.account.handle, api_key: created.apiKey }, null, 2)}\n`);
    initialAccount = { handle: created.account.handle, apiKey: created.apiKey, file };
    logger.info({ handle: created.account.handle, file }, 'created the first account; its key is in the file');
  }

  const yoga = createGraphQLServer(services, config, logger);
  // The Telegram bot runs in API processes (never in `npm run worker`): it polls, or serves the webhook, by TELEGRAM_MODE.
  const telegram = config.telegram ? new (await loadTelegramRuntime())(services, config.telegram, config, logger, options.telegram) : null;
  const server = createAppServer(
    createHttpApp({
      config,
      logger,
      yoga,
      services,
      rest: restSurface(yoga, routes, config),
      telegramWebhook: telegram?.webhook,
      backup: backupHandler({ db: services.db, blobs: services.blobs, adminToken: services.adminToken, dataDir: config.dataDir, logger }),
    }),
  );
  // Idle keep-alive sockets live longer than the clients' and proxies' idle timeouts (60 s is
  // common): Node's 5 s default lets the server close a socket just as a client reuses it, which the
  // client sees as ECONNRESET (or a proxy as a 502). Headers must still arrive within their own timeout.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const closeWebSockets = attachWebSocketServer(server, yoga, config.bodyLimitBytes, (credentials) => checkCredentials(services, credentials), services.keyWatch);

  return {
    services,
    yoga,
    server,
    logger,
    telegram,
    initialAccount,
    adminTokenFile: core.adminTokenFile,
    start: async (port = config.port, host = config.host) => {
      const url = await new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : address.address.includes(':') ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      });
      await core.startBackground();
      await telegram?.start();
      return url;
    },
    stop: async () => {
      await telegram?.stop();
      await closeWebSockets();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await core.close();
    },
  };
}
