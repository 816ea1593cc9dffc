// Runs `prisma generate` without any engine download: these machines reach only the npm registry,
// and with engineType "client" plus a driver adapter no native engine is used at run time.
// Prisma's CLI still wants engine files to exist, so both variables point at a placeholder file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const placeholder = join(root, 'node_modules', '.cache', 'prisma-engine-placeholder');
mkdirSync(dirname(placeholder), { recursive: true });
if (!existsSync(placeholder)) writeFileSync(placeholder, '');

const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholder,
  PRISMA_QUERY_ENGINE_LIBRARY: process.env.PRISMA_QUERY_ENGINE_LIBRARY ?? placeholder,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
  CHECKPOINT_DISABLE: '1',
};
const result = spawnSync(process.execPath, [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'generate', ...process.argv.slice(2)], {
  cwd: root,
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
