// Applies prisma/migrations at start-up from inside the service (Prisma's migrate CLI needs a
// native engine these machines cannot download). The bookkeeping table is Prisma's own
// `_prisma_migrations`, so `prisma migrate deploy` with a native engine sees the same history.
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database, RawConnection } from './database.js';

/** prisma/migrations, found relative to this module (the build copies it beside dist/src). */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../prisma/migrations', import.meta.url));

/** Any constant: PostgreSQL advisory locks are keyed by a 64-bit number. */
const MIGRATION_LOCK_KEY = 7_244_105_118;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir: string): Migration[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * One digest of a migration history (names and checksums, in order): equal digests mean equal
 * histories, so a start compares one value instead of every row.
 */
export function migrationsDigest(migrations: Pick<Migration, 'name' | 'checksum'>[]): string {
  return createHash('md5')
    .update(migrations.map((m) => `${m.name} ${m.checksum}\n`).join(''))
    .digest('hex');
}

// The same digest computed by the database over its finished migrations (NULL when none); no
// bookkeeping table at all is an error, which sends the start down the full path.
const APPLIED_DIGEST = `
SELECT md5(string_agg(migration_name || ' ' || checksum || E'\\n', '' ORDER BY migration_name COLLATE "C")) AS digest,
       count(*) FILTER (WHERE finished_at IS NULL) AS unfinished
FROM "_prisma_migrations" WHERE rolled_back_at IS NULL`;

const BOOKKEEPING_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
  "id" VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum" VARCHAR(64) NOT NULL,
  "finished_at" TIMESTAMPTZ,
  "migration_name" VARCHAR(255) NOT NULL,
  "logs" TEXT,
  "rolled_back_at" TIMESTAMPTZ,
  "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Brings the database up to date and returns the names of the migrations it applied.
 * Each migration runs in its own transaction; concurrent starts against one PostgreSQL wait on an
 * advisory lock, and the second one finds nothing left to do.
 */
export async function migrate(db: Database, migrations: Migration[], progress?: (message: string) => void): Promise<string[]> {
  if (await upToDate(db, migrations)) return [];
  return db.withConnection(async (conn) => {
    const locked = db.kind === 'postgres';
    if (locked) await conn.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(conn, migrations, progress);
    } finally {
      if (locked) await conn.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  });
}

/**
 * True when the database's finished migrations are exactly `migrations` (the usual restart): one
 * query, no lock. Anything else (a new folder, pending or unfinished migrations, a changed file, rows
 * from a newer version) goes through applyPending, which says what is wrong or applies what is missing.
 */
async function upToDate(db: Database, migrations: Migration[]): Promise<boolean> {
  try {
    const [row] = await db.query<{ digest: string | null; unfinished: string | number }>(APPLIED_DIGEST);
    return Number(row?.unfinished) === 0 && row?.digest === migrationsDigest(migrations);
  } catch {
    return false;
  }
}

async function applyPending(conn: RawConnection, migrations: Migration[], progress?: (message: string) => void): Promise<string[]> {
  await conn.exec(BOOKKEEPING_TABLE);
  const rows = await conn.query<{ migration_name: string; checksum: string; finished_at: Date | null }>(
    'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
  );
  const applied = new Map(rows.map((r) => [r.migration_name, r]));
  const done: string[] = [];
  for (const migration of migrations) {
    const row = applied.get(migration.name);
    if (row && row.finished_at === null) {
      throw new Error(`migration ${migration.name} was started earlier and did not finish; repair the database, then mark it rolled back`);
    }
    if (row) {
      if (row.checksum !== migration.checksum) {
        throw new Error(`migration ${migration.name} was changed after it was applied (checksum differs); add a new migration instead`);
      }
      continue;
    }
    if (done.length === 0) progress?.(`migrating the database: ${migrations.filter((m) => !applied.has(m.name)).length} migration(s) to apply`);
    await conn.exec('BEGIN');
    try {
      await conn.exec(migration.sql);
      await conn.query(
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, finished_at, applied_steps_count)
         VALUES ($1, $2, $3, now(), 1)`,
        [randomUUID(), migration.checksum, migration.name],
      );
      await conn.exec('COMMIT');
    } catch (error) {
      await conn.exec('ROLLBACK');
      throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
    done.push(migration.name);
  }
  return done;
}
