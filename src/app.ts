// Builds the whole service from a configuration: database and migrations, services, GraphQL, the
// REST shim and the HTTP server. `src/main.ts` starts it; tests build it in memory.
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.js';
import { openDatabase } from './platform/database/database.js';
import { migrate, readMigrations } from './platform/database/migrate.js';
import { createLogger, type Logger } from './platform/logger.js';
import { createEventBus } from './platform/events.js';
import { resolveAdminToken, writeSecretFile } from './platform/secrets-files.js';
import { createServices, type Services } from './services.js';
import { attachWebSocketServer, createGraphQLServer, type Yoga } from './graphql/server.js';
import { createHttpApp } from './http/app.js';
import { routes } from '../rest-shim/routes.js';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../prisma/migrations', import.meta.url));
export const INITIAL_HANDLE = 'owner';
const QUOTA_SWEEP_INTERVAL_MS = 10 * 60_000;

export interface App {
  services: Services;
  yoga: Yoga;
  server: Server;
  logger: Logger;
  /** Set on the first start of an empty database: the account created then, with its key. */
  initialAccount: { handle: string; apiKey: string; file: string } | null;
  adminTokenFile?: string;
  start(port?: number, host?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function buildApp(config: Config, options: { logger?: Logger } = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  mkdirSync(config.dataDir, { recursive: true });
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: config.inMemoryDatabase ? undefined : join(config.dataDir, 'db'),
  });
  const applied = await migrate(db, readMigrations(MIGRATIONS_DIR));
  if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');

  const admin = resolveAdminToken(config.dataDir, config.adminToken);
  const services = createServices(config, db, createEventBus(), admin.token);

  let initialAccount: App['initialAccount'] = null;
  const created = await services.accounts.bootstrap(INITIAL_HANDLE);
  if (created) {
    const file = join(config.dataDir, 'initial-account.json');
    writeSecretFile(file, `${JSON.stringify({ handle: created.account.handle, api_key: created.apiKey }, null, 2)}\n`);
    initialAccount = { handle: created.account.handle, apiKey: created.apiKey, file };
    logger.info({ handle: created.account.handle, file }, 'created the first account; its key is in the file');
  }

  const yoga = createGraphQLServer(services, logger);
  const server = createServer(createHttpApp({ config, logger, yoga, db, routes }));
  const closeWebSockets = attachWebSocketServer(server, yoga);
  const sweepQuotas = () =>
    services.quota.sweep().catch((error: unknown) => logger.warn({ err: error }, 'sweeping old quota windows failed'));
  const sweeper = setInterval(sweepQuotas, QUOTA_SWEEP_INTERVAL_MS).unref();

  return {
    services,
    yoga,
    server,
    logger,
    initialAccount,
    adminTokenFile: admin.file,
    start: (port = config.port, host = config.host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const address = server.address() as AddressInfo;
          const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : address.address.includes(':') ? `[${address.address}]` : address.address;
          resolve(`http://${shown}:${address.port}`);
        });
      }),
    stop: async () => {
      clearInterval(sweeper);
      await closeWebSockets();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await db.close();
    },
  };
}
