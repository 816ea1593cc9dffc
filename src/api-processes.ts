// API_PROCESSES > 1: `npm start` runs that many API processes on this machine, sharing PORT through
// node:cluster (the primary accepts connections and hands them round-robin to the processes), so the
// service can use more than one core. Each process is a whole service, as on several machines
// (docs/scale-out.md), so it is allowed only where several machines would be correct: PostgreSQL
// (quotas, keys, ledger, answer-cache versions and job claims in the database) and Redis (events,
// subscriptions and key revocations reach every process), and no Telegram polling (one poller per token).
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from './platform/logger.js';

/** What the check reads of the configuration (src/config.ts's Config is one). */
export interface ApiProcessSettings {
  apiProcesses: number;
  databaseUrl?: string;
  redisUrl?: string;
  telegram?: { mode: string };
}

/** Why API_PROCESSES cannot be more than 1 with these settings, or null when it can. */
export function apiProcessesRefusal(settings: ApiProcessSettings): string | null {
  if (settings.apiProcesses <= 1) return null;
  const missing = [
    !settings.databaseUrl && 'DATABASE_URL (the embedded database belongs to one process)',
    !settings.redisUrl && 'REDIS_URL (without it, subscriptions and key revocations would reach only the process they happen in)',
  ].filter(Boolean);
  if (missing.length > 0) return `API_PROCESSES=${settings.apiProcesses} needs ${missing.join(' and ')}; set them, or API_PROCESSES=1`;
  if (settings.telegram?.mode === 'polling') return `API_PROCESSES=${settings.apiProcesses} needs TELEGRAM_MODE=webhook or none: Telegram gives a bot's updates to one poller only`;
  return null;
}

/** True in a process that should serve (API_PROCESSES=1, or a process the primary forked). */
export function servesHere(settings: ApiProcessSettings): boolean {
  return settings.apiProcesses <= 1 || !cluster.isPrimary;
}

/**
 * The primary: starts the first API process alone (it does a first start's work: migrations, the
 * generated keys in DATA_DIR, the operator's account), the others once it listens. A process that
 * ends after it listened is started again; one that ends before (a configuration or database error)
 * ends the primary with its code, as a single process would. SIGINT and SIGTERM stop them all.
 */
export function superviseApiProcesses(settings: ApiProcessSettings, logger: Logger): void {
  const refusal = apiProcessesRefusal(settings);
  if (refusal) {
    logger.fatal(refusal);
    process.exit(1);
  }
  let stopping = false;
  let exitCode = 0;
  let started = 0;
  const fork = (then?: () => void): Worker => {
    const worker = cluster.fork();
    let listening = false;
    worker.once('listening', () => {
      listening = true;
      if (++started === settings.apiProcesses) logger.info({ processes: started }, 'every API process listens');
      then?.();
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return void (code && (exitCode = code));
      if (!listening) {
        logger.fatal({ code, signal }, 'an API process ended while starting; stopping the others');
        stop(code || 1);
        return;
      }
      logger.error({ code, signal, pid: worker.process.pid }, 'an API process ended; starting another');
      fork();
    });
    return worker;
  };
  const stop = (code: number, signal: NodeJS.Signals = 'SIGTERM') => {
    if (stopping) return;
    stopping = true;
    exitCode = code;
    const running = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
    if (running.length === 0) process.exit(exitCode);
    let left = running.length;
    for (const worker of running) {
      worker.once('exit', () => --left === 0 && process.exit(exitCode));
      worker.process.kill(signal);
    }
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(0, signal));
  logger.info({ processes: settings.apiProcesses }, 'starting API processes');
  fork(() => {
    for (let i = 1; i < settings.apiProcesses; i++) fork();
  });
}
