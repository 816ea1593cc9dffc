// A new embedded data folder starts as a copy of the migrated template `npm run build` makes (a
// start in about a second instead of initdb plus every migration): the copy must be the same database
// the slow path (initdb and migrations in the folder itself) makes, and a first start must say what
// it is doing.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/database/database.js';
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/platform/database/migrate.js';
import { ensurePGliteFiles, ensurePGliteTemplate, memoryImage } from '../../src/platform/database/pglite-files.js';
import { usePostgres } from '../helpers/database.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const parent = await mkdtemp(join(tmpdir(), 'pglite-template-'));
afterAll(() => rm(parent, { recursive: true, force: true }));

/** Everything migrations make, one sorted line per object: equal lists mean the same schema. */
async function schemaOf(dir?: string): Promise<string[]> {
  const db = await openDatabase({ pgliteDir: dir }); // no folder: an in-memory database
  try {
    expect(await migrate(db, readMigrations(MIGRATIONS_DIR))).toEqual([]); // nothing left to apply on either path
    const rows = await db.query<{ line: string }>(`
      SELECT format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, column_default) AS line
        FROM information_schema.columns WHERE table_schema = 'public'
      UNION ALL SELECT format('constraint %s.%s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
        FROM pg_constraint WHERE connamespace = 'public'::regnamespace
      UNION ALL SELECT format('index %s', indexdef) FROM pg_indexes WHERE schemaname = 'public'
      UNION ALL SELECT format('function %s', pg_get_functiondef(oid)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
      UNION ALL SELECT format('trigger %s', pg_get_triggerdef(oid)) FROM pg_trigger WHERE NOT tgisinternal
      UNION ALL SELECT format('type %s %s', typname, typtype) FROM pg_type WHERE typnamespace = 'public'::regnamespace
      UNION ALL SELECT format('migration %s %s', migration_name, checksum) FROM "_prisma_migrations" WHERE finished_at IS NOT NULL
      UNION ALL SELECT format('ledger account %s %s', "currency", "system") FROM "LedgerAccount"
      ORDER BY 1`);
    return rows.map((r) => r.line);
  } finally {
    await db.close();
  }
}

/**
 * Starts the service (src/main.ts) on `dataDir` until it is ready, then stops it: its log messages up
 * to "ready in", and the console lines (the banner) up to the one naming GraphiQL. (What a restart
 * says is test/platform/startup.test.ts's: a second start here would double this file's time.)
 */
async function startService(dataDir: string): Promise<{ messages: string[]; banner: string[] }> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const messages: string[] = [];
  const banner: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited with ${code} before it was ready: ${stderr}`)));
    // Ready once both have arrived: the log's "ready in" and the console banner's last line (naming
    // GraphiQL). The logger writes asynchronously, so either may come first.
    const done = () => banner.at(-1)?.startsWith('GraphiQL: ') && messages.at(-1)?.startsWith('ready in') && resolve();
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) banner.push(line);
      else if (!messages.at(-1)?.startsWith('ready in')) messages.push((JSON.parse(line) as { msg: string }).msg);
      done();
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { messages, banner };
}

/** The slow path, as before the template (and as `npm run dev` without one still does): made once for both tests. */
let slow: Promise<{ dir: string; origin: string; told: string[] }> | undefined;
const slowPath = () =>
  (slow ??= (async () => {
    const dir = join(parent, 'slow', 'db');
    const told: string[] = [];
    const origin = await ensurePGliteFiles(dir, { template: null, progress: (m) => told.push(m) });
    return { dir, origin, told };
  })());

describe.skipIf(usePostgres)('a new embedded data folder', () => {
  it('made from the template has the schema initdb plus every migration makes, and the first start says what it does', async () => {
    const template = await ensurePGliteTemplate();
    expect(template).not.toBeNull();

    const { dir: slowDir, origin, told } = await slowPath();
    expect(origin).toBe('created');
    expect(told).toEqual([`creating the embedded database in ${slowDir} (initdb and migrations: this first start takes a while)`]);

    // The fast path, through a real first start of the service on an empty data folder.
    const dataDir = join(parent, 'fast');
    const { messages, banner } = await startService(dataDir);
    const fastDir = join(dataDir, 'db');
    const upToDate = `database up to date (${readMigrations(MIGRATIONS_DIR).length} migrations applied)`;
    expect(messages[0]).toBe(`creating the embedded database in ${fastDir} from the migrated template`);
    expect(messages[1]).toBe(upToDate);
    expect(messages).toContain('service started');
    expect(messages.at(-1)).toMatch(/^ready in \d+(\.\d)? s$/);
    // The banner: the key once, the operator's tier, and the settings a local test usually needs.
    const shown = banner.join('\n');
    expect(shown).toContain('First start: created account "owner"');
    expect(shown).toContain(JSON.parse(readFileSync(join(dataDir, 'initial-account.json'), 'utf8')).api_key);
    expect(shown).toContain('tier "operator"');
    expect(shown).toMatch(/FETCH_ALLOW_PRIVATE=true .*\n.*EXPORT_ALLOW_HTTP=true/);

    const [fast, slow] = [await schemaOf(fastDir), await schemaOf(slowDir)];
    expect(fast.filter((line) => line.startsWith('migration'))).toHaveLength(readMigrations(MIGRATIONS_DIR).length);
    expect(fast.length).toBeGreaterThan(500);
    expect(fast).toEqual(slow);

    // A folder that already holds a database is left as it is, template or not.
    expect(await ensurePGliteFiles(fastDir)).toBe('existing');
  }, 240_000);

  it('in memory starts from an image of the template: the same schema, and each database its own', async () => {
    expect(await memoryImage()).not.toBeNull();
    expect(await schemaOf()).toEqual(await schemaOf((await slowPath()).dir));

    // The image's bytes are shared between databases (pglite-files.ts): a write, even one
    // checkpointed into the table's files, stays in the database that made it.
    const [one, two] = [await openDatabase({}), await openDatabase({})];
    try {
      await one.query(`INSERT INTO "Account" ("handle", "updatedAt") VALUES ('only-in-one', now())`);
      await one.query('CHECKPOINT');
      expect(await one.query(`SELECT 1 FROM "Account" WHERE "handle" = 'only-in-one'`)).toHaveLength(1);
      expect(await two.query(`SELECT 1 FROM "Account" WHERE "handle" = 'only-in-one'`)).toHaveLength(0);
      const three = await openDatabase({});
      try {
        expect(await three.query(`SELECT 1 FROM "Account" WHERE "handle" = 'only-in-one'`)).toHaveLength(0);
      } finally {
        await three.close();
      }
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  }, 240_000);
});
