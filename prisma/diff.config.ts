// Used only by `npm run db:diff`: Prisma's JS schema engine, run against a throw-away in-memory PGlite,
// prints the SQL between two schema versions without any native engine.
import { defineConfig } from 'prisma/config';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: './schema.prisma',
  adapter: async () => new PrismaPGlite(new PGlite()),
});
