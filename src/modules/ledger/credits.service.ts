// API credits: what paid features spend, on the ledger in currency `credits`. The operator grants
// them (grants -> wallet); spending pays into the fees account (wallet -> fees). A paid operation
// either charges inside its own transaction (charge with tx), or holds the price while it works and
// then captures or releases it (hold / capture / release: a pending transfer), so the work is only
// paid for when it succeeded and two concurrent operations cannot spend the same credit.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseInput } from '../../platform/validation.js';
import { amountSchema, fromMinor, toMinor, type Currency } from './money.js';
import { InsufficientCredits, InsufficientFunds } from './ledger.errors.js';
import type { LedgerActionName } from './ledger-actions.js';
import { balanceOf, type Balance, type GrantResult, type LedgerOptions, type LedgerService, type Transfer, type WalletEntry } from './ledger.service.js';

export interface CreditEntryView {
  /** The entry's position in the ledger (an integer, newest highest). */
  id: number;
  /** The transfer's id (its idempotency key). */
  transferId: string;
  /** Credits: positive added, negative spent. */
  amount: number;
  action: string;
  reference: string | null;
  createdAt: Date;
}

export interface CreditSummary extends Balance {
  totalAdded: number;
  totalSpent: number;
  entries: CreditEntryView[];
  total: number;
  limit: number;
  offset: number;
}


/** A hold on credits for an operation in progress: capture it when the work succeeded, release it otherwise. */
export interface CreditHold {
  id: string;
  amount: number;
}

/**
 * The operator's grant of a currency (POST /api/admin/accounts/:handle/credits or /coins,
 * adminGrantCredits, adminGrantCoins).
 */
export const grantSchemaFor = (currency: Currency) =>
  z.object({
    amount: amountSchema(`amount is required: the ${currency} to add`).describe(`${currency} to add (at most 4 decimals)`),
    reference: z.string({ error: 'expected a string' }).trim().max(500, 'expected at most 500 characters').nullish().describe(`why (shown in the account's ${currency} history)`),
    idempotency_key: z
      .string({ error: 'expected a string' })
      .regex(/^[\x21-\x7e]{1,120}$/, 'expected 1 to 120 printable characters without spaces')
      .nullish()
      .describe('makes a retried grant count once'),
  });

export const grantSchema = grantSchemaFor('credits');
/** Longest a hold reserves credits before the sweep releases it. */
const DEFAULT_HOLD_MS = 10 * 60_000;

const entryView = (e: WalletEntry): CreditEntryView => ({
  id: e.seq,
  transferId: e.transferId,
  amount: fromMinor(e.amount),
  action: e.action,
  reference: e.reference,
  createdAt: e.createdAt,
});

export class CreditsService {
  constructor(private readonly ledger: LedgerService) {}

  /** GET /api/media/credits: the caller's balance, totals and entries (newest first). */
  async summary(actor: { accountId: number }, page: { limit?: number; offset?: number }): Promise<CreditSummary> {
    const [wallet, history] = await Promise.all([this.ledger.wallet(actor.accountId, 'credits'), this.ledger.history(actor.accountId, 'credits', page)]);
    return {
      ...balanceOf(wallet),
      totalAdded: fromMinor(wallet.totalCredited),
      totalSpent: fromMinor(wallet.totalDebited),
      entries: history.entries.map(entryView),
      total: history.total,
      limit: history.limit,
      offset: history.offset,
    };
  }

  /** Credits the account can spend now (balance minus holds). */
  async available(accountId: number): Promise<number> {
    return fromMinor((await this.ledger.wallet(accountId, 'credits')).available);
  }

  /**
   * The operator's grant. With an idempotency key, repeating the grant returns the first one
   * (the same key with another account or amount is a 409).
   */
  async grant(accountId: number, input: { amount: number; reference?: string | null; idempotency_key?: string | null }): Promise<GrantResult> {
    const { amount, reference, idempotency_key } = parseInput(grantSchema, input);
    return this.ledger.grant('credits', accountId, { amount, reference, idempotencyKey: idempotency_key });
  }

  /**
   * Spends credits at once (into fees), optionally inside the caller's transaction so that the
   * operation's own rows and the charge commit together. `id` makes a retry charge once.
   * Throws 402 InsufficientCredits.
   */
  async charge(accountId: number, charge: { id: string; credits: number; action: LedgerActionName; reference?: string | null }, options: LedgerOptions = {}): Promise<Transfer> {
    try {
      const { transfer } = await this.ledger.transfer(
        { id: charge.id, currency: 'credits', from: { account: accountId }, to: { system: 'fees' }, amount: this.minor(charge.credits), action: charge.action, reference: charge.reference },
        options,
      );
      return transfer;
    } catch (error) {
      throw asInsufficientCredits(error);
    }
  }

  /** Reserves the price of an operation about to run; 402 InsufficientCredits when the account cannot pay. */
  async hold(accountId: number, credits: number, what: { action: LedgerActionName; reference?: string | null; expiresInMs?: number }): Promise<CreditHold> {
    const amount = this.minor(credits);
    try {
      const { transfer } = await this.ledger.transfer({
        id: `hold:${randomUUID()}`,
        currency: 'credits',
        from: { account: accountId },
        to: { system: 'fees' },
        amount,
        action: what.action,
        reference: what.reference,
        pending: { expiresInMs: what.expiresInMs ?? DEFAULT_HOLD_MS },
      });
      return { id: transfer.id, amount: credits };
    } catch (error) {
      throw asInsufficientCredits(error);
    }
  }

  /** The operation succeeded: the held credits are spent. */
  async capture(hold: CreditHold): Promise<void> {
    await this.ledger.post(hold.id);
  }

  /** The operation did not happen: the held credits are free again. */
  async release(hold: CreditHold): Promise<void> {
    await this.ledger.void(hold.id);
  }

  private minor(credits: number): number {
    const minor = toMinor(credits);
    if (minor === undefined || minor <= 0) throw new RangeError(`a price in credits must be positive with at most 4 decimals, not ${credits}`);
    return minor;
  }
}

function asInsufficientCredits(error: unknown): unknown {
  return error instanceof InsufficientFunds && !(error instanceof InsufficientCredits) ? new InsufficientCredits(error.needed, error.available) : error;
}
