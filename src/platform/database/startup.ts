// The database a process starts on: opened (the embedded one created first when the data folder holds
// none) and brought to the latest migration. Kept apart from src/core.ts, which loads every service,
// so `npm start` can begin this while the rest of its modules load (src/main.ts).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.js';
import type { Logger } from '../logger.js';
import { openDatabase, StartupError, type Database } from './database.js';
import { MIGRATIONS_DIR, migrate, readMigrations } from './migrate.js';

export async function openMigratedDatabase(config: Config, logger: Logger): Promise<Database> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  // First starts and migrations can take seconds: each step is logged before it runs, so they never look like a hang.
  const progress = (message: string) => logger.info(message);
  // The embedded database says itself whether it opens a folder or creates one (pglite-files.ts).
  if (config.databaseUrl) progress(`connecting to PostgreSQL at ${serverOf(config.databaseUrl)}`);
  else if (config.inMemoryDatabase) progress('starting an in-memory embedded database');
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    pgliteDir: config.inMemoryDatabase ? undefined : join(config.dataDir, 'db'),
    progress,
  });
  try {
    const migrations = readMigrations(MIGRATIONS_DIR);
    const applied = await migrate(db, migrations, progress);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
    else progress(`database up to date (${migrations.length} migrations applied)`);
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
  return db;
}

/** A process's start failed: a StartupError is the operator's to fix, so its one line is printed without a stack. */
export function exitOnStartupError(error: unknown): never {
  if (!(error instanceof StartupError)) throw error;
  console.error(error.message);
  process.exit(1);
}

/** Host, port and database of a connection URL: what a log line may show of it (never its user or password). */
function serverOf(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.host}${url.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}
