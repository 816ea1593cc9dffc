// Databases of a benchmark's own, removed afterwards: a new database on a PostgreSQL server, or an
// embedded PGlite in a temp folder, each opened as the service opens one and migrated.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseOptions } from '../src/platform/database/database.js';
import { migrate, readMigrations } from '../src/platform/database/migrate.js';
import { MIGRATIONS_DIR } from '../src/core.js';

/** Runs `fn` on a new, migrated database `<prefix>_<random>` of the server (a URL to its postgres database). */
export async function onScratchPostgres<T>(server: string, prefix: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  try {
    return await onMigrated({ databaseUrl: url.toString() }, fn);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** Runs `fn` on a new, migrated PGlite database in a temp folder. */
export async function onScratchPGlite<T>(prefix: string, fn: (db: Database) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  try {
    return await onMigrated({ pgliteDir: join(dir, 'db') }, fn);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function onMigrated<T>(options: DatabaseOptions, fn: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase(options);
  try {
    await migrate(db, readMigrations(MIGRATIONS_DIR));
    return await fn(db);
  } finally {
    await db.close();
  }
}
