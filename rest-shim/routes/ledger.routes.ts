// Money (src/modules/ledger), the operator's side: grant API credits to an account (declared in
// ledger.operations.ts), read and change reward rates and daily caps (here: their REST shapes are
// records, GraphQL's are lists). Behind the admin token, like the other admin routes; the CLI uses
// them (`credits grant`, `rewards show|set`). The caller's own credits are GET /api/media/credits.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { unwrap } from '../result.js';
import { AdminRewardsDocument, AdminUpdateRewardsDocument, type RewardSettingsFieldsFragment } from '../generated/operations.js';
import { timestamp } from '../schemas.js';
import { restRoutesOf } from '../derive.js';
import { ledgerOperations } from '../../src/modules/ledger/ledger.operations.js';
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

export const ledgerRoutes = [
  ...restRoutesOf(ledgerOperations),
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
