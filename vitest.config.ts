// Every test runs on embedded PGlite; with TEST_DATABASE_URL set, the database-backed tests run a
// second time against that PostgreSQL server (project "postgres").
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Time limits with room for files running side by side (below): a worker shares the cores with the
// others, so a test or a service start can take twice as long as when it runs alone.
const shared = { testTimeout: 60_000, hookTimeout: 120_000 };
const postgres = process.env.TEST_DATABASE_URL
  ? [
      {
        extends: true as const,
        test: {
          ...shared,
          name: 'postgres',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.unit.test.ts'],
          env: { TEST_DB: 'postgres' },
        },
      },
    ]
  : [];

export default defineConfig({
  // graphql 16 ships a CJS build (main) and an ESM one (module) without an exports map. Node gives
  // every library the CJS one; Vite would give our sources the ESM one, and then graphql-ws and
  // friends reject our GraphQLErrors (`instanceof` across two copies). Use the one Node uses.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    // Files run in parallel: each starts its own service on port 0 with its own database (in-memory
    // PGlite, or a fresh PostgreSQL database), temporary folders and Redis prefix. Most of a file's
    // time is spent waiting (on PostgreSQL, HTTP, child processes), so more workers than cores pays:
    // vitest's default (cores - 1) is a single worker on a 2-core machine. Each worker holds a service
    // and its database (about 1 GB at most), so 3 on 2 cores (4 contended on a loaded machine); more on bigger machines.
    maxWorkers: Math.max(3, availableParallelism()),
    // A worker runs its files one after another in one module graph instead of a fresh one per file:
    // loading the service's ~1,200 modules and PGlite's template image once per worker instead of once
    // per file halved the CPU of a run of small files (bench/RESULTS.md, test suite section). Safe
    // here because no test mocks modules or leaves globals changed, and every file builds its own
    // service; a test that needs a fresh module graph gets it from a child process.
    isolate: false,
    projects: [{ extends: true, test: { ...shared, name: 'pglite', include: ['test/**/*.test.ts'] } }, ...postgres],
  },
});
