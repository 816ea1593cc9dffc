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
// Packages the bundled entries leave to node_modules: native code or WebAssembly found by path,
// worker or asset files beside them, or large and needed only on a rare path.
const BUNDLE_EXTERNAL = [
  '@electric-sql/pglite', 'sharp', 'sharp-phash', '@prisma/client', 'prisma', '.prisma', 'playwright-core',
  'tesseract.js', '@tesseract.js-data/eng', '@graphql-yoga/render-graphiql', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-converter',
  '@tensorflow/tfjs-core', '@vladmandic/human', 'libheif-js', 'bullmq',
  'swagger-ui-dist', 'esbuild', 'tsx', '@aws-sdk', 'archiver', 'pg', 'pg-native', 'ioredis',
];

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
  // The two process entries again, each bundled with what it imports into one file (plus shared
  // chunks for what they import lazily), over the per-file output above: a start then reads a few
  // files instead of about 1,400 (bench/RESULTS.md, start section). The per-file tree stays for
  // the child processes and worker threads, which start from their own entries.
  await bundleEntries(build, staging);
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

/**
 * Bundles src/main.ts and src/worker.ts into <out>/src/main.js and worker.js. Every output file sits
 * in <out>/src, so each module's `import.meta.url` is rewritten to the address the module has in the
 * per-file tree (ours) or in node_modules (a package's), relative to that folder: the paths modules
 * derive from it (migrations, child entries, worker files, a package's own assets) stay as they were.
 * CommonJS packages get their `__dirname` and `__filename` the same way, and `require` (for Node's
 * own modules) from a banner. Packages that load native code, WebAssembly or files beside them by
 * path, or that are only imported on a rare path, stay outside and load from node_modules.
 */
async function bundleEntries(build, out) {
  const outSrc = join(out, 'src');
  const sourceRoots = sourceFolders.map((folder) => join(root, folder) + '/');
  /** The path, as an expression, of where the module at `file` runs from: relative to the output folder. */
  const pathOf = (file) => {
    const own = sourceRoots.some((dir) => file.startsWith(dir)) && /\.[cm]?ts$/.test(file);
    const target = own ? join(outSrc, relative(join(root, 'src'), file)).replace(/\.([cm]?)ts$/, '.$1js') : file;
    // Not import.meta: esbuild would take a CommonJS module that names it for an ES module.
    return `__bundleJoin(__bundleDir, ${JSON.stringify(relative(outSrc, target))})`;
  };
  const external = new RegExp(`^(${BUNDLE_EXTERNAL.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(/|$)`);
  const plugin = {
    name: 'module-addresses',
    setup(b) {
      // A package our code imports lazily (import('undici')) stays outside too: bundled, a CommonJS
      // one becomes a split chunk with only a default export, where Node gives its named exports
      // (every guarded fetch of the bundled service once failed so); and it is needed later anyway.
      const lazy = (args) => args.kind === 'dynamic-import' && sourceRoots.some((dir) => args.importer.startsWith(dir));
      b.onResolve({ filter: /^[^./]/ }, (args) => (external.test(args.path) || lazy(args) ? { path: args.path, external: true } : undefined));
      b.onLoad({ filter: /\.([cm]?[jt]s)$/ }, (args) => {
        let text = readFileSync(args.path, 'utf8');
        const loader = /\.[cm]?ts$/.test(args.path) ? 'ts' : 'js';
        // Unchanged: esbuild reads the file itself (sending it back costs more than reading it).
        if (!text.includes('import.meta.url') && !text.includes('__dirname') && !text.includes('__filename')) return undefined;
        if (text.includes('import.meta.url')) text = text.replaceAll('import.meta.url', `__bundlePathToFileURL(${pathOf(args.path)}).href`);
        // Only CommonJS modules have these (an ES module that names them defines them itself).
        if (/\b(module\.exports|exports\.|require\()/.test(text) && /\b__(dirname|filename)\b/.test(text) && !/\b(const|let|var) __(dirname|filename)\b/.test(text)) {
          text = `var __filename = ${pathOf(args.path)}, __dirname = __bundleDirname(__filename);\n${text}`;
        }
        return { contents: text, loader };
      });
    },
  };
  await build({
    entryPoints: { main: join(root, 'src/main.ts'), worker: join(root, 'src/worker.ts') },
    outdir: outSrc,
    bundle: true,
    splitting: true,
    chunkNames: 'bundle-[hash]',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // No source maps here (they made the bundling half as slow again): node reads none without
    // --enable-source-maps; the per-file tree beside the bundle has them.
    logLevel: 'warning',
    plugins: [plugin],
    banner: {
      js: [
        "import { createRequire as __bundleCreateRequire } from 'node:module';",
        "import { fileURLToPath as __bundleFileURLToPath, pathToFileURL as __bundlePathToFileURL } from 'node:url';",
        "import { dirname as __bundleDirname, join as __bundleJoin } from 'node:path';",
        'const require = __bundleCreateRequire(import.meta.url);',
        'const __bundleDir = __bundleDirname(__bundleFileURLToPath(import.meta.url));',
      ].join(' '),
    },
  });
  // The per-file build's maps of the two entries describe files the bundles replaced.
  for (const entry of ['main', 'worker']) rmSync(join(outSrc, `${entry}.js.map`), { force: true });
}
