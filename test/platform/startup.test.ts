// What a start says while it opens its database (src/platform/database/startup.ts), so a first start
// never looks like a hang: on the embedded database a first start and a restart, on PostgreSQL a
// new database and the same one again. Messages only: how long a start takes is bench/start.bench.ts's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import type { Logger } from '../../src/platform/logger.js';
import { MIGRATIONS_DIR, readMigrations } from '../../src/platform/database/migrate.js';
import { openMigratedDatabase } from '../../src/platform/database/startup.js';
import { createTestDatabase, usePostgres } from '../helpers/database.js';

const dataDir = mkdtempSync(join(tmpdir(), 'startup-test-'));
const target = await createTestDatabase();
afterAll(async () => {
  await target.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens the database as a process's start does, and returns what it logged (the message of each line). */
async function start(): Promise<string[]> {
  const told: string[] = [];
  const logger = { info: (first: unknown, message?: string) => told.push(typeof first === 'string' ? first : message!) } as unknown as Logger;
  const config = { dataDir, databaseUrl: target.url, inMemoryDatabase: false } as Config;
  const db = await openMigratedDatabase(config, logger);
  await db.close();
  return told;
}

describe('a start opening its database', () => {
  const migrations = readMigrations(MIGRATIONS_DIR).length;
  const upToDate = `database up to date (${migrations} migrations applied)`;

  it.skipIf(usePostgres)('embedded: creates the folder from the template, then opens it; both up to date', async () => {
    const dir = join(dataDir, 'db');
    expect(await start()).toEqual([`creating the embedded database in ${dir} from the migrated template`, upToDate]);
    expect(await start()).toEqual([`opening the embedded database in ${dir}`, upToDate]);
  }, 120_000);

  it.skipIf(!usePostgres)('PostgreSQL: names the server and database (never the user), migrates a new one, then finds it up to date', async () => {
    const url = new URL(target.url!);
    const connecting = `connecting to PostgreSQL at ${url.host}${url.pathname}`;
    expect(await start()).toEqual([connecting, `migrating the database: ${migrations} migration(s) to apply`, 'database migrated']);
    expect(await start()).toEqual([connecting, upToDate]);
  }, 120_000);
});
