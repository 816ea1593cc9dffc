// `npm run worker`: job workers without the HTTP API, for running on other machines next to API
// processes (set the same DATABASE_URL, REDIS_URL and storage settings).
import { loadConfig } from './config.js';
import { createLogger } from './platform/logger.js';
import { buildCore } from './core.js';
import { exitOnStartupError } from './platform/database/startup.js';

const config = loadConfig();
if (!config.databaseUrl || !config.redisUrl) {
  console.error('npm run worker needs DATABASE_URL (PostgreSQL) and REDIS_URL: workers on other machines share the database and the queue with the API');
  process.exit(1);
}
const logger = createLogger(config.logLevel);
const core = await buildCore(config, logger).catch(exitOnStartupError);
await core.startBackground({ workers: true });
logger.info({ concurrency: config.jobs.concurrency, queue: core.services.queue.kind }, 'worker started');

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'worker stopping');
    core.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'error while stopping');
        process.exit(1);
      },
    );
  });
}
