// The one ledger for money (coins and API credits), after TigerBeetle's model: double entry
// (each transfer debits one ledger account and credits another by the same amount), transfer ids
// that are idempotency keys, integer minor units (money.ts), pending transfers that reserve the
// debit side's funds until posted or voided, and linked batches that commit all or nothing.
//
// Every write is one statement: the ledger_apply() SQL function (prisma/migrations/*_ledger) takes
// the whole batch as JSON, so a transfer costs one round trip, and with `tx` it runs inside the
// caller's Prisma interactive transaction (a paid operation's own row and its charge commit
// together). User wallets can never go below zero: a CHECK constraint on their stored totals
// refuses it, whatever SQL writes them. System accounts (rewards, grants, fees, escrow, bridge)
// keep no totals in their row, so the rewards account is not one hot row every reward locks:
// their balance is summed from the transfers, and may be negative (rewards is minus all it issued).
import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { utcFromJson, type Database } from '../../platform/database/database.js';
import { AppError, Conflict, InvalidInput, NotFound } from '../../platform/errors.js';
import { pageArgs, parseInput } from '../../platform/validation.js';
import { randomUUID } from 'node:crypto';
import { CURRENCIES, SYSTEM_ACCOUNTS, fromMinor, type Currency, type SystemAccount } from './money.js';
import { InsufficientFunds } from './ledger.errors.js';
import { LEDGER_ACTION_FORMAT, LedgerAction, type LedgerActionName } from './ledger-actions.js';

/** A Prisma interactive transaction: ledger writes given one join it. */
export type Tx = Prisma.TransactionClient;

export interface LedgerOptions {
  tx?: Tx;
}

/** One side of a transfer: a user's wallet (by account id) or a system account. */
export type Party = { account: number } | { system: SystemAccount };

export interface TransferRequest {
  /** Idempotency key: a retry with the same id and fields applies once; other fields answer 409. */
  id: string;
  currency: Currency;
  from: Party;
  to: Party;
  /** Minor units, > 0. */
  amount: number;
  /** What the money is for: a name of the table (ledger-actions.ts). */
  action: LedgerActionName;
  reference?: string | null;
  /** Reserve instead of moving: the debit side's funds are held until post() or void(). */
  pending?: { expiresInMs: number };
}

/** One element of a linked batch: a transfer, or the post or void of a pending one. */
export type LedgerOperation = TransferRequest | { post: string } | { void: string };

export type TransferKind = 'single' | 'pending' | 'post' | 'void';

export interface Transfer {
  id: string;
  /** Order of writing (history is newest first by it). */
  seq: number;
  kind: TransferKind;
  currency: Currency;
  amount: number;
  debitAccountId: number;
  creditAccountId: number;
  /** post and void transfers: the pending transfer they resolve. */
  pendingId: string | null;
  action: string;
  reference: string | null;
  expiresAt: Date | null;
  createdAt: Date;
  /** True when this call found the transfer already written (nothing moved this time). */
  replayed: boolean;
}

/** A user wallet after a write (minor units). */
export interface WalletState {
  accountId: number;
  currency: Currency;
  balance: number;
  reserved: number;
}

export interface ApplyResult {
  transfers: Transfer[];
  /** User wallets whose totals this call changed, after the change. */
  wallets: WalletState[];
}

export interface Wallet {
  accountId: number;
  currency: Currency;
  /** Posted credits minus posted debits. */
  balance: number;
  /** Held by pending transfers. */
  reserved: number;
  /** What a new transfer may spend: balance minus reserved. */
  available: number;
  totalCredited: number;
  totalDebited: number;
}

/**
 * A wallet as its owner is shown it (in coins or credits, not minor units): every `balance` the API
 * and the bot answer is this `balance`, what a new payment may spend; what pending transfers reserve
 * (a bounty's escrow, a conversion waiting for the credit partner, an analysis in progress) is
 * `held` beside it, so `balance + held` is the posted total.
 */
export interface Balance {
  balance: number;
  held: number;
}

/** The shown balance of a wallet's totals (minor units in, coins or credits out). */
export function balanceOf(wallet: { balance: number; reserved: number }): Balance {
  return { balance: fromMinor(wallet.balance - wallet.reserved), held: fromMinor(wallet.reserved) };
}

/** What an operator's grant answers (amounts in coins or credits). */
export interface GrantResult extends Balance {
  transferId: string;
  amount: number;
  replayed: boolean;
}

/** A posted movement on a wallet: positive in, negative out. */
export interface WalletEntry {
  seq: number;
  transferId: string;
  kind: 'single' | 'post';
  amount: number;
  action: string;
  reference: string | null;
  createdAt: Date;
}

const ID_PATTERN = /^[\x21-\x7e]{1,200}$/;
const partySchema = z.union([
  z.object({ account: z.number().int().positive() }).strict(),
  z.object({ system: z.enum(SYSTEM_ACCOUNTS) }).strict(),
]);
const transferSchema = z
  .object({
    id: z.string().regex(ID_PATTERN, 'expected 1 to 200 printable characters without spaces'),
    currency: z.enum(CURRENCIES),
    from: partySchema,
    to: partySchema,
    amount: z.number().int('expected whole minor units').positive('expected a positive amount').max(Number.MAX_SAFE_INTEGER),
    action: z.string().regex(LEDGER_ACTION_FORMAT, 'expected 1 to 64 of a-z, 0-9, _ . : -'),
    reference: z.string().max(500, 'expected at most 500 characters').nullish(),
    pending: z.object({ expiresInMs: z.number().int().positive() }).optional(),
  })
  .refine((t) => JSON.stringify(t.from) !== JSON.stringify(t.to), { message: 'from and to are the same account', path: ['to'] });

const pageSchema = z.object(pageArgs(200, 50));

/** A transfer row as the SQL functions answer it (to_jsonb: column names; timestamps without zone). */
type RawTransfer = Omit<Transfer, 'expiresAt' | 'createdAt'> & { expiresAt: string | null; createdAt: string };

interface RawApply {
  transfers: RawTransfer[];
  wallets: Array<{ owner: number; currency: Currency; balance: number; reserved: number }>;
}

export type Leg =
  | {
      op: 'transfer';
      id: string;
      currency: Currency;
      debit_owner?: number;
      debit_system?: SystemAccount;
      credit_owner?: number;
      credit_system?: SystemAccount;
      amount: number;
      pending: boolean;
      expires_at: string | null;
      action: string;
      reference: string | null;
    }
  | { op: 'post' | 'void'; id: string };

const utc = utcFromJson;

function toTransfer(raw: RawTransfer): Transfer {
  return { ...raw, expiresAt: raw.expiresAt ? utc(raw.expiresAt) : null, createdAt: utc(raw.createdAt) };
}

function toLeg(request: z.output<typeof transferSchema>, now: number): Leg {
  const side = (prefix: 'debit' | 'credit', party: Party) =>
    'account' in party ? { [`${prefix}_owner`]: party.account } : { [`${prefix}_system`]: party.system };
  return {
    op: 'transfer',
    id: request.id,
    currency: request.currency,
    ...side('debit', request.from),
    ...side('credit', request.to),
    amount: request.amount,
    pending: request.pending !== undefined,
    expires_at: request.pending ? new Date(now + request.pending.expiresInMs).toISOString() : null,
    action: request.action,
    reference: request.reference ?? null,
  };
}

/** code, message and detail of a database error, from pg, PGlite or Prisma's wrapping of either. */
function databaseError(error: unknown): { code?: string; message?: string; detail?: string } {
  const meta = (error as { meta?: { driverAdapterError?: { cause?: Record<string, unknown> } } }).meta;
  const cause = meta?.driverAdapterError?.cause ?? (error as { cause?: Record<string, unknown> }).cause;
  if (cause && typeof cause === 'object' && ('originalCode' in cause || 'code' in cause)) {
    return {
      code: String(cause.originalCode ?? cause.code),
      message: String(cause.originalMessage ?? cause.message ?? ''),
      detail: typeof cause.detail === 'string' ? cause.detail : undefined,
    };
  }
  const direct = error as { code?: unknown; message?: string; detail?: unknown };
  return { code: typeof direct.code === 'string' ? direct.code : undefined, message: direct.message, detail: typeof direct.detail === 'string' ? direct.detail : undefined };
}

/** The ledger's SQL errors as service errors; anything else unchanged. */
function ledgerError(error: unknown): unknown {
  const { code, message, detail } = databaseError(error);
  switch (code) {
    case 'LG001': {
      const info = JSON.parse(detail ?? '{}') as { currency: Currency; needed: number; available: number };
      return new InsufficientFunds(info.currency, info.needed, info.available);
    }
    case 'LG002':
    case 'LG004':
      return new Conflict(message ?? 'transfer conflict');
    case 'LG003':
      return new NotFound(message ?? 'no such transfer');
    case '23503':
      return new NotFound('no such account');
    default:
      return error;
  }
}

export class LedgerService {
  constructor(private readonly db: Database) {}

  /** Moves (or, pending, reserves) an amount; idempotent by `id`. */
  async transfer(request: TransferRequest, options: LedgerOptions = {}): Promise<{ transfer: Transfer; wallets: WalletState[] }> {
    const { transfers, wallets } = await this.transferLinked([request], options);
    return { transfer: transfers[0]!, wallets };
  }

  /** Several transfers that commit together or not at all (checked as one: each wallet's net change must keep it >= 0). */
  async transferLinked(requests: TransferRequest[], options: LedgerOptions = {}): Promise<ApplyResult> {
    if (requests.length === 0) throw new InvalidInput('transfers: expected at least one');
    return this.apply(this.legsOf(requests), options);
  }

  /**
   * Transfers, posts and voids that commit together or not at all (a bounty claim posts its escrow
   * slot and pays the claimant from escrow in one batch).
   */
  async applyLinked(operations: LedgerOperation[], options: LedgerOptions = {}): Promise<ApplyResult> {
    if (operations.length === 0) throw new InvalidInput('transfers: expected at least one');
    return this.apply(this.legsOf(operations), options);
  }

  /**
   * The operator's grant: `amount` minor units from the grants account into a wallet. A repeat with
   * the same idempotency key grants once; the key with another account or amount is a 409.
   */
  async grant(currency: Currency, accountId: number, grant: { amount: number; reference?: string | null; idempotencyKey?: string | null }): Promise<GrantResult> {
    // Credit grants kept their first ids (grant:<key>) when coin grants came.
    const key = grant.idempotencyKey ?? randomUUID();
    const { transfer, wallets } = await this.transfer({
      id: currency === 'credits' ? `grant:${key}` : `grant:${currency}:${key}`,
      currency,
      from: { system: 'grants' },
      to: { account: accountId },
      amount: grant.amount,
      action: LedgerAction.Grant,
      reference: grant.reference || null,
    });
    return { transferId: transfer.id, amount: fromMinor(transfer.amount), ...(await this.balanceAfter(accountId, currency, wallets)), replayed: transfer.replayed };
  }

  /**
   * Transfers (linked), and the shown balance of one wallet after them, in one statement: from the
   * wallets they changed, or (a replay, which changes none) read beside them. With `guard`, an
   * INSERT (its parameters from $4) that decides whether they apply: they do when it wrote a row,
   * in its transaction (a refusal writes nothing); `applied` says whether it did.
   */
  async applyShowing(
    operations: LedgerOperation[],
    shown: { accountId: number; currency: Currency },
    guard?: { insert: string; params: unknown[] },
  ): Promise<{ applied: boolean; result: ApplyResult; balance: Balance }> {
    const apply = guard ? '(SELECT ledger_apply($1::jsonb) FROM guard)' : 'ledger_apply($1::jsonb)';
    const sql = `${guard ? `WITH guard AS (${guard.insert} RETURNING 1) ` : ''}SELECT ${apply}::text AS r,
                        (SELECT jsonb_build_object('balance', "creditsPosted" - "debitsPosted", 'reserved', "debitsPending")::text
                         FROM "LedgerAccount" WHERE "ownerId" = $2 AND "currency" = $3::"Currency") AS w`;
    let row: { r: string | null; w: string | null };
    try {
      [row] = (await this.db.query<{ r: string | null; w: string | null }>(sql, [JSON.stringify(this.legsOf(operations)), shown.accountId, shown.currency, ...(guard?.params ?? [])])) as [typeof row];
    } catch (error) {
      throw ledgerError(error);
    }
    const result = row.r ? this.resultOf(JSON.parse(row.r) as RawApply) : { transfers: [], wallets: [] };
    // The read beside ledger_apply() sees the wallet as the statement began: right when nothing moved.
    const changed = result.wallets.find((w) => w.accountId === shown.accountId && w.currency === shown.currency);
    const before = row.w ? (JSON.parse(row.w) as { balance: number; reserved: number }) : { balance: 0, reserved: 0 };
    return { applied: row.r !== null, result, balance: balanceOf(changed ?? before) };
  }

  /** Moves the reserved amount of a pending transfer; posting twice returns the first post. */
  async post(pendingId: string, options: LedgerOptions = {}): Promise<{ transfer: Transfer; wallets: WalletState[] }> {
    const { transfers, wallets } = await this.apply([{ op: 'post', id: pendingId }], options);
    return { transfer: transfers[0]!, wallets };
  }

  /** Releases a pending transfer's reservation; voiding twice returns the first void. */
  async void(pendingId: string, options: LedgerOptions = {}): Promise<{ transfer: Transfer; wallets: WalletState[] }> {
    const { transfers, wallets } = await this.apply([{ op: 'void', id: pendingId }], options);
    return { transfer: transfers[0]!, wallets };
  }

  /**
   * Runs a SQL function that answers JSON (ledger_apply, or one that calls it, such as
   * reward_award) on the caller's transaction or in a statement of its own, with the ledger's
   * errors mapped. For the ledger module's own services.
   */
  async call<T>(sql: string, params: unknown[], options: LedgerOptions = {}): Promise<T> {
    try {
      const rows = options.tx ? await options.tx.$queryRawUnsafe<Array<{ r: string }>>(sql, ...params) : await this.db.query<{ r: string }>(sql, params);
      return JSON.parse(rows[0]!.r) as T;
    } catch (error) {
      throw ledgerError(error);
    }
  }

  /**
   * The legs of transfers, posts and voids as ledger_apply() takes them (validated): for a SQL
   * function of another module that applies them in the same statement as its own writes.
   */
  legsOf(operations: LedgerOperation[]): Leg[] {
    const now = Date.now();
    return operations.map((operation) => {
      if ('post' in operation) return { op: 'post', id: operation.post };
      if ('void' in operation) return { op: 'void', id: operation.void };
      return toLeg(parseInput(transferSchema, operation) as z.output<typeof transferSchema>, now);
    });
  }

  /** Reads ledger_apply()'s answer. */
  resultOf(raw: RawApply): ApplyResult {
    return {
      transfers: raw.transfers.map(toTransfer),
      wallets: raw.wallets.map((w) => ({ accountId: w.owner, currency: w.currency, balance: w.balance, reserved: w.reserved })),
    };
  }

  private async apply(legs: Leg[], options: LedgerOptions): Promise<ApplyResult> {
    return this.resultOf(await this.call<RawApply>('SELECT ledger_apply($1::jsonb)::text AS r', [JSON.stringify(legs)], options));
  }

  /** A user's wallet in a currency (all zero before its first transfer). */
  async wallet(accountId: number, currency: Currency, options: LedgerOptions = {}): Promise<Wallet> {
    const sql = `SELECT "debitsPending"::text AS dp, "debitsPosted"::text AS dpo, "creditsPosted"::text AS cpo
                 FROM "LedgerAccount" WHERE "ownerId" = $1 AND "currency" = $2::"Currency"`;
    const rows = options.tx
      ? await options.tx.$queryRawUnsafe<Array<{ dp: string; dpo: string; cpo: string }>>(sql, accountId, currency)
      : await this.db.query<{ dp: string; dpo: string; cpo: string }>(sql, [accountId, currency]);
    const row = rows[0];
    const [reserved, debited, credited] = row ? [Number(row.dp), Number(row.dpo), Number(row.cpo)] : [0, 0, 0];
    const balance = credited - debited;
    return { accountId, currency, balance, reserved, available: balance - reserved, totalCredited: credited, totalDebited: debited };
  }

  /** What the account is shown of its wallet: the spendable balance and what pending transfers hold beside it. */
  async balance(accountId: number, currency: Currency, options: LedgerOptions = {}): Promise<Balance> {
    return balanceOf(await this.wallet(accountId, currency, options));
  }

  /** The shown balance after a write: from the wallets the write answered, read when it did not change this one (a replay). */
  async balanceAfter(accountId: number, currency: Currency, wallets: WalletState[], options: LedgerOptions = {}): Promise<Balance> {
    const state = wallets.find((w) => w.accountId === accountId && w.currency === currency);
    return state ? balanceOf(state) : this.balance(accountId, currency, options);
  }

  /** A wallet's posted movements, newest first. */
  async history(accountId: number, currency: Currency, page: { limit?: number; offset?: number } = {}): Promise<{ entries: WalletEntry[]; total: number; limit: number; offset: number }> {
    const { limit, offset } = parseInput(pageSchema, page);
    const [account] = await this.db.query<{ id: string }>(`SELECT "id"::text AS id FROM "LedgerAccount" WHERE "ownerId" = $1 AND "currency" = $2::"Currency"`, [accountId, currency]);
    if (!account) return { entries: [], total: 0, limit, offset };
    const id = account.id;
    // Two index range scans (debit side, credit side), each cut at offset + limit, merged.
    const side = (column: string, sign: string) =>
      `(SELECT "seq", "id", "kind", ${sign}"amount" AS amount, "action", "reference", "createdAt" FROM "LedgerTransfer"
        WHERE "${column}" = $1::bigint AND "kind" IN ('single', 'post') ORDER BY "seq" DESC LIMIT $2)`;
    const [rows, counts] = await Promise.all([
      this.db.query<{ seq: string; id: string; kind: 'single' | 'post'; amount: string; action: string; reference: string | null; created_at: string }>(
        `SELECT "seq"::text AS seq, id, kind, amount::text AS amount, action, reference, to_char("createdAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
         FROM (${side('debitAccountId', '-')} UNION ALL ${side('creditAccountId', '')}) AS e
         ORDER BY e."seq" DESC LIMIT $3 OFFSET $4`,
        [id, offset + limit, limit, offset],
      ),
      this.db.query<{ total: string }>(
        `SELECT count(*)::text AS total FROM "LedgerTransfer" WHERE ("debitAccountId" = $1::bigint OR "creditAccountId" = $1::bigint) AND "kind" IN ('single', 'post')`,
        [id],
      ),
    ]);
    return {
      entries: rows.map((r) => ({
        seq: Number(r.seq),
        transferId: r.id,
        kind: r.kind,
        amount: Number(r.amount),
        action: r.action,
        reference: r.reference,
        createdAt: new Date(r.created_at),
      })),
      total: Number(counts[0]?.total ?? 0),
      limit,
      offset,
    };
  }

  /** A system account's balance: summed from its transfers (its row keeps no totals). */
  async systemBalance(system: SystemAccount, currency: Currency): Promise<number> {
    const [row] = await this.db.query<{ balance: string }>(
      `WITH a AS (SELECT "id" FROM "LedgerAccount" WHERE "system" = $1::"LedgerSystemAccount" AND "currency" = $2::"Currency")
       SELECT (coalesce((SELECT sum("amount") FROM "LedgerTransfer" WHERE "creditAccountId" = (SELECT id FROM a) AND "kind" IN ('single', 'post')), 0)
             - coalesce((SELECT sum("amount") FROM "LedgerTransfer" WHERE "debitAccountId" = (SELECT id FROM a) AND "kind" IN ('single', 'post')), 0))::text AS balance`,
      [system, currency],
    );
    return Number(row?.balance ?? 0);
  }

  /**
   * The sum of every ledger account's balance in a currency (wallets' stored totals plus system
   * accounts' sums): zero unless the ledger is broken. Reads every wallet: for audits and tests.
   */
  async trialBalance(currency: Currency): Promise<number> {
    const [row] = await this.db.query<{ wallets: string; systems: string }>(
      `SELECT coalesce((SELECT sum("creditsPosted" - "debitsPosted") FROM "LedgerAccount" WHERE "system" IS NULL AND "currency" = $1::"Currency"), 0)::text AS wallets,
              coalesce((SELECT sum(CASE WHEN t."creditAccountId" = a."id" THEN t."amount" ELSE -t."amount" END)
                        FROM "LedgerAccount" a JOIN "LedgerTransfer" t ON a."id" IN (t."debitAccountId", t."creditAccountId")
                        WHERE a."system" IS NOT NULL AND a."currency" = $1::"Currency" AND t."kind" IN ('single', 'post')), 0)::text AS systems`,
      [currency],
    );
    return Number(row?.wallets ?? 0) + Number(row?.systems ?? 0);
  }

  /**
   * Voids pending transfers past their expiry, oldest first (at most `limit`), releasing what they
   * reserved. Until the sweep reaches one it can still be posted. Returns how many it voided.
   */
  async voidExpired(limit = 500): Promise<number> {
    const due = await this.db.query<{ id: string }>(
      `SELECT "id" FROM "LedgerTransfer" WHERE "open" AND "expiresAt" < timezone('UTC', now()) ORDER BY "expiresAt" LIMIT $1`,
      [limit],
    );
    let voided = 0;
    for (const { id } of due) {
      try {
        const { transfer } = await this.void(id);
        if (!transfer.replayed) voided++;
      } catch (error) {
        // Posted meanwhile: nothing to release.
        if (!(error instanceof AppError && error.status === 409)) throw error;
      }
    }
    return voided;
  }
}
