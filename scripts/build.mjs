// `npm run build` (also run before `npm start` and `npm run worker`): transpiles the service's
// TypeScript file by file into dist/ (or the folder given as the argument, which must sit inside the
// project so packages resolve from its node_modules) with esbuild, keeping the folder layout, so production processes
// run plain JavaScript. Running under tsx instead keeps a loader thread and every file's transform in
// memory: about 100 MB more per process (bench/RESULTS.md, crawl section). Types are checked by
// `npm run typecheck`, not here; a build takes about a second, and nothing when the output is up
// to date (every `npm start` runs it). It also makes the migrated embedded-database template a new
// data folder starts from (src/platform/database/pglite-files.ts), once per migration change.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = resolve(process.argv[2] ?? join(root, 'dist'));
if (relative(root, outdir).startsWith('..') || outdir === root) {
  console.error(`the output folder must be inside ${root}, not ${outdir}`);
  process.exit(1);
}
// What a running process imports; tests, benchmarks and scripts run under tsx/vitest instead.
const sourceFolders = ['src', 'rest-shim'];

if (!existsSync(join(root, 'src/generated/prisma'))) {
  console.error('src/generated/prisma is missing: run `npm run db:generate` (npm install does) first');
  process.exit(1);
}

const files = (folder, ext) =>
  readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && ext.some((e) => entry.name.endsWith(e)) && !entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath ?? entry.path, entry.name));

// Up to date: every input (path, size, modification time) is as the last build into this folder
// found it. Any change, an added or a removed file included, builds the whole tree again.
const stampFile = join(outdir, '.build-stamp.json');
const inputs = [
  ...sourceFolders.flatMap((folder) => files(folder, ['.ts', '.mjs', '.js', '.json', '.d.ts'])),
  ...files('prisma/migrations', ['']),
  fileURLToPath(import.meta.url),
  join(root, 'package.json'),
  join(root, 'node_modules/esbuild/package.json'),
  join(root, 'node_modules/@electric-sql/pglite/package.json'),
].sort();
const fingerprint = createHash('sha256')
  .update(inputs.map((file) => {
    const { size, mtimeMs } = statSync(file);
    return `${relative(root, file)} ${size} ${mtimeMs}\n`;
  }).join(''))
  .digest('hex');
const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : null;
if (stamp?.fingerprint === fingerprint) {
  if (!stamp.template || existsSync(join(stamp.template, 'PG_VERSION'))) process.exit(0);
  await makeTemplate(); // the cache was cleared since
  process.exit(0);
}

// Built beside the output, then swapped in whole: a process already running from the output (an
// API process while `npm run worker` starts, say) never sees a half-written tree, and neither do
// builds running at the same time.
const staging = `${outdir}.build-${process.pid}`;
const retired = `${outdir}.old-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
try {
  const { build } = await import('esbuild');
  await build({
    entryPoints: sourceFolders.flatMap((folder) => files(folder, ['.ts'])),
    outdir: staging,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  // Plain JavaScript modules (worker-thread entries) are copied as they are.
  for (const file of sourceFolders.flatMap((folder) => files(folder, ['.mjs']))) cpSync(file, join(staging, relative(root, file)));
  // src/core.ts finds the migrations at ../prisma/migrations, relative to itself.
  cpSync(join(root, 'prisma/migrations'), join(staging, 'prisma/migrations'), { recursive: true });
  if (existsSync(outdir)) renameSync(outdir, retired);
  try {
    renameSync(staging, outdir);
  } catch (error) {
    // Another build swapped its output in between our two renames: it built the same sources.
    if (!['ENOTEMPTY', 'EEXIST'].includes(error.code)) throw error;
  }
} finally {
  rmSync(staging, { recursive: true, force: true });
  rmSync(retired, { recursive: true, force: true });
}
await makeTemplate();

/** Makes the migrated template (when missing) with the built code, then records this build. */
async function makeTemplate() {
  let template = null;
  try {
    const { ensurePGliteTemplate } = await import(pathToFileURL(join(outdir, 'src/platform/database/pglite-files.js')).href);
    template = await ensurePGliteTemplate((message) => console.log(`build: ${message}`));
  } catch (error) {
    // Not fatal: a new data folder is then created in place, as slowly as before.
    console.warn(`build: no embedded database template (${error.message}); a new data folder is created at its first start`);
  }
  writeFileSync(stampFile, JSON.stringify({ fingerprint, template }));
}
