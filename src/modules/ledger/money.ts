// Amounts of money: coins (rewards) and credits (API credits), both held as integer minor units.
// 1 coin = 1 credit = 10,000 minor units: the reward table's smallest rates (0.1, 0.25 coins), a 10%
// referral commission of them (0.01, 0.025) and a multiplier of 1.5 on top (0.0375) are all whole
// numbers of units. Amounts that come from outside must be whole units (at most 4 decimals) or they
// are refused; amounts the service computes (rates times multipliers, commissions) are rounded
// down to a whole unit, so the ledger never pays more than the rate says.
import { z } from 'zod';
import { DECIMALS, UNITS_PER_WHOLE, toMinor } from '../../platform/validation.js';

export const CURRENCIES = ['coins', 'credits'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const SYSTEM_ACCOUNTS = ['rewards', 'grants', 'fees', 'escrow', 'bridge'] as const;
export type SystemAccount = (typeof SYSTEM_ACCOUNTS)[number];

// The unit and the 4-decimal rule are the platform's shared input helpers (settings check amounts too).
export { DECIMALS, UNITS_PER_WHOLE, toMinor };

/** Minor units as coins or credits (exact for every amount the ledger stores). */
export function fromMinor(minor: number | bigint): number {
  return Number(minor) / UNITS_PER_WHOLE;
}

/** Largest single amount accepted from outside, in coins or credits. */
export const MAX_AMOUNT = 1_000_000_000;

/** A positive amount in coins or credits with at most 4 decimals, as minor units; `required` is the message for a missing one. */
export const amountSchema = (required: string) =>
  z
    .number({ error: (issue) => (issue.input === undefined ? required : 'expected a number') })
    .positive('expected a positive amount')
    .max(MAX_AMOUNT, `expected at most ${MAX_AMOUNT}`)
    .transform((value, ctx) => {
      const minor = toMinor(value);
      if (minor === undefined) {
        ctx.addIssue({ code: 'custom', message: `expected at most ${DECIMALS} decimals` });
        return z.NEVER;
      }
      return minor;
    });
