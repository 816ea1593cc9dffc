// What every process needs, API or worker: database (migrated), events, storage and services, plus
// the background duties (job workers, crash recovery of jobs, quota and ledger sweeps) a process may take on.
import type { Config } from './config.js';
import type { Database } from './platform/database/database.js';
import { MIGRATIONS_DIR } from './platform/database/migrate.js';
import { openMigratedDatabase } from './platform/database/startup.js';
import type { Logger } from './platform/logger.js';
import { createEventBus } from './platform/events.js';
import { resolveAdminToken } from './platform/secrets-files.js';
import { createBlobStore } from './platform/storage/index.js';
import { createServices, type Services } from './services.js';
import { startAutomation, type Loop } from './modules/automation/index.js';

export { MIGRATIONS_DIR };
/** How often queued jobs are checked against the queue's own messages (Redis may have lost them). */
const RESEND_INTERVAL_MS = 5_000;
const QUOTA_SWEEP_INTERVAL_MS = 10 * 60_000;
const LEDGER_SWEEP_INTERVAL_MS = 60_000;

export interface Core {
  services: Services;
  adminTokenFile?: string;
  /** Starts job workers (when configured) and the periodic recovery of interrupted jobs. */
  startBackground(options?: { workers?: boolean }): Promise<void>;
  close(): Promise<void>;
}

export async function buildCore(config: Config, logger: Logger, opening?: Promise<Database>): Promise<Core> {
  // `opening`: the database the caller began opening earlier (src/main.ts, while modules loaded).
  const db = await (opening ?? openMigratedDatabase(config, logger));

  // With a shared database, processes that make their own keys in their own DATA_DIR cannot open
  // what another sealed (webhook secrets, export credentials) or verify what it signed (file links).
  const unshared = [!config.exports.secretKey && 'EXPORT_SECRET_KEY', !config.urlSigningKey && 'URL_SIGNING_KEY'].filter(Boolean);
  if (config.databaseUrl && unshared.length > 0) {
    logger.warn({ unset: unshared }, `${unshared.join(' and ')} unset: keys are made in ${config.dataDir}; every process sharing this database needs the same ones (set the variables, or share the data folder)`);
  }
  const admin = resolveAdminToken(config.dataDir, config.adminToken);
  const events = await createEventBus(config.redisUrl, config.redisPrefix, (error) => logger.warn({ err: error }, 'Redis event bus connection error'));
  const blobs = await createBlobStore({ dataDir: config.dataDir, s3: config.s3 });
  const services = createServices({ config, db, events: events.bus, logger, blobs, adminToken: admin.token });
  // Webhook signing secrets stored in plain text before they were sealed: sealed now, once (idempotent).
  const sealedSecrets = await services.webhooks.sealPlaintextSecrets();
  if (sealedSecrets > 0) logger.info({ webhooks: sealedSecrets }, 'sealed webhook signing secrets stored in plain text');
  const timers: NodeJS.Timeout[] = [];
  let automation: Loop | undefined;

  const recoverJobs = async () => {
    try {
      const requeued = await services.jobs.recoverExpired();
      for (const id of requeued) await services.queue.enqueue(id);
      if (requeued.length > 0) logger.warn({ jobs: requeued }, 'queued interrupted jobs again');
    } catch (error) {
      logger.warn({ err: error }, 'recovering interrupted jobs failed');
    }
  };

  return {
    services,
    adminTokenFile: admin.file,
    startBackground: async ({ workers = config.runWorkers } = {}) => {
      timers.push(setInterval(() => void services.quota.sweep().catch((error: unknown) => logger.warn({ err: error }, 'sweeping quota windows failed')), QUOTA_SWEEP_INTERVAL_MS).unref());
      // Bounties past their expiry return their escrow; credit holds of analyses that never finished (a crash) are released; old reward counters go.
      const sweepLedger = async () => {
        try {
          await services.bounties.expireDue();
          await services.ledger.voidExpired();
          await services.rewards.sweep();
        } catch (error) {
          logger.warn({ err: error }, 'sweeping expired credit holds failed');
        }
      };
      timers.push(setInterval(() => void sweepLedger(), LEDGER_SWEEP_INTERVAL_MS).unref());
      // Coin conversions the credit partner has not answered yet are asked about again (same idempotency key).
      const retryConversions = async () => {
        try {
          await services.economy.bridge.retryDue();
        } catch (error) {
          logger.warn({ err: error }, 'retrying pending coin conversions failed');
        }
      };
      timers.push(setInterval(() => void retryConversions(), LEDGER_SWEEP_INTERVAL_MS).unref());
      if (!workers) return;
      await recoverJobs();
      timers.push(setInterval(() => void recoverJobs(), Math.max(1000, Math.floor(config.jobs.leaseMs / 2))).unref());
      // Queued rows whose queue message was lost (Redis restarted without persistence) run too:
      // at start, and then every RESEND_INTERVAL_MS (5 s) for rows the queue no longer holds. A second
      // message for a job is harmless, since claiming a row is atomic.
      const resendLost = async () => {
        try {
          const queued = await db.prisma.job.findMany({ where: { state: 'queued' }, select: { id: true } });
          const resent = await services.queue.resendMissing(queued.map((job) => job.id));
          if (resent.length > 0) logger.warn({ jobs: resent }, 'queued jobs whose queue message was lost were sent again');
        } catch (error) {
          logger.warn({ err: error }, 'resending lost queue messages failed');
        }
      };
      // Only a queue that can lose messages needs it (the in-process one polls the rows themselves).
      if (services.queue.kind === 'bullmq') {
        await resendLost();
        timers.push(setInterval(() => void resendLost(), RESEND_INTERVAL_MS).unref());
      }
      services.queue.startWorkers();
      // Webhook deliverer and scheduler: several processes may run them (rows are claimed atomically).
      automation ??= startAutomation(services, { deliverPollMs: config.webhooks.pollMs, schedulerPollMs: config.schedules.pollMs }, logger);
    },
    close: async () => {
      for (const timer of timers) clearInterval(timer);
      await automation?.stop();
      await services.queue.stop();
      await services.crawler.close();
      await services.renderer.close();
      await services.fetcher.close();
      await services.vision.close();
      await events.close();
      await db.close();
    },
  };
}
