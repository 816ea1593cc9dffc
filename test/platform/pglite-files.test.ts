// The embedded database folder: a copy of the migrated template (or made by a process of its own, so
// initdb's memory never lands in the service's process), opened with the start parameters that keep
// its heap small.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/database/database.js';
import { ensurePGliteFiles } from '../../src/platform/database/pglite-files.js';

const parent = await mkdtemp(join(tmpdir(), 'pglite-files-'));
afterAll(() => rm(parent, { recursive: true, force: true }));

describe('the embedded database folder', () => {
  it('is created once, and opens with 16 MB of shared buffers and 1 MB WAL segments', async () => {
    const dir = join(parent, 'db');
    // From the template; test/platform/pglite-template.test.ts has the slow path too (initdb and
    // migrations in a process of its own), and checks that both make the same database.
    expect(await ensurePGliteFiles(dir)).toBe('template');
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const created = (await stat(join(dir, 'PG_VERSION'))).mtimeMs;
    expect(await ensurePGliteFiles(dir)).toBe('existing'); // already there: left as it is, template or not
    expect((await stat(join(dir, 'PG_VERSION'))).mtimeMs).toBe(created);

    const db = await openDatabase({ pgliteDir: dir });
    try {
      expect(await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
      expect(await db.query<{ wal_segment_size: string }>('SHOW wal_segment_size')).toEqual([{ wal_segment_size: '1MB' }]);
      await db.query('CREATE TABLE kept (n int)');
      await db.query('INSERT INTO kept VALUES (7)');
    } finally {
      await db.close();
    }
    const again = await openDatabase({ pgliteDir: dir });
    try {
      expect(await again.query('SELECT n FROM kept')).toEqual([{ n: 7 }]);
    } finally {
      await again.close();
    }
  });

  it('says why when the folder cannot be made', async () => {
    const file = join(parent, 'not-a-folder');
    await writeFile(file, 'x');
    await expect(ensurePGliteFiles(join(file, 'db'))).rejects.toThrow(/ENOTDIR|not a directory/);
  });
});
