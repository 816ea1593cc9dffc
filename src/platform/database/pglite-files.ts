// The embedded database's files and how PostgreSQL starts on them.
//
// Memory, measured with PGlite 0.4 (bench/hot-path.bench.ts has the service's figures): a new data
// folder's initdb grows the WebAssembly heap to about 740 MB of RSS, and WebAssembly memory never
// shrinks; so a new folder is created (and migrated) by a short-lived process of its own, and this
// process only opens it. initdb also writes shared_buffers = 128MB into the folder's postgresql.conf, which an
// embedded, single-connection database does not need: the start parameters set 16 MB (the file
// system's cache still holds the table files), which keeps the heap at its initial 128 MB.
//
// Time: initdb plus every migration takes 6-25 s on a shared 2-core machine, so `npm run build` makes
// them once into a template (node_modules/.cache, keyed by the migrations and the PGlite version) and a
// new data folder starts as a copy of it (well under a second). Without a template (`npm run dev`, a
// read-only install) a new folder is created in place as before. Either way the folder then goes
// through migrate() like any other.
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants, cpSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { childEntry } from '../child-entry.js';
import { MIGRATIONS_DIR, migrationsDigest, readMigrations } from './migrate.js';

export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];
/**
 * initdb with WAL segments of 1 MB instead of 16: the template (and the image every in-memory
 * database loads) is 31 MB instead of 42, which made loading an in-memory database about 40% faster.
 * An existing folder keeps the segment size it was made with (PostgreSQL reads it from pg_control).
 */
export const PGLITE_INITDB_PARAMS = ['--wal-segsize=1'];
/** Options for every PGlite.create: the start parameters, and initdb's when the folder holds no database yet. */
export const PGLITE_OPTIONS = { startParams: PGLITE_START_PARAMS, initDbStartParams: PGLITE_INITDB_PARAMS };

const CREATE = childEntry(import.meta.url, 'pglite-create');

/** How a data folder's database came to be there. */
export type PGliteFilesOrigin = 'existing' | 'template' | 'created';

export interface PGliteFilesOptions {
  /** Told before the slow or first-start steps, so a first start never looks like a hang. */
  progress?: (message: string) => void;
  /** The template folder to copy; null creates the folder in place. Default: templatePath(). */
  template?: string | null;
}

/** Creates the data folder's database when the folder holds none yet: a copy of the template when there is one. */
export async function ensurePGliteFiles(dir: string, options: PGliteFilesOptions = {}): Promise<PGliteFilesOrigin> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (existsSync(join(dir, 'PG_VERSION'))) {
    options.progress?.(`opening the embedded database in ${dir}`);
    return 'existing';
  }
  const template = options.template === undefined ? templatePath() : options.template;
  if (template && existsSync(join(template, 'PG_VERSION')) && readdirSync(dir).length === 0) {
    options.progress?.(`creating the embedded database in ${dir} from the migrated template`);
    copyFolder(template, dir);
    return 'template';
  }
  options.progress?.(`creating the embedded database in ${dir} (initdb and migrations: this first start takes a while)`);
  await runCreate(dir);
  return 'created';
}

/**
 * Makes the template for the current migrations when it is missing (`npm run build` calls this) and
 * removes templates of earlier migrations. Returns its folder, or null when there is nowhere to keep it.
 */
export async function ensurePGliteTemplate(progress?: (message: string) => void): Promise<string | null> {
  const template = templatePath();
  if (!template || existsSync(join(template, 'PG_VERSION'))) return template;
  const cache = dirname(template);
  const staging = `${template}.new-${process.pid}`;
  mkdirSync(cache, { recursive: true });
  progress?.(`making the embedded database template in ${template} (once per migration change)`);
  try {
    await runCreate(staging);
    try {
      renameSync(staging, template);
    } catch (error) {
      // A build running at the same time made the same template first.
      if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry);
    if (entry.startsWith(TEMPLATE_PREFIX) && path !== template && path !== `${template}.tar` && !entry.includes('.new-') && !entry.includes('.tar.')) rmSync(path, { recursive: true, force: true });
  }
  return template;
}

const TEMPLATE_PREFIX = 'pglite-template-';

let memoryImageBlob: Promise<Blob | null> | undefined;

/**
 * The migrated template as a data-folder image for an in-memory database (PGlite's `loadDataDir`),
 * made beside the template once and read once per process: loading it takes well under a second,
 * where initdb and every migration take 4-25 s and grow the WebAssembly heap by about 600 MB (the
 * test suite starts a hundred such databases). Null when there is nowhere to keep a template.
 */
export function memoryImage(progress?: (message: string) => void): Promise<Blob | null> {
  memoryImageBlob ??= (async () => {
    const template = await ensurePGliteTemplate(progress);
    if (!template) return null;
    const file = `${template}.tar`;
    if (!existsSync(file)) {
      // Dumped from a copy, in a process of its own: the template itself is never opened, so
      // processes making the image at the same time do not share a folder.
      const copy = mkdtempSync(join(tmpdir(), 'pglite-image-'));
      try {
        copyFolder(template, join(copy, 'db'));
        await runChild(join(copy, 'db'), ['--image', file]);
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
    return new ImageBlob(new Uint8Array(readFileSync(file)));
  })().catch(() => null); // nowhere writable for it (a read-only install): initdb in memory, as before
  return memoryImageBlob;
}

let emptyImageBlob: Promise<Blob> | undefined;

/**
 * An image of a database fresh from initdb, for in-memory databases that start empty (migration
 * tests): initdb runs once per process, and each such database loads its files (under a second
 * instead of 4-25 s).
 */
export function emptyImage(): Promise<Blob> {
  emptyImageBlob ??= (async () => {
    const first = await PGlite.create(PGLITE_OPTIONS);
    try {
      return new ImageBlob(new Uint8Array(await (await first.dumpDataDir('none')).arrayBuffer()));
    } finally {
      await first.close();
    }
  })();
  emptyImageBlob.catch(() => (emptyImageBlob = undefined)); // a failed initdb is tried again next time
  return emptyImageBlob;
}

/**
 * The image as a Blob whose arrayBuffer() is the bytes themselves: Node's own reads a Blob in 64 KB
 * chunks and joins them, which cost about 0.4 s of CPU for each in-memory database (PGlite calls only
 * this). Shared, not copied: PGlite only reads it, copying each file into its in-memory file system
 * (test/platform/pglite-template.test.ts checks that databases made from it stay apart).
 */
class ImageBlob extends Blob {
  readonly #bytes: Uint8Array<ArrayBuffer>;
  constructor(bytes: Uint8Array<ArrayBuffer>) {
    super([bytes]);
    this.#bytes = bytes;
  }
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.buffer as ArrayBuffer;
  }
}

/**
 * Where the template for the current migrations and PGlite version lives: node_modules/.cache of the
 * project (a reinstall, which may bring another PGlite, starts it afresh). Null without a node_modules.
 */
export function templatePath(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'node_modules', '@electric-sql', 'pglite'))) {
    if (dirname(dir) === dir) return null;
    dir = dirname(dir);
  }
  const modules = join(dir, 'node_modules');
  const pgliteVersion = (JSON.parse(readFileSync(join(modules, '@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
  // initdb's parameters are part of what the template is: another set makes another template.
  const key = createHash('sha256').update(`${migrationsDigest(readMigrations(MIGRATIONS_DIR))} ${PGLITE_INITDB_PARAMS.join(' ')}`).digest('hex').slice(0, 16);
  return join(modules, '.cache', 'image-service', `${TEMPLATE_PREFIX}${pgliteVersion}-${key}`);
}

/** Copies the template beside `dir`, then moves it in: an interrupted copy never looks like a database. */
function copyFolder(template: string, dir: string): void {
  const staging = `${dir}.new-${process.pid}`;
  try {
    // A copy-on-write clone where the file system has them, a plain copy elsewhere.
    cpSync(template, staging, { recursive: true, mode: constants.COPYFILE_FICLONE });
    rmSync(dir, { recursive: true, force: true }); // empty: checked by the caller
    renameSync(staging, dir);
    chmodSync(dir, 0o700);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** initdb and every migration in `dir`, in a process of its own. */
const runCreate = (dir: string) => runChild(dir, []);

/** pglite-create.ts on `dir` in a process of its own. */
async function runChild(dir: string, args: string[]): Promise<void> {
  const child = fork(CREATE.entry, [dir, ...args], { execArgv: CREATE.execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: {} });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`creating the embedded database in ${dir} failed (exit code ${code}): ${stderr.trim()}`);
}
