// DATABASE_URL's `?schema=NAME` when that schema does not exist: the start creates it and migrates
// into it; when the role may not create it, the start stops with one line saying how to.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { StartupError } from '../../src/platform/database/database.js';
import { openMigratedDatabase } from '../../src/platform/database/startup.js';
import { createLogger } from '../../src/platform/logger.js';
import { usePostgres } from '../helpers/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function admin(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** TEST_DATABASE_URL with another role and `?schema=`. */
function urlWith(schema: string, role?: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL!);
  if (role) url.username = role;
  url.searchParams.set('schema', schema);
  return url.toString();
}

function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'db-schema-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function config(databaseUrl: string) {
  return loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir(), LOG_LEVEL: 'silent' }, { databaseUrl });
}

describe.runIf(usePostgres)('a DATABASE_URL ?schema= that does not exist', () => {
  it('is created at start and the migrations go into it', async () => {
    // Mixed case and a space: the name is a quoted identifier, not folded or split.
    const schema = `Tdoor ${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => void (await admin(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
    const db = await openMigratedDatabase(config(urlWith(schema)), createLogger('silent'));
    cleanups.push(() => db.close());
    const tables = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = $1 AND table_name = '_prisma_migrations'`, [schema]);
    expect(tables).toEqual([{ n: 1 }]);
    // Prisma's queries are qualified with it too.
    expect(await db.prisma.account.count()).toBe(0);
    // A second start finds it and migrates nothing.
    const again = await openMigratedDatabase(config(urlWith(schema)), createLogger('silent'));
    await again.close();
  });

  it('stops the start with one line saying how to create it when the role may not', async () => {
    const suffix = randomBytes(4).toString('hex');
    const role = `tdoor_role_${suffix}`;
    const schema = `tdoor_missing_${suffix}`;
    await admin(`CREATE ROLE ${role} LOGIN`);
    cleanups.push(async () => void (await admin(`DROP ROLE IF EXISTS ${role}`)));
    // A new role has no CREATE on the database (PostgreSQL's default for PUBLIC).
    const opening = openMigratedDatabase(config(urlWith(schema, role)), createLogger('silent'));
    await expect(opening).rejects.toBeInstanceOf(StartupError);
    await expect(opening).rejects.toThrow(`CREATE SCHEMA "${schema}" AUTHORIZATION "${role}";`);
    expect((await admin(`SELECT 1 FROM pg_namespace WHERE nspname = '${schema}'`)).rowCount).toBe(0);

    // The service's own start prints that line alone (no stack) and exits 1.
    const child = spawn(process.execPath, ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir(), DATABASE_URL: urlWith(schema, role), HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^DATABASE_URL names schema "${schema}" \\(\\?schema=\\), which does not exist in database "\\w+", and role "${role}" may not create it: create it as the database's owner with  CREATE SCHEMA "${schema}" AUTHORIZATION "${role}";  then start again$`));
  }, 60_000);
});
