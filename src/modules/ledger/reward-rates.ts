// The reward table (spec "Reward rates") and per-account daily caps: defaults, and the one check of
// what configuration (REWARD_RATES, REWARD_DAILY_CAPS in src/config.ts) and the admin API may set.
// A leaf module (zod only): the configuration reads it without loading the ledger.
import { z } from 'zod';
import { toMinor } from './money.js';

/** Actions that earn coins, with the spec's rates. */
export const DEFAULT_ACTION_RATES = {
  community_upload: 2,
  tagging: 0.5,
  tag_verified_bonus: 0.25,
  wiki_photo: 5,
  wiki_subject: 10,
  wiki_vote: 0.5,
  intel_comment: 0.1,
  intel_proposal: 0.1,
  intel_merged: 0.5,
  bulk_mirror_match: 0.5,
} as const;

export type RewardAction = keyof typeof DEFAULT_ACTION_RATES;
export const REWARD_ACTIONS = Object.keys(DEFAULT_ACTION_RATES) as RewardAction[];

/** Factors applied to every action's rate. */
export const DEFAULT_REWARD_FACTORS = {
  /** Global multiplier of every reward (the spec's coin_multiplier flag). */
  coin_multiplier: 1,
  /** Paid to the referrer on top of a referred account's reward, in percent of it. */
  referral_commission_percent: 10,
  /** Multiplier of rewards earned during an active challenge. */
  challenge_multiplier: 2,
} as const;

export type RewardFactor = keyof typeof DEFAULT_REWARD_FACTORS;
export type RewardRateKey = RewardAction | RewardFactor;
export type RewardRates = Record<RewardRateKey, number>;
/** Paid awards of an action per account per UTC day; null: no cap. */
export type RewardCaps = Record<RewardAction, number | null>;

export const DEFAULT_REWARD_RATES: RewardRates = { ...DEFAULT_ACTION_RATES, ...DEFAULT_REWARD_FACTORS };

/** Ours (the spec has none): generous for people, a ceiling for scripts. */
export const DEFAULT_REWARD_DAILY_CAPS: RewardCaps = {
  community_upload: 100,
  tagging: 200,
  tag_verified_bonus: 200,
  wiki_photo: 50,
  wiki_subject: 10,
  wiki_vote: 200,
  intel_comment: 100,
  intel_proposal: 100,
  intel_merged: 100,
  bulk_mirror_match: 5000,
};

const MAX_RATE = 10_000;
const MAX_FACTOR = 100;

/** The range of one rate or factor (its type is the record's); undefined when it is in range. */
function rateProblem(key: RewardRateKey, value: number): string | undefined {
  const max = key === 'referral_commission_percent' ? 100 : key in DEFAULT_REWARD_FACTORS ? MAX_FACTOR : MAX_RATE;
  if (value < 0 || value > max) return `expected 0 to ${max}`;
  if (toMinor(value) === undefined) return 'expected at most 4 decimals';
  return undefined;
}

const NAMES_AND_VALUES = 'expected an object of names and values';
const CAP = 'expected a whole number of awards, 1 or more, or null for no cap';

/** A partial set of rates (keys of the reward table and the factors); unknown keys are refused. */
export const ratesPatchSchema = z
  .record(z.string(), z.number({ error: 'expected a number' }), { error: NAMES_AND_VALUES })
  .transform((patch, ctx) => {
    for (const [key, value] of Object.entries(patch)) {
      const problem = key in DEFAULT_REWARD_RATES ? rateProblem(key as RewardRateKey, value) : `unknown rate; expected one of ${Object.keys(DEFAULT_REWARD_RATES).join(', ')}`;
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: [key] });
    }
    return patch as Partial<RewardRates>;
  });

/** A partial set of daily caps (reward actions); unknown actions are refused. */
export const capsPatchSchema = z
  .record(z.string(), z.int({ error: CAP }).min(1, CAP).nullable(), { error: NAMES_AND_VALUES })
  .transform((patch, ctx) => {
    for (const key of Object.keys(patch)) {
      if (!(key in DEFAULT_ACTION_RATES)) ctx.addIssue({ code: 'custom', message: `unknown reward action; expected one of ${REWARD_ACTIONS.join(', ')}`, path: [key] });
    }
    return patch as Partial<RewardCaps>;
  });

/** REWARD_RATES / REWARD_DAILY_CAPS: JSON merged over the defaults. */
export function jsonOverDefaults<T extends object>(name: string, example: string, schema: z.ZodType<Partial<T>>, defaults: T) {
  return z.string().transform((text, ctx) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: `${name} must be JSON like ${example}: ${(error as Error).message}` });
      return z.NEVER;
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      ctx.addIssue({ code: 'custom', message: `${name} must be JSON like ${example}: ${issue.path.join('.') || 'value'}: ${issue.message}` });
      return z.NEVER;
    }
    return { ...defaults, ...result.data } as T;
  });
}
