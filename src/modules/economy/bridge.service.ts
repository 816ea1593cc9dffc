// The coin bridge (spec "Economy": GET /api/economy/bridge/rate, POST /api/economy/bridge/convert):
// coins convert into API credits at BRIDGE_COINS_PER_CREDIT, through a credit partner (a port,
// credit-partner.ts). Every conversion runs the same way whatever the partner:
//   1. a BridgeConversion row and a pending ledger transfer of the coins (account -> bridge) are
//      written together: the coins are held, so they cannot be spent twice, and nothing is lost;
//   2. the partner is asked to add the credits, with the conversion id as its idempotency key;
//   3. it confirms: the hold is posted (the coins are burned); it refuses: the hold is voided (the
//      coins are free again); no answer: the conversion stays pending and the background sweep asks
//      again (the same key, so the partner adds the credits once), until it answers or the retry
//      horizon passes (then the hold is voided and the conversion is failed).
// Rounding: credits are rounded down to whole minor units (0.0001 credit) and only the coins that
// make them are burned (rounded up to a minor unit, never more than asked).
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../../platform/database/database.js';
import { AppError, Conflict, InvalidInput, NotFound } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { requireKey } from '../access/index.js';
import { fromMinor, LedgerAction, UNITS_PER_WHOLE, type LedgerService } from '../ledger/index.js';
import type { BridgeConversion, BridgeConversionStatus } from '../../generated/prisma/client.js';
import { ECONOMY_READ, ECONOMY_SPEND } from './economy.access.js';
import { convertSchema, linkSchema } from './economy.input.js';
import type { CreditPartner, PartnerAnswer } from './credit-partner.js';

export const CONVERSION_STATUSES = ['pending', 'completed', 'refused', 'failed'] as const satisfies readonly BridgeConversionStatus[];
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

/** How long a conversion's coins may stay held: past the retry horizon, so the ledger's sweep of expired holds never releases them first. */
export const HOLD_MS = 30 * 24 * 3_600_000;
/** How long the sweep keeps asking a partner that does not answer before it gives up and releases the coins. */
export const RETRY_HORIZON_MS = 24 * 3_600_000;
/** Waits before the 2nd, 3rd ... attempt; hourly after the last. */
export const RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000, 3_600_000];
/** A delivery in progress keeps the sweep off its conversion this long. */
const CLAIM_MS = 120_000;

export interface ConversionView {
  id: string;
  status: ConversionStatus;
  partner: 'local' | 'http';
  partnerAccount: string | null;
  /** Coins burned (completed), or held to be burned (pending); 0 when refused or failed. */
  coinsBurned: number;
  /** Credits added (completed), or to be added (pending); 0 when refused or failed. */
  creditsAdded: number;
  coinsPerCredit: number;
  /** The account's spendable coins now (held coins not included). */
  newBalance: number;
  /** The account's coins held now (this conversion's while it is pending, a bounty's escrow ...). */
  held: number;
  /** True when this idempotency key converted before (nothing more happened now). */
  replayed: boolean;
  /** Pending: why the partner has not confirmed yet; refused or failed: why. */
  message: string | null;
  attempts: number;
  createdAt: Date;
  completedAt: Date | null;
}

export interface BridgeRateView {
  coinsPerCredit: number;
  partner: 'local' | 'http';
  /** Whether the caller can convert now (local: always; http: once a partner account is linked). */
  linked: boolean;
  partnerAccount: string | null;
  /** The fewest coins that make one minor unit (0.0001) of credits. */
  minimumCoins: number;
}

export interface BridgeLinkView {
  partner: 'local' | 'http';
  partnerAccount: string;
  linkedAt: Date;
}

/** Credits (rounded down to minor units) for some coins, and the coins that make them (rounded up, never above the coins given). All minor units. */
export function conversionAmounts(coinsMinor: number, coinsPerCredit: number): { coins: number; credits: number } {
  const units = BigInt(UNITS_PER_WHOLE);
  const rate = BigInt(Math.round(coinsPerCredit * UNITS_PER_WHOLE));
  const credits = (BigInt(coinsMinor) * units) / rate;
  const coins = (credits * rate + units - 1n) / units;
  return { coins: Number(coins), credits: Number(credits) };
}

/** The fewest coins (minor units) that make one minor unit of credits. */
export function minimumCoinsMinor(coinsPerCredit: number): number {
  return Math.ceil(Math.round(coinsPerCredit * UNITS_PER_WHOLE) / UNITS_PER_WHOLE);
}

/** The conversion id: derived from the account and the caller's idempotency key, or random without one. */
export function conversionId(accountId: number, idempotencyKey: string | null | undefined): string {
  if (!idempotencyKey) return `cv_${randomUUID().replace(/-/g, '')}`;
  return `cv_${createHash('sha256').update(`${accountId}:${idempotencyKey}`).digest('hex').slice(0, 32)}`;
}

/** The pending ledger transfer that holds a conversion's coins. */
export const holdTransferId = (conversion: string) => `bridge:${conversion}`;

export class BridgeService {
  constructor(
    private readonly db: Database,
    private readonly ledger: LedgerService,
    private readonly partner: CreditPartner,
    private readonly coinsPerCredit: number,
    private readonly logger: Logger,
  ) {}

  /** GET /api/economy/bridge/rate. */
  async rate(actor: Actor | null): Promise<BridgeRateView> {
    const checked = requireKey(actor, ECONOMY_READ);
    const link = await this.db.prisma.bridgeLink.findUnique({ where: { accountId: checked.accountId } });
    return {
      coinsPerCredit: this.coinsPerCredit,
      partner: this.partner.kind,
      linked: !this.partner.needsLink || link !== null,
      partnerAccount: link?.partnerAccount ?? null,
      minimumCoins: fromMinor(minimumCoinsMinor(this.coinsPerCredit)),
    };
  }

  /**
   * POST /api/economy/bridge/link: the caller's account at the credit partner (replaces an earlier
   * one; conversions keep the account they were made with). Under the local partner it is kept for
   * when the partner becomes http; credits land in this service meanwhile.
   */
  async link(actor: Actor | null, input: { partner_account?: unknown }): Promise<BridgeLinkView> {
    const checked = requireKey(actor, ECONOMY_SPEND);
    const { partner_account } = parseInput(linkSchema, input);
    const link = await this.db.prisma.bridgeLink.upsert({
      where: { accountId: checked.accountId },
      create: { accountId: checked.accountId, partnerAccount: partner_account },
      update: { partnerAccount: partner_account },
    });
    return { partner: this.partner.kind, partnerAccount: link.partnerAccount, linkedAt: link.updatedAt };
  }

  /**
   * POST /api/economy/bridge/convert. Answers the conversion completed, or pending when the partner
   * did not answer (its coins are held and the sweep asks again). 402 without the coins; 409 without
   * a linked partner account (http), when the partner refuses, or for an idempotency key used for
   * another amount. A repeat with the same idempotency key answers the first conversion (`replayed`).
   */
  async convert(actor: Actor | null, input: { coins?: unknown; idempotency_key?: unknown }): Promise<ConversionView> {
    const checked = requireKey(actor, ECONOMY_SPEND);
    const { coins: requested, idempotency_key } = parseInput(convertSchema, input);
    const amounts = conversionAmounts(requested, this.coinsPerCredit);
    if (amounts.credits === 0) {
      const minimum = fromMinor(minimumCoinsMinor(this.coinsPerCredit));
      throw new InvalidInput(`coins: ${fromMinor(requested)} coins make no whole 0.0001 credit at ${this.coinsPerCredit} coins per credit; convert at least ${minimum} coins`, 'coins');
    }
    const id = conversionId(checked.accountId, idempotency_key);
    let partnerAccount: string | null = null;
    if (this.partner.needsLink) {
      const link = await this.db.prisma.bridgeLink.findUnique({ where: { accountId: checked.accountId } });
      if (!link) {
        throw new Conflict(
          'no partner account linked: coins convert into credits on your account at the credit partner; link it first with POST /api/economy/bridge/link {"partner_account": "..."} (GraphQL linkBridgeAccount)',
          'partner_account',
        );
      }
      partnerAccount = link.partnerAccount;
    }
    const now = new Date();
    const created = await this.db.prisma.$transaction(async (tx) => {
      // The row first: a concurrent conversion with the same key waits here, then finds it.
      const { count } = await tx.bridgeConversion.createMany({
        data: [
          {
            id,
            accountId: checked.accountId,
            partner: this.partner.kind,
            partnerAccount,
            coinsRequested: requested,
            coins: amounts.coins,
            credits: amounts.credits,
            rate: this.coinsPerCredit,
            status: 'pending',
            nextAttemptAt: new Date(now.getTime() + CLAIM_MS),
          },
        ],
        skipDuplicates: true,
      });
      if (count === 0) return false;
      await this.ledger.transfer(
        { id: holdTransferId(id), currency: 'coins', from: { account: checked.accountId }, to: { system: 'bridge' }, amount: amounts.coins, action: LedgerAction.BridgeConvert, reference: id, pending: { expiresInMs: HOLD_MS } },
        { tx },
      );
      return true;
    });
    let row = await this.row(id);
    if (!created && Number(row.coinsRequested) !== requested) {
      throw new Conflict('idempotency_key: this key converted another amount before', 'idempotency_key');
    }
    // A repeat of a conversion still pending asks the partner again (the same idempotency key).
    if (row.status === 'pending') row = await this.attempt(row);
    if (row.status === 'refused' || row.status === 'failed') throw new Conflict(`${row.lastError ?? 'the credit partner refused the conversion'}; no coins were spent`);
    return this.view(row, !created);
  }

  /** One conversion of the caller's (404 for another account's or a missing one). */
  async conversion(actor: Actor | null, id: string): Promise<ConversionView> {
    const checked = requireKey(actor, ECONOMY_READ);
    const row = await this.db.prisma.bridgeConversion.findFirst({ where: { id, accountId: checked.accountId } });
    if (!row) throw new NotFound(`no conversion ${id.slice(0, 100)}`);
    return this.view(row, false);
  }

  /**
   * The background sweep: asks the partner again about conversions that are due (claimed with
   * SKIP LOCKED, so several processes share the work), and gives up on those past the retry horizon.
   * Returns how many it settled (completed, refused or failed).
   */
  async retryDue(limit = 20): Promise<number> {
    const claimed = await this.db.query<{ id: string }>(
      `UPDATE "BridgeConversion" SET "nextAttemptAt" = timezone('UTC', now()) + make_interval(secs => $2::double precision / 1000)
       WHERE "id" IN (SELECT "id" FROM "BridgeConversion" WHERE "status" = 'pending' AND "nextAttemptAt" <= timezone('UTC', now())
                      ORDER BY "nextAttemptAt" LIMIT $1 FOR UPDATE SKIP LOCKED)
       RETURNING "id"`,
      [limit, CLAIM_MS],
    );
    let settled = 0;
    for (const { id } of claimed) {
      try {
        let row = await this.row(id);
        if (row.status !== 'pending') continue;
        row = Date.now() - row.createdAt.getTime() > RETRY_HORIZON_MS ? await this.giveUp(row) : await this.attempt(row);
        if (row.status !== 'pending') settled++;
      } catch (error) {
        this.logger.warn({ err: error, conversion: id }, 'retrying a coin conversion failed');
      }
    }
    return settled;
  }

  /** Asks the partner once and settles the conversion by its answer. */
  private async attempt(row: BridgeConversion): Promise<BridgeConversion> {
    let answer: PartnerAnswer;
    try {
      answer = await this.partner.deliver({
        conversionId: row.id,
        accountId: row.accountId,
        partnerAccount: row.partnerAccount,
        creditsMinor: Number(row.credits),
        credits: fromMinor(row.credits),
        coins: fromMinor(row.coins),
        coinsPerCredit: row.rate,
        createdAt: row.createdAt,
      });
    } catch (error) {
      this.logger.warn({ err: error, conversion: row.id }, 'delivering a coin conversion failed');
      answer = { outcome: 'unknown', reason: 'the credits could not be added yet' };
    }
    return this.settle(row, answer);
  }

  private async settle(row: BridgeConversion, answer: PartnerAnswer): Promise<BridgeConversion> {
    const attempts = row.attempts + 1;
    if (answer.outcome === 'confirmed') {
      try {
        await this.ledger.post(holdTransferId(row.id));
      } catch (error) {
        if (!(error instanceof AppError && error.status === 409)) throw error;
        // The hold was released before the partner confirmed (it expired): the partner added credits the coins no longer pay for.
        this.logger.error({ conversion: row.id }, 'the credit partner confirmed a conversion whose coins were already released');
        return this.finish(row, { status: 'failed', attempts, lastError: 'the credit partner confirmed after the coins were released' });
      }
      return this.finish(row, { status: 'completed', attempts, partnerReference: answer.reference, completedAt: new Date(), lastError: null });
    }
    if (answer.outcome === 'refused') {
      await this.release(row);
      return this.finish(row, { status: 'refused', attempts, lastError: `the credit partner refused the conversion: ${answer.reason}` });
    }
    const delay = RETRY_DELAYS_MS[Math.min(attempts - 1, RETRY_DELAYS_MS.length - 1)]!;
    return this.finish(row, { attempts, lastError: answer.reason, nextAttemptAt: new Date(Date.now() + delay) });
  }

  private async giveUp(row: BridgeConversion): Promise<BridgeConversion> {
    await this.release(row);
    return this.finish(row, {
      status: 'failed',
      lastError: `the credit partner did not answer for ${RETRY_HORIZON_MS / 3_600_000} hours (last: ${row.lastError ?? 'no answer'}); the coins were released`,
    });
  }

  /** Voids the hold (a hold posted meanwhile stays posted: then the conversion is not released). */
  private async release(row: BridgeConversion): Promise<void> {
    await this.ledger.void(holdTransferId(row.id));
  }

  /** Writes the outcome while the conversion is still pending (a concurrent settle that came first wins), and reads the row back. */
  private async finish(row: BridgeConversion, change: Partial<Pick<BridgeConversion, 'status' | 'attempts' | 'lastError' | 'nextAttemptAt' | 'partnerReference' | 'completedAt'>>): Promise<BridgeConversion> {
    const data = change.status && change.status !== 'pending' ? { ...change, nextAttemptAt: null } : change;
    await this.db.prisma.bridgeConversion.updateMany({ where: { id: row.id, status: 'pending' }, data });
    return this.row(row.id);
  }

  private async row(id: string): Promise<BridgeConversion> {
    return this.db.prisma.bridgeConversion.findUniqueOrThrow({ where: { id } });
  }

  private async view(row: BridgeConversion, replayed: boolean): Promise<ConversionView> {
    const moved = row.status === 'completed' || row.status === 'pending';
    const balance = await this.ledger.balance(row.accountId, 'coins');
    return {
      id: row.id,
      status: row.status,
      partner: row.partner === 'http' ? 'http' : 'local',
      partnerAccount: row.partnerAccount,
      coinsBurned: moved ? fromMinor(row.coins) : 0,
      creditsAdded: moved ? fromMinor(row.credits) : 0,
      coinsPerCredit: row.rate,
      newBalance: balance.balance,
      held: balance.held,
      replayed,
      message: row.status === 'completed' ? null : row.lastError,
      attempts: row.attempts,
      createdAt: row.createdAt,
      completedAt: row.completedAt,
    };
  }
}
