// `npm run build` (also run before `npm start` and `npm run worker`): transpiles the service's
// TypeScript file by file into dist/ (or the folder given as the argument, which must sit inside the
// project so packages resolve from its node_modules) with esbuild, keeping the folder layout, so production processes
// run plain JavaScript. Running under tsx instead keeps a loader thread and every file's transform in
// memory: about 100 MB more per process (bench/RESULTS.md, crawl section). Types are checked by
// `npm run typecheck`, not here; a build takes about a second.
import { build } from 'esbuild';
import { cpSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

// Built beside the output, then swapped in whole: a process already running from the output (an
// API process while `npm run worker` starts, say) never sees a half-written tree, and neither do
// builds running at the same time.
const staging = `${outdir}.build-${process.pid}`;
const retired = `${outdir}.old-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
try {
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
