// Every test runs on embedded PGlite; with TEST_DATABASE_URL set, the database-backed tests run a
// second time against that PostgreSQL server (project "postgres").
import { defineConfig } from 'vitest/config';

const shared = { testTimeout: 30_000, hookTimeout: 60_000 };
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
    projects: [{ extends: true, test: { ...shared, name: 'pglite', include: ['test/**/*.test.ts'] } }, ...postgres],
  },
});
