// A migrated database for the ledger's service-level tests (in-memory PGlite, or a fresh PostgreSQL
// database under TEST_DB=postgres), with accounts made in SQL and the ledger's invariants as checks.
import { expect } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/database/database.js';
import { migrate, readMigrations } from '../../src/platform/database/migrate.js';
import { MIGRATIONS_DIR } from '../../src/core.js';
import { createTestDatabase } from '../helpers/database.js';
import { LedgerService, CURRENCIES } from '../../src/modules/ledger/index.js';

export interface LedgerTestDb {
  db: Database;
  ledger: LedgerService;
  /** New accounts, by id. */
  accounts(n: number, prefix?: string): Promise<number[]>;
  close(): Promise<void>;
}

let made = 0;

export async function openLedgerTestDb(): Promise<LedgerTestDb> {
  const database = await createTestDatabase();
  const db = await openDatabase({ databaseUrl: database.url });
  await migrate(db, readMigrations(MIGRATIONS_DIR));
  return {
    db,
    ledger: new LedgerService(db),
    accounts: async (n, prefix = 'acct') => {
      const rows = await db.query<{ id: number }>(
        `INSERT INTO "Account" (handle, "updatedAt") SELECT $1 || '-' || i, now() FROM generate_series($2::int, $3::int) AS i RETURNING id`,
        [prefix, made + 1, made + n],
      );
      made += n;
      return rows.map((r) => r.id);
    },
    close: async () => {
      await db.close();
      await database.drop();
    },
  };
}

/**
 * The ledger's invariants, read from the tables: no user wallet below zero; each wallet's stored
 * totals equal the sums of its transfers (posted ones for the posted totals, open pending ones for
 * the pending totals); each currency sums to zero over all ledger accounts.
 */
export async function expectLedgerInvariants({ db, ledger }: Pick<LedgerTestDb, 'db' | 'ledger'>): Promise<void> {
  const negative = await db.query(`SELECT id FROM "LedgerAccount" WHERE "system" IS NULL AND "creditsPosted" - "debitsPosted" - "debitsPending" < 0`);
  expect(negative).toEqual([]);
  const mismatched = await db.query(`
    WITH sums AS (
      SELECT a."id",
        coalesce(sum(t."amount") FILTER (WHERE t."debitAccountId" = a."id" AND t."kind" IN ('single', 'post')), 0) AS debits_posted,
        coalesce(sum(t."amount") FILTER (WHERE t."creditAccountId" = a."id" AND t."kind" IN ('single', 'post')), 0) AS credits_posted,
        coalesce(sum(t."amount") FILTER (WHERE t."debitAccountId" = a."id" AND t."kind" = 'pending' AND t."open"), 0) AS debits_pending,
        coalesce(sum(t."amount") FILTER (WHERE t."creditAccountId" = a."id" AND t."kind" = 'pending' AND t."open"), 0) AS credits_pending
      FROM "LedgerAccount" a LEFT JOIN "LedgerTransfer" t ON a."id" IN (t."debitAccountId", t."creditAccountId")
      WHERE a."system" IS NULL
      GROUP BY a."id")
    SELECT a."id"::text FROM "LedgerAccount" a JOIN sums s ON s."id" = a."id"
    WHERE a."debitsPosted" <> s.debits_posted OR a."creditsPosted" <> s.credits_posted
       OR a."debitsPending" <> s.debits_pending OR a."creditsPending" <> s.credits_pending`);
  expect(mismatched).toEqual([]);
  for (const currency of CURRENCIES) expect(await ledger.trialBalance(currency), currency).toBe(0);
}
