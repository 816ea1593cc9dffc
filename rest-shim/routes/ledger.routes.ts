// Money (src/modules/ledger), the operator's side: grant API credits to an account, read and change
// reward rates and daily caps. Behind the admin token, like the other admin routes; the CLI uses
// them (`credits grant`, `rewards show|set`). The caller's own credits are GET /api/media/credits.
import { z } from 'zod';
import { defineRoute, type RestInput } from '../route.js';
import { optionalString, requiredString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { AdminGrantCreditsDocument, AdminRewardsDocument, AdminUpdateRewardsDocument, type RewardSettingsFieldsFragment } from '../generated/operations.js';
import { id, timestamp } from '../schemas.js';

const handleParams = z.object({ handle: z.string().describe("the account's handle") });

const rewardSettings = z
  .object({
    rates: z.record(z.string(), z.number()).describe('coins per reward action, then coin_multiplier, referral_commission_percent and challenge_multiplier'),
    daily_caps: z.record(z.string(), z.int().nullable()).describe('paid awards per action, account and UTC day; null: no cap'),
    updated_at: timestamp.nullable().describe("the operator's last change (null: configuration only)"),
  })
  .meta({ id: 'RewardSettings', description: 'Reward rates, factors and daily caps in force' });

function settingsJson(s: RewardSettingsFieldsFragment): z.input<typeof rewardSettings> {
  return {
    rates: Object.fromEntries(s.rates.map((r) => [r.key, r.value])),
    daily_caps: Object.fromEntries(s.dailyCaps.map((c) => [c.action, c.cap])),
    updated_at: s.updatedAt,
  };
}

/** An object of names to values (`rates`, `daily_caps`), or undefined when absent. */
function optionalMap(body: Source, name: string): Record<string, unknown> | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new InvalidInput(`${name}: expected an object of names and values`, name);
  return value as Record<string, unknown>;
}

/** The values' types (the service checks names and ranges): numbers for rates, whole numbers or null for caps. */
function typed(name: string, map: Record<string, unknown>, check: (v: unknown) => boolean, expected: string): void {
  for (const [key, value] of Object.entries(map)) {
    if (!check(value)) throw new InvalidInput(`${name}.${key}: expected ${expected}`, `${name}.${key}`);
  }
}

function rewardsPatch({ body }: RestInput) {
  const rates = optionalMap(body, 'rates');
  const caps = optionalMap(body, 'daily_caps');
  if (!rates && !caps) throw new InvalidInput('rates or daily_caps is required', 'rates');
  if (rates) typed('rates', rates, (v) => typeof v === 'number' && Number.isFinite(v), 'a number');
  if (caps) typed('daily_caps', caps, (v) => v === null || (typeof v === 'number' && Number.isSafeInteger(v)), 'a whole number of awards, or null for no cap');
  return {
    rates: rates ? Object.entries(rates).map(([key, value]) => ({ key, value: value as number })) : undefined,
    dailyCaps: caps ? Object.entries(caps).map(([action, cap]) => ({ action, cap: cap as number | null })) : undefined,
  };
}

export const ledgerRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/credits',
    auth: 'admin',
    summary: 'Grant API credits to an account (amount; reference and idempotency_key optional)',
    description: 'A repeat with the same idempotency_key grants nothing more and answers the first grant (`replayed: true`); the same key with another account or amount is a 409.',
    operation: AdminGrantCreditsDocument,
    request: {
      params: handleParams,
      body: z.object({
        amount: z.number().positive().describe('credits to add (at most 4 decimals)'),
        reference: z.string().max(500).optional().describe('why (shown in the credit ledger)'),
        idempotency_key: z.string().max(120).optional().describe('makes a retried grant count once'),
      }),
    },
    response: z.object({
      account_id: id,
      handle: z.string(),
      amount: z.number().describe('credits granted'),
      balance: z.number().describe("the account's credit balance after the grant"),
      transfer_id: z.string().describe('the ledger transfer'),
      replayed: z.boolean().describe('true when this idempotency_key was granted before (nothing added now)'),
    }),
    errors: { 409: 'the idempotency_key was used for another grant' },
    variables: ({ params, body }) => {
      const amount = body.amount;
      if (amount === undefined || amount === null || amount === '') throw new InvalidInput('amount is required: the credits to add', 'amount');
      if (typeof amount !== 'number') throw new InvalidInput('amount: expected a number', 'amount');
      return { handle: requiredString(params, 'handle'), amount, reference: optionalString(body, 'reference'), idempotencyKey: optionalString(body, 'idempotency_key') };
    },
    shape: (data) => {
      const g = unwrap(data.adminGrantCredits);
      return { account_id: g.accountId, handle: g.handle, amount: g.amount, balance: g.balance, transfer_id: g.transferId, replayed: g.replayed };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/admin/rewards',
    auth: 'admin',
    summary: 'Reward rates, factors and daily caps in force',
    operation: AdminRewardsDocument,
    response: rewardSettings,
    shape: (data) => settingsJson(data.adminRewards),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/admin/rewards',
    auth: 'admin',
    summary: 'Change reward rates and daily caps for every process (rates, daily_caps: objects merged over those in force)',
    operation: AdminUpdateRewardsDocument,
    request: {
      body: z.object({
        rates: z.record(z.string(), z.number()).optional().describe('e.g. {"tagging": 0.75, "coin_multiplier": 2}'),
        daily_caps: z.record(z.string(), z.int().min(1).nullable()).optional().describe('e.g. {"wiki_vote": 100, "tagging": null}'),
      }),
    },
    response: rewardSettings,
    variables: rewardsPatch,
    shape: (data) => settingsJson(unwrap(data.adminUpdateRewards)),
  }),
];
