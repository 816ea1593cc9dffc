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
// With the embedded `local` partner, steps 1 to 3 are one statement (bridge_convert(): the row, the
// hold, the credits and the hold's post commit together); with http, step 1 is one statement and
// step 3 another (bridge_settle()), and no transaction stays open while the partner is asked.
// Rounding: credits are rounded down to whole minor units (0.0001 credit) and only the coins that
// make them are burned (rounded up to a minor unit, never more than asked).
import { createHash, randomUUID } from 'node:crypto';
import { utcFromJson, type Database } from '../../platform/database/database.js';
import { AppError, Conflict, InvalidInput, NotFound } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { requireKey } from '../access/index.js';
import { balanceOf, fromMinor, LedgerAction, UNITS_PER_WHOLE, type Balance, type LedgerService, type TransferRequest } from '../ledger/index.js';
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

/** Voids a conversion's hold: its coins are free again. */
const RELEASE = (row: BridgeConversion) => ({ void: holdTransferId(row.id) });

/** A conversion row and its account's coin wallet, as bridge_convert() and bridge_settle() answer them (to_jsonb). */
interface RawConversionState {
  row: Omit<BridgeConversion, 'coinsRequested' | 'coins' | 'credits' | 'nextAttemptAt' | 'createdAt' | 'updatedAt' | 'completedAt'> & {
    coinsRequested: number;
    coins: number;
    credits: number;
    nextAttemptAt: string | null;
    createdAt: string;
    updatedAt: string;
    completedAt: string | null;
  };
  wallet: { balance: number; reserved: number } | null;
}

interface ConversionState {
  row: BridgeConversion;
  /** The account's coins now. */
  coins: Balance;
}

function stateOf(raw: RawConversionState): ConversionState {
  const r = raw.row;
  const date = (text: string | null) => (text === null ? null : utcFromJson(text));
  return {
    row: {
      ...r,
      coinsRequested: BigInt(r.coinsRequested),
      coins: BigInt(r.coins),
      credits: BigInt(r.credits),
      nextAttemptAt: date(r.nextAttemptAt),
      createdAt: utcFromJson(r.createdAt),
      updatedAt: utcFromJson(r.updatedAt),
      completedAt: date(r.completedAt),
    },
    coins: balanceOf(raw.wallet ?? { balance: 0, reserved: 0 }),
  };
}

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
    // One statement: the row, the hold and, with a partner inside the ledger, the credits and the
    // hold's post (the conversion completes in the hold's transaction). A concurrent conversion with
    // the same key waits on the row's insert, then finds it.
    const hold: TransferRequest = {
      id: holdTransferId(id),
      currency: 'coins',
      from: { account: checked.accountId },
      to: { system: 'bridge' },
      amount: amounts.coins,
      action: LedgerAction.BridgeConvert,
      reference: id,
      pending: { expiresInMs: HOLD_MS },
    };
    const credits = this.partner.inLedger?.({ conversionId: id, accountId: checked.accountId, creditsMinor: amounts.credits });
    const row = {
      id,
      accountId: checked.accountId,
      partner: this.partner.kind,
      partnerAccount,
      coinsRequested: requested,
      coins: amounts.coins,
      credits: amounts.credits,
      rate: this.coinsPerCredit,
      nextAttemptAt: new Date(Date.now() + CLAIM_MS).toISOString(),
    };
    const legs = this.ledger.legsOf(credits ? [hold, credits, { post: hold.id }] : [hold]);
    const answer = await this.ledger.call<RawConversionState & { created: boolean }>('SELECT bridge_convert($1::jsonb, $2::jsonb, $3)::text AS r', [
      JSON.stringify(row),
      JSON.stringify(legs),
      credits ? credits.id : null,
    ]);
    let state = stateOf(answer);
    if (!answer.created && Number(state.row.coinsRequested) !== requested) {
      throw new Conflict('idempotency_key: this key converted another amount before', 'idempotency_key');
    }
    // A repeat of a conversion still pending asks the partner again (the same idempotency key).
    if (state.row.status === 'pending') state = await this.attempt(state.row);
    if (state.row.status === 'refused' || state.row.status === 'failed') throw new Conflict(`${state.row.lastError ?? 'the credit partner refused the conversion'}; no coins were spent`);
    return this.view(state.row, state.coins, !answer.created);
  }

  /** One conversion of the caller's (404 for another account's or a missing one). */
  async conversion(actor: Actor | null, id: string): Promise<ConversionView> {
    const checked = requireKey(actor, ECONOMY_READ);
    const row = await this.db.prisma.bridgeConversion.findFirst({ where: { id, accountId: checked.accountId } });
    if (!row) throw new NotFound(`no conversion ${id.slice(0, 100)}`);
    return this.view(row, await this.ledger.balance(row.accountId, 'coins'), false);
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
        const row = await this.db.prisma.bridgeConversion.findUniqueOrThrow({ where: { id } });
        if (row.status !== 'pending') continue;
        const after = Date.now() - row.createdAt.getTime() > RETRY_HORIZON_MS ? await this.giveUp(row) : await this.attempt(row);
        if (after.row.status !== 'pending') settled++;
      } catch (error) {
        this.logger.warn({ err: error, conversion: id }, 'retrying a coin conversion failed');
      }
    }
    return settled;
  }

  /** Asks the partner once and settles the conversion by its answer. */
  private async attempt(row: BridgeConversion): Promise<ConversionState> {
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

  private async settle(row: BridgeConversion, answer: PartnerAnswer): Promise<ConversionState> {
    const attempts = row.attempts + 1;
    if (answer.outcome === 'confirmed') {
      try {
        return await this.finish(row, { post: holdTransferId(row.id) }, { status: 'completed', attempts, partnerReference: answer.reference, completedAt: new Date(), lastError: null });
      } catch (error) {
        if (!(error instanceof AppError && error.status === 409)) throw error;
        // The hold was released before the partner confirmed (it expired): the partner added credits the coins no longer pay for.
        this.logger.error({ conversion: row.id }, 'the credit partner confirmed a conversion whose coins were already released');
        return this.finish(row, null, { status: 'failed', attempts, lastError: 'the credit partner confirmed after the coins were released' });
      }
    }
    if (answer.outcome === 'refused') {
      return this.finish(row, RELEASE(row), { status: 'refused', attempts, lastError: `the credit partner refused the conversion: ${answer.reason}` });
    }
    const delay = RETRY_DELAYS_MS[Math.min(attempts - 1, RETRY_DELAYS_MS.length - 1)]!;
    return this.finish(row, null, { attempts, lastError: answer.reason, nextAttemptAt: new Date(Date.now() + delay) });
  }

  private async giveUp(row: BridgeConversion): Promise<ConversionState> {
    return this.finish(row, RELEASE(row), {
      status: 'failed',
      lastError: `the credit partner did not answer for ${RETRY_HORIZON_MS / 3_600_000} hours (last: ${row.lastError ?? 'no answer'}); the coins were released`,
    });
  }

  /**
   * One statement: applies the hold's post or void (`hold`; a void of a hold posted meanwhile is a
   * 409, and then the conversion is not released) and writes the outcome while the conversion is
   * still pending (a concurrent settle that came first wins); answers the row as it is after.
   */
  private async finish(
    row: BridgeConversion,
    hold: { post: string } | { void: string } | null,
    change: Partial<Pick<BridgeConversion, 'status' | 'attempts' | 'lastError' | 'nextAttemptAt' | 'partnerReference' | 'completedAt'>>,
  ): Promise<ConversionState> {
    const data = change.status && change.status !== 'pending' ? { ...change, nextAttemptAt: null } : change;
    const raw = await this.ledger.call<RawConversionState>('SELECT bridge_settle($1, $2::jsonb, $3::jsonb)::text AS r', [
      row.id,
      hold ? JSON.stringify(this.ledger.legsOf([hold])) : null,
      JSON.stringify(data),
    ]);
    return stateOf(raw);
  }

  private view(row: BridgeConversion, balance: Balance, replayed: boolean): ConversionView {
    const moved = row.status === 'completed' || row.status === 'pending';
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
