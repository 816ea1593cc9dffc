// Caps on how many of a thing an owner may have (sub-keys, webhooks, schedules per account; link
// codes; items per stock list), held under concurrency on every process. A count and an insert in
// separate statements race on PostgreSQL (each request sees the count below the cap and inserts:
// 130 sub-keys under a cap of 100); PGlite hid it with its single connection. So every capped
// create counts and inserts in one transaction that first takes a transaction-scoped advisory lock
// keyed by (cap, owner): creates for one owner run one after the other, other owners and every
// reader are not held up, and the lock goes with the transaction (commit, rollback or a dropped
// connection). Keyed by the cap's name, so two caps of one owner do not wait for each other.
import type { Prisma } from '../../generated/prisma/client.js';
import type { AppError } from '../errors.js';
import type { Database } from './database.js';

export interface CapKey {
  /** Which cap (`sub-keys`, `webhooks` ...): its own lock space. */
  name: string;
  /** Whose: the account (or list) the cap counts for. */
  ownerId: number;
}

/** Long enough for a burst of creates to queue on one owner's lock (Prisma's defaults are 2 s and 5 s). */
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 15_000 };

/** Runs `fn` in a transaction holding the cap's lock: count and insert inside it, through `tx`. */
export function withCapLock<T>(db: Database, cap: CapKey, fn: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return db.prisma.$transaction(async (tx) => {
    // pg_advisory_xact_lock(int, int) returns void, which Prisma cannot read: select a constant beside it.
    await tx.$queryRaw`SELECT 1 AS locked FROM (SELECT pg_advisory_xact_lock(hashtext(${`cap:${cap.name}`}), ${cap.ownerId}::int)) AS l`;
    return fn(tx);
  }, TRANSACTION_OPTIONS);
}

export interface CappedCreate<T> extends CapKey {
  limit: number;
  /** How many the owner has now (read inside the locked transaction). */
  count: (tx: Prisma.TransactionClient) => Promise<number>;
  /** The error for an owner at the cap (a 409 naming the cap). */
  refuse: (count: number) => AppError;
  create: (tx: Prisma.TransactionClient) => Promise<T>;
}

/** Creates one thing unless the owner already has `limit` of them. */
export function createWithinCap<T>(db: Database, capped: CappedCreate<T>): Promise<T> {
  return withCapLock(db, capped, async (tx) => {
    const count = await capped.count(tx);
    if (count >= capped.limit) throw capped.refuse(count);
    return capped.create(tx);
  });
}
