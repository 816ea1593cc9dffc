// Where integration tests keep their data: in-memory PGlite by default; with TEST_DB=postgres a
// fresh database on the TEST_DATABASE_URL server for each app, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const usePostgres = process.env.TEST_DB === 'postgres';

export async function createTestDatabase(): Promise<{ url?: string; drop: () => Promise<void> }> {
  if (!usePostgres) return { drop: async () => {} };
  const admin = process.env.TEST_DATABASE_URL;
  if (!admin) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `t_${randomBytes(6).toString('hex')}`;
  await withClient(admin, (c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
