// The database port: one Prisma client over either embedded PGlite (default) or PostgreSQL
// (DATABASE_URL), plus a raw SQL channel for migrations and the few hot-path statements.
// Each database's driver is loaded when that database is opened: a process holds one of them.
import type { PrismaPg } from '@prisma/adapter-pg';
import type { Pool } from 'pg';
import { PrismaClient } from '../../generated/prisma/client.js';

export type { PrismaClient };

export interface Database {
  kind: 'pglite' | 'postgres';
  prisma: PrismaClient;
  /** Parameterised statement on the raw driver ($1, $2 ...). */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs `fn` holding one connection: a transaction or a session lock needs the same connection. */
  withConnection<T>(fn: (conn: RawConnection) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Statements sent so far (embedded database only; null on PostgreSQL): lets tests catch N+1 queries. */
  statementCount(): number | null;
  /**
   * The embedded database's data folder as a tar, consistent (no statement runs while it is read):
   * what a backup stores. Absent on PostgreSQL, whose own tools (pg_dump) do this.
   */
  dumpDataDir?(): Promise<Blob>;
}

export interface RawConnection {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Several statements in one string, no parameters (migration files). */
  exec(sql: string): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Folder for the embedded database; undefined keeps it in memory. */
  pgliteDir?: string;
  /** Told what a first start is doing (creating the embedded database). */
  progress?: (message: string) => void;
  /** In memory: an empty database (initdb only) instead of a copy of the migrated template; for migration tests. */
  empty?: boolean;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.databaseUrl ? openPostgres(options.databaseUrl) : openPGlite(options.pgliteDir, options.progress, options.empty);
}

async function openPGlite(dir?: string, progress?: (message: string) => void, empty = false): Promise<Database> {
  const [{ PGlite }, { PrismaPGlite }, { PGLITE_OPTIONS, emptyImage, ensurePGliteFiles, memoryImage }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('pglite-prisma-adapter'),
    import('./pglite-files.js'),
  ]);
  if (dir) await ensurePGliteFiles(dir, { progress });
  // In memory: a copy of the migrated template when there is one, instead of initdb and every
  // migration; an empty one is a copy of the first initdb's files.
  const image = dir ? null : empty ? await emptyImage() : await memoryImage(progress);
  // One options object: PGlite.create(undefined, options) ignores the options.
  const pglite = await PGlite.create({ dataDir: dir, ...PGLITE_OPTIONS, ...(image && { loadDataDir: image }) });
  let statements = 0;
  // PGlite 0.4 checks that it is open only before a statement waits for its lock: one still waiting
  // when close() comes then runs on the stopped backend, in a synchronous loop that never ends and
  // blocks the whole process (electric-sql/pglite#1058). So calls are refused from the moment close
  // begins, and close waits, holding both locks, for those already queued.
  let closing: Promise<void> | undefined;
  const locks = pglite as unknown as Record<'_runExclusiveTransaction' | '_runExclusiveQuery', <T>(fn: () => Promise<T>) => Promise<T>>;
  const exclusive = <T>(lock: keyof typeof locks, fn: () => Promise<T>): Promise<T> => locks[lock](fn);
  for (const method of ['query', 'exec', 'transaction'] as const) {
    const original = pglite[method].bind(pglite) as (...args: unknown[]) => unknown;
    (pglite as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      if (closing) return Promise.reject(new Error('the embedded database is closed'));
      if (method !== 'transaction') statements++;
      return original(...args);
    };
  }
  // The adapter is built against an older @prisma/driver-adapter-utils; the runtime contract is the same.
  const adapter = new PrismaPGlite(pglite) as unknown as PrismaPg;
  const prisma = new PrismaClient({ adapter });
  const conn: RawConnection = {
    query: async <T>(sql: string, params?: unknown[]) => (await pglite.query<T>(sql, params)).rows,
    exec: async (sql: string) => {
      await pglite.exec(sql);
    },
  };
  return {
    kind: 'pglite',
    prisma,
    query: conn.query,
    // PGlite has a single connection; its own queue serialises callers.
    withConnection: (fn) => fn(conn),
    statementCount: () => statements,
    dumpDataDir: async () => {
      // A checkpoint first, so the tar's table files are current (recovery then replays little).
      await pglite.exec('CHECKPOINT');
      // query(), exec() and transaction() all hold this lock while they run, so none runs meanwhile.
      return exclusive('_runExclusiveTransaction', () => pglite.dumpDataDir('none'));
    },
    close: () =>
      (closing ??= (async () => {
        await prisma.$disconnect();
        // Both locks are first come, first served: every statement queued before this one has run.
        await exclusive('_runExclusiveTransaction', () => exclusive('_runExclusiveQuery', () => pglite.close()));
      })()),
  };
}

async function openPostgres(databaseUrl: string): Promise<Database> {
  const url = new URL(databaseUrl);
  // Prisma's `?schema=` convention: queries are qualified with it, raw SQL finds it on the search path.
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  // random_page_cost 1.1 (PostgreSQL's default of 4 assumes spinning disks): without it the planner
  // prefers a sequential scan to the full-text GIN index and library search gets 4x slower.
  // The server splits `options` at spaces; a backslash keeps one (a schema name may hold spaces).
  const options = [`-c random_page_cost=1.1`, schema ? `-c search_path=${quoteIdent(schema).replace(/[\\ ]/g, '\\$&')}` : ''].filter(Boolean).join(' ');
  // A connection that cannot be made within 15 s, or a query a frozen server never answers within
  // 30 s, fails the request (503) instead of holding it forever. (15 s, not less: a busy server can
  // be slow to hand out a connection, and a job's final write must not fail for that.)
  const [{ PrismaPg }, { default: pg }] = await Promise.all([import('@prisma/adapter-pg'), import('pg')]);
  const pool = new pg.Pool({ connectionString: url.toString(), max: 10, options, connectionTimeoutMillis: 15_000, query_timeout: 30_000 });
  // An idle connection the server closes (restart, failover) must not crash the process: the pool
  // drops it and opens a new one on the next query.
  pool.on('error', () => {});
  if (schema) {
    try {
      await ensureSchema(pool, schema);
    } catch (error) {
      await pool.end().catch(() => {});
      throw error;
    }
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { schema }) });
  const query = async <T>(sql: string, params?: unknown[]) => (await pool.query(sql, params as unknown[])).rows as T[];
  return {
    kind: 'postgres',
    prisma,
    query,
    withConnection: async (fn) => {
      const client = await pool.connect();
      try {
        return await fn({
          query: async <T>(sql: string, params?: unknown[]) => (await client.query(sql, params as unknown[])).rows as T[],
          exec: async (sql: string) => {
            await client.query(sql);
          },
        });
      } finally {
        client.release();
      }
    },
    statementCount: () => null,
    close: async () => {
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/** A start that cannot go on for a reason the operator fixes: src/main.ts prints its message alone, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * The schema `?schema=` names, created when missing (migrations would otherwise fail with "no schema
 * has been selected to create in"). Looked up first: CREATE SCHEMA IF NOT EXISTS wants the CREATE
 * privilege on the database even when the schema exists.
 */
async function ensureSchema(pool: Pool, schema: string): Promise<void> {
  const found = await pool.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
  if (found.rowCount) return;
  try {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  } catch (error) {
    if ((error as { code?: string }).code !== '42501') throw error; // insufficient_privilege
    const [{ role, database }] = (await pool.query<{ role: string; database: string }>('SELECT current_user AS role, current_database() AS database')).rows as [{ role: string; database: string }];
    throw new StartupError(
      `DATABASE_URL names schema "${schema}" (?schema=), which does not exist in database "${database}", and role "${role}" may not create it: create it as the database's owner with  CREATE SCHEMA ${quoteIdent(schema)} AUTHORIZATION ${quoteIdent(role)};  then start again`,
      { cause: error },
    );
  }
}

/** A timestamp(3) column as JSON gives it back (to_jsonb: UTC without a zone) as a Date. */
export function utcFromJson(text: string): Date {
  return new Date(/[zZ]|[+-]\d\d:?\d\d$/.test(text) ? text : `${text}Z`);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
