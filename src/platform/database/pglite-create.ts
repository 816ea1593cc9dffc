// Entry of the short-lived process that creates a new embedded database folder and brings it to the
// latest migration (see pglite-files.ts): initdb and the first migrations are the heaviest work
// PGlite does, and the WebAssembly memory they grow is returned to the system when this process ends.
import { renameSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from './database.js';
import { MIGRATIONS_DIR, migrate, readMigrations } from './migrate.js';
import { PGLITE_OPTIONS } from './pglite-files.js';

const [dir, option, imageFile] = process.argv.slice(2);
if (!dir || (option && (option !== '--image' || !imageFile))) throw new Error('usage: pglite-create <data folder> [--image <file>]');
if (option) {
  // The folder's image for in-memory databases (pglite-files.ts memoryImage), written whole or not at all.
  const pglite = await PGlite.create(dir, PGLITE_OPTIONS);
  const image = await pglite.dumpDataDir('none');
  await pglite.close();
  const staging = `${imageFile}.${process.pid}`;
  writeFileSync(staging, Buffer.from(await image.arrayBuffer()));
  renameSync(staging, imageFile!);
} else {
  const created = await PGlite.create(dir, PGLITE_OPTIONS);
  await created.close();
  const db = await openDatabase({ pgliteDir: dir });
  try {
    await migrate(db, readMigrations(MIGRATIONS_DIR));
  } finally {
    await db.close();
  }
}
