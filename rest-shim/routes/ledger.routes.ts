// Money (src/modules/ledger), the operator's side: grant API credits to an account, read and change
// reward rates and daily caps. Behind the admin token, like the other admin routes; the CLI uses
// them (`credits grant`, `rewards show|set`). The caller's own credits are GET /api/media/credits.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { unwrap } from '../result.js';
import { AdminGrantCreditsDocument, AdminRewardsDocument, AdminUpdateRewardsDocument, type RewardSettingsFieldsFragment } from '../generated/operations.js';
import { balance, id, timestamp, held } from '../schemas.js';
import { handleParams } from './accounts.routes.js';
import { grantSchema } from '../../src/modules/ledger/credits.service.js';
import type { Currency } from '../../src/modules/ledger/index.js';
import { settingsPatchSchema } from '../../src/modules/ledger/rewards.service.js';

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

/** The answer of an operator's grant of a currency (credits here, coins in economy.routes.ts). */
export const grantResponse = (currency: Currency) =>
  z.object({
    account_id: id,
    handle: z.string(),
    amount: z.number().describe(`${currency} granted`),
    balance: balance.describe(`the account's spendable ${currency} after the grant (held ${currency} not included)`),
    held,
    transfer_id: z.string().describe('the ledger transfer'),
    replayed: z.boolean().describe('true when this idempotency_key was granted before (nothing added now)'),
  });

export const grantJson = (g: { accountId: number; handle: string; amount: number; balance: number; held: number; transferId: string; replayed: boolean }) => ({
  account_id: g.accountId,
  handle: g.handle,
  amount: g.amount,
  balance: g.balance,
  held: g.held,
  transfer_id: g.transferId,
  replayed: g.replayed,
});

export const ledgerRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/credits',
    auth: 'admin',
    summary: 'Grant API credits to an account (amount; reference and idempotency_key optional)',
    description: 'A repeat with the same idempotency_key grants nothing more and answers the first grant (`replayed: true`); the same key with another account or amount is a 409.',
    operation: AdminGrantCreditsDocument,
    request: { params: handleParams, body: grantSchema },
    response: grantResponse('credits'),
    errors: { 409: 'the idempotency_key was used for another grant' },
    variables: ({ params, body }) => ({ handle: params.handle!, amount: body.amount, reference: body.reference, idempotencyKey: body.idempotency_key }),
    shape: (data) => grantJson(unwrap(data.adminGrantCredits)),
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
    request: { body: settingsPatchSchema },
    response: rewardSettings,
    variables: ({ body }) => ({
      rates: body.rates && Object.entries(body.rates).map(([key, value]) => ({ key, value })),
      dailyCaps: body.daily_caps && Object.entries(body.daily_caps).map(([action, cap]) => ({ action, cap })),
    }),
    shape: (data) => settingsJson(unwrap(data.adminUpdateRewards)),
  }),
];
