// Which failures mean "the database cannot be reached right now" (answered 503), judged on the
// errors the real drivers raise against a port where no server listens.
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { describe, expect, it } from 'vitest';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { isDatabaseUnavailable } from '../../src/platform/database/unavailable.js';

const NOWHERE = 'postgresql://postgres@127.0.0.1:1/test';

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('isDatabaseUnavailable', () => {
  it('knows a refused connection from pg and from Prisma over its pg adapter', async () => {
    const pool = new pg.Pool({ connectionString: NOWHERE, connectionTimeoutMillis: 2_000 });
    pool.on('error', () => {});
    const prisma = new PrismaClient({ adapter: new PrismaPg(new pg.Pool({ connectionString: NOWHERE, connectionTimeoutMillis: 2_000 })) });
    try {
      expect(isDatabaseUnavailable(await caught(() => pool.query('SELECT 1')))).toBe(true);
      expect(isDatabaseUnavailable(await caught(() => prisma.account.count()))).toBe(true);
    } finally {
      await pool.end();
      await prisma.$disconnect();
    }
  });

  it('knows a server that is shutting down or restarting (PostgreSQL codes), also as a cause', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('x'), { code: '57P03' }) }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('leaves other failures alone: they are bugs or the caller\'s mistakes', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
