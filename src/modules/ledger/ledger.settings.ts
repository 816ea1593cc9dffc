// What configuration says about the ledger (src/config.ts reads it): reward rates and daily caps
// before the operator's changes (stored in the database). A leaf file (zod only).
import type { z } from 'zod';
import {
  capsPatchSchema,
  DEFAULT_REWARD_DAILY_CAPS,
  DEFAULT_REWARD_RATES,
  jsonOverDefaults,
  ratesPatchSchema,
  type RewardCaps,
  type RewardRates,
} from './reward-rates.js';

export interface RewardsConfig {
  rates: RewardRates;
  dailyCaps: RewardCaps;
}

/** The REWARD_* variables, spread into the configuration's schema. */
export const ledgerEnvShape = {
  REWARD_RATES: jsonOverDefaults<RewardRates>('REWARD_RATES', '{"tagging":0.5,"coin_multiplier":2}', ratesPatchSchema, DEFAULT_REWARD_RATES).optional().meta({ description: 'JSON object merged over the reward rates: coins per action and the factors `coin_multiplier`, `referral_commission_percent`, `challenge_multiplier`: `{"tagging":0.75,"coin_multiplier":2}` ([Money](economy.md#money-coins-and-credits)); the admin API changes them at run time', shownDefault: "the spec's table" }),
  REWARD_DAILY_CAPS: jsonOverDefaults<RewardCaps>('REWARD_DAILY_CAPS', '{"tagging":200,"wiki_vote":null}', capsPatchSchema, DEFAULT_REWARD_DAILY_CAPS).optional().meta({ description: 'JSON object merged over the daily caps: paid awards per action, account and UTC day, `null` for none: `{"wiki_vote":100,"tagging":null}`', shownDefault: 'see [Money](economy.md#money-coins-and-credits)' }),
};

type LedgerEnv = z.output<z.ZodObject<typeof ledgerEnvShape>>;

export function rewardsConfigFrom(e: LedgerEnv): RewardsConfig {
  return { rates: e.REWARD_RATES ?? DEFAULT_REWARD_RATES, dailyCaps: e.REWARD_DAILY_CAPS ?? DEFAULT_REWARD_DAILY_CAPS };
}
