// Rewards (spec "Reward rates"): pays an action's rate in coins from the rewards account, once per
// (action, object, account): the transfer id is derived from them, so a repeated award pays nothing
// more and answers the first payment. A referred account's reward also pays its referrer the
// referral commission, linked (both or neither). Each action has a per-account daily cap (UTC
// days), counted in the same statement as the payment.
//
// Rates, factors and caps: defaults (reward-rates.ts) <- REWARD_RATES / REWARD_DAILY_CAPS <- the
// operator's changes through the admin API, stored in the Setting table so every process sees them
// (each process re-reads them after SETTINGS_CACHE_MS at most).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { parseInput } from '../../platform/validation.js';
import { fromMinor, toMinor, UNITS_PER_WHOLE } from './money.js';
import type { Balance, LedgerOptions, LedgerService } from './ledger.service.js';
import { rewardLedgerAction } from './ledger-actions.js';
import { capsPatchSchema, ratesPatchSchema, REWARD_ACTIONS, type RewardAction, type RewardCaps, type RewardRates } from './reward-rates.js';

export const SETTINGS_CACHE_MS = 5_000;
const SETTINGS_KEY = 'rewards';

export interface RewardSettings {
  rates: RewardRates;
  dailyCaps: RewardCaps;
  /** When the operator last changed them (null: never; configuration and defaults only). */
  updatedAt: Date | null;
}

export type AwardStatus = 'paid' | 'replayed' | 'capped' | 'unpaid';

export interface AwardResult extends Balance {
  /** paid: now; replayed: this award was paid before (nothing more now); capped: over today's cap, nothing paid; unpaid: the rate is 0. */
  status: AwardStatus;
  transferId: string;
  action: RewardAction;
  /** Coins paid to the account by this award (the first payment for a replay; 0 when capped or unpaid). */
  coins: number;
  /** The referrer's commission, when one was paid. */
  commission: { accountId: number; coins: number } | null;
  /** Paid awards of this action today (UTC) for the account, and the cap (null: none). */
  today: number;
  dailyCap: number | null;
  /** Why nothing was paid (capped, unpaid). */
  message?: string;
}

export interface AwardOptions extends LedgerOptions {
  /** During an active challenge: the challenge multiplier applies. */
  challenge?: boolean;
}

const awardSchema = z.object({
  accountId: z.number().int().positive(),
  action: z.enum(REWARD_ACTIONS as [RewardAction, ...RewardAction[]], { error: `expected one of ${REWARD_ACTIONS.join(', ')}` }),
  object: z.string().min(1, 'expected the rewarded object').max(500, 'expected at most 500 characters'),
});

/** The operator's change (PATCH /api/admin/rewards, adminUpdateRewards): either or both maps, merged over those in force. */
export const settingsPatchSchema = z
  .strictObject(
    {
      rates: ratesPatchSchema.optional().describe('e.g. {"tagging": 0.75, "coin_multiplier": 2}'),
      daily_caps: capsPatchSchema.optional().describe('e.g. {"wiki_vote": 100, "tagging": null}'),
    },
    { error: (issue) => (issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: unknown field; expected rates or daily_caps` : undefined) },
  )
  .refine((patch) => patch.rates !== undefined || patch.daily_caps !== undefined, { path: ['rates'], message: 'rates or daily_caps is required' });

interface StoredSettings {
  rates?: Partial<RewardRates>;
  daily_caps?: Partial<RewardCaps>;
}

interface RawAward {
  status: 'paid' | 'replayed' | 'capped';
  count: number;
  /** The account paid a commission by this award. */
  referrer?: number | null;
  transfers: Parameters<LedgerService['resultOf']>[0]['transfers'];
  wallets: Parameters<LedgerService['resultOf']>[0]['wallets'];
}

/** The award's transfer id: readable when short, a digest of the same parts when the object is long. */
export function awardTransferId(action: RewardAction, object: string, accountId: number): string {
  const readable = `reward:${action}:${accountId}:${object}`;
  if (/^[\x21-\x7e]{1,180}$/.test(readable)) return readable;
  return `reward:${action}:${accountId}:sha256:${createHash('sha256').update(object).digest('hex')}`;
}

/** Rate (coins) times the factors, in minor units, rounded down (integer arithmetic). */
export function rewardAmount(rate: number, multipliers: number[]): number {
  let amount = BigInt(toMinor(rate) ?? 0);
  for (const factor of multipliers) amount = (amount * BigInt(toMinor(factor) ?? 0)) / BigInt(UNITS_PER_WHOLE);
  return Number(amount);
}

export class RewardsService {
  private cached: { settings: RewardSettings; at: number } | null = null;

  constructor(
    private readonly db: Database,
    private readonly ledger: LedgerService,
    private readonly defaults: { rates: RewardRates; dailyCaps: RewardCaps },
    private readonly cacheMs = SETTINGS_CACHE_MS,
  ) {}

  /** Rates, factors and caps in force (read on `tx` when given: the embedded database has one connection). */
  async settings(options: LedgerOptions = {}): Promise<RewardSettings> {
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.settings;
    const sql = `SELECT "value", to_char("updatedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at FROM "Setting" WHERE "key" = $1`;
    type Row = { value: StoredSettings | string; updated_at: string };
    const [row] = options.tx ? await options.tx.$queryRawUnsafe<Row[]>(sql, SETTINGS_KEY) : await this.db.query<Row>(sql, [SETTINGS_KEY]);
    return this.remember(row ? (typeof row.value === 'string' ? (JSON.parse(row.value) as StoredSettings) : row.value) : {}, row ? new Date(row.updated_at) : null);
  }

  /**
   * The operator's change: `rates` and `daily_caps` (null: no cap), each merged over what is in
   * force; unknown keys and bad values are refused (400 naming them).
   */
  async update(patch: { rates?: Record<string, unknown>; daily_caps?: Record<string, unknown> }): Promise<RewardSettings> {
    const valid = parseInput(settingsPatchSchema, patch);
    // One statement: concurrent changes of different keys both stay.
    const [row] = await this.db.query<{ value: StoredSettings | string; updated_at: string }>(
      `INSERT INTO "Setting" ("key", "value", "updatedAt") VALUES ($1, $2::jsonb, timezone('UTC', now()))
       ON CONFLICT ("key") DO UPDATE SET
         "value" = jsonb_build_object(
           'rates', coalesce("Setting"."value" -> 'rates', '{}'::jsonb) || coalesce(EXCLUDED."value" -> 'rates', '{}'::jsonb),
           'daily_caps', coalesce("Setting"."value" -> 'daily_caps', '{}'::jsonb) || coalesce(EXCLUDED."value" -> 'daily_caps', '{}'::jsonb)),
         "updatedAt" = EXCLUDED."updatedAt"
       RETURNING "value", to_char("updatedAt", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS updated_at`,
      [SETTINGS_KEY, JSON.stringify({ rates: valid.rates ?? {}, daily_caps: valid.daily_caps ?? {} })],
    );
    return this.remember(typeof row!.value === 'string' ? (JSON.parse(row!.value) as StoredSettings) : row!.value, new Date(row!.updated_at));
  }

  /**
   * Pays `action` for `object` (any stable reference: `media:42`, `vote:7`) to the account, once.
   * Runs in the caller's transaction with `tx`. Over the daily cap, or at a rate of 0, nothing is
   * paid and the result says why.
   */
  async award(accountId: number, action: RewardAction, object: string, options: AwardOptions = {}): Promise<AwardResult> {
    const input = parseInput(awardSchema, { accountId, action, object });
    const { rates, dailyCaps } = await this.settings(options);
    const transferId = awardTransferId(input.action, input.object, input.accountId);
    const dailyCap = dailyCaps[input.action];
    const amount = rewardAmount(rates[input.action], [rates.coin_multiplier, ...(options.challenge ? [rates.challenge_multiplier] : [])]);
    const base = { transferId, action: input.action, dailyCap };
    if (amount <= 0) {
      const balance = await this.ledger.balance(input.accountId, 'coins', options);
      return { ...base, status: 'unpaid', coins: 0, commission: null, ...balance, today: 0, message: `${input.action} pays nothing at the current rates` };
    }
    const [leg] = this.ledger.legsOf([
      { id: transferId, currency: 'coins', from: { system: 'rewards' }, to: { account: input.accountId }, amount, action: rewardLedgerAction(input.action), reference: input.object.slice(0, 500) },
    ]);
    const ppm = Math.round(rates.referral_commission_percent * 10_000);
    const raw = await this.ledger.call<RawAward>('SELECT reward_award($1::int, $2, $3::int, $4::jsonb, $5::bigint)::text AS r', [input.accountId, input.action, dailyCap, JSON.stringify(leg), ppm], options);
    const { transfers, wallets } = this.ledger.resultOf(raw);
    const paid = transfers.find((t) => t.id === transferId);
    const commission = transfers.find((t) => t.id !== transferId) ?? null;
    // reward_award() answers the account's wallet also when it pays nothing (replayed, capped): no read after.
    const balance = await this.ledger.balanceAfter(input.accountId, 'coins', wallets, options);
    return {
      ...base,
      status: raw.status,
      coins: paid ? fromMinor(paid.amount) : 0,
      commission: commission && raw.referrer ? { accountId: raw.referrer, coins: fromMinor(commission.amount) } : null,
      ...balance,
      today: raw.count,
      ...(raw.status === 'capped' ? { message: `daily cap reached: ${dailyCap} paid ${input.action} awards per day` } : {}),
    };
  }

  /** Deletes daily counters of days before yesterday (UTC). Returns how many went. */
  async sweep(): Promise<number> {
    const rows = await this.db.query<{ n: number }>(
      `WITH gone AS (DELETE FROM "RewardDailyCount" WHERE "day" < (timezone('UTC', now())::date - 1) RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    );
    return rows[0]?.n ?? 0;
  }

  private remember(stored: StoredSettings, updatedAt: Date | null): RewardSettings {
    const settings: RewardSettings = {
      rates: { ...this.defaults.rates, ...stored.rates },
      dailyCaps: { ...this.defaults.dailyCaps, ...stored.daily_caps },
      updatedAt,
    };
    this.cached = { settings, at: Date.now() };
    return settings;
  }
}
