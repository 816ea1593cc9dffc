// The embedded database's files and how PostgreSQL starts on them.
//
// Memory, measured with PGlite 0.4 (bench/hot-path.bench.ts has the service's figures): a new data
// folder's initdb grows the WebAssembly heap to about 740 MB of RSS, and WebAssembly memory never
// shrinks; so a new folder is created (and migrated) by a short-lived process of its own, and this
// process only opens it. initdb also writes shared_buffers = 128MB into the folder's postgresql.conf, which an
// embedded, single-connection database does not need: the start parameters set 16 MB (the file
// system's cache still holds the table files), which keeps the heap at its initial 128 MB.
import { fork } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { childEntry } from '../child-entry.js';

export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

const CREATE = childEntry(import.meta.url, 'pglite-create');

/** Creates the data folder's database in a process of its own when the folder holds none yet. */
export async function ensurePGliteFiles(dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  const child = fork(CREATE.entry, [dir], { execArgv: CREATE.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`creating the embedded database in ${dir} failed (exit code ${code}): ${stderr.trim()}`);
}
