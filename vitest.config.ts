// Every test runs on embedded PGlite; with TEST_DATABASE_URL set, the database-backed tests run a
// second time against that PostgreSQL server (project "postgres").
import { defineConfig } from 'vitest/config';

const shared = { testTimeout: 30_000, hookTimeout: 60_000 };
const postgres = process.env.TEST_DATABASE_URL
  ? [
      {
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
  test: {
    projects: [{ test: { ...shared, name: 'pglite', include: ['test/**/*.test.ts'] } }, ...postgres],
  },
});
