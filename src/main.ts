// `npm start`: the whole service in one process (or API_PROCESSES of them: src/api-processes.ts).
import { loadConfig } from './config.js';
import { createLogger } from './platform/logger.js';
import { exitOnStartupError, openMigratedDatabase } from './platform/database/startup.js';
import { servesHere, superviseApiProcesses } from './api-processes.js';

const config = loadConfig();
const logger = createLogger(config.logLevel);
if (servesHere(config)) await serve();
else superviseApiProcesses(config, logger);

async function serve(): Promise<void> {
  // The database opens (PGlite's WebAssembly compiles off the main thread, its files are read) while
  // the service's other modules load: they are imported only after this has begun.
  const database = openMigratedDatabase(config, logger);
  database.catch(() => {}); // its error is thrown where buildApp awaits it
  const { buildApp } = await import('./app.js');
  const app = await buildApp(config, { logger, database }).catch(exitOnStartupError);
  const url = await app.start();
  app.logger.info({ url, graphql: `${url}/graphql`, database: config.databaseUrl ? 'postgresql' : 'pglite' }, 'service started');
  // Since the process began (module loading included): what a person waiting for the first start sees.
  const seconds = Number(process.uptime().toFixed(1));
  app.logger.info({ seconds }, `ready in ${seconds} s`);

  if (app.initialAccount) {
    // Printed once, to the console only: structured logs never carry keys.
    console.log(
      [
        '',
        `First start: created account "${app.initialAccount.handle}". Its API key (shown once, also saved to ${app.initialAccount.file}):`,
        '',
        `  ${app.initialAccount.apiKey}`,
        '',
        `It is the operator's account (tier "operator": no standard daily limit). Accounts you create with`,
        '`npm run cli -- account create --handle <name>` start on the standard tier, 20 requests a day.',
        '',
        `Try: curl -H "X-API-Key: ${app.initialAccount.apiKey}" ${url}/api/live-editor/status`,
        '',
        'Trying it on this machine? Settings a local test usually needs (docs/configuration.md):',
        '  FETCH_ALLOW_PRIVATE=true   scrapes, webhooks and schedules may reach pages on this machine or your network',
        '  EXPORT_ALLOW_HTTP=true     exports may reach a WordPress on plain http://',
        '',
      ].join('\n'),
    );
  }
  if (config.env !== 'production') console.log(`GraphiQL: ${url}/graphql`);

  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      app.logger.info({ signal }, 'stopping');
      app.stop().then(
        () => process.exit(0),
        (error) => {
          app.logger.error({ err: error }, 'error while stopping');
          process.exit(1);
        },
      );
    });
  }
}
