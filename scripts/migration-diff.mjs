// Writes the SQL that takes the database from the schema at a git revision (default: empty) to the
// current prisma/schema.prisma, as a new migration folder.
// Usage: npm run db:diff -- <migration_name> [git-rev-of-previous-schema | path/to/previous/schema.prisma]
import { spawnSync, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync, mkdtempSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const [name, previousRev] = process.argv.slice(2);
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:diff -- <migration_name (a-z, 0-9, _)> [git revision of the previous schema]');
  process.exit(2);
}
let from = ['--from-empty'];
if (previousRev && existsSync(previousRev)) {
  from = ['--from-schema-datamodel', previousRev];
} else if (previousRev) {
  const old = execFileSync('git', ['show', `${previousRev}:prisma/schema.prisma`], { cwd: root, encoding: 'utf8' });
  const file = join(mkdtempSync(join(tmpdir(), 'schema-')), 'schema.prisma');
  writeFileSync(file, old);
  from = ['--from-schema-datamodel', file];
}
const placeholder = join(root, 'node_modules', '.cache', 'prisma-engine-placeholder');
const result = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'prisma', 'build', 'index.js'), 'migrate', 'diff', '--config', 'prisma/diff.config.ts', ...from,
    '--to-schema-datamodel', 'prisma/schema.prisma', '--script'],
  { cwd: root, encoding: 'utf8', env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: placeholder, PRISMA_QUERY_ENGINE_LIBRARY: placeholder, CHECKPOINT_DISABLE: '1' } },
);
if (result.status !== 0) {
  process.stderr.write(result.stderr);
  process.exit(result.status ?? 1);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = join(root, 'prisma', 'migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'migration.sql'), result.stdout);
console.log(`wrote ${dir}/migration.sql`);
