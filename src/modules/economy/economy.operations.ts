// The economy operations declared once (docs/architecture.md): the bridge's rate, one conversion,
// the referral figures and the style presets (any key); converting coins into API credits, linking
// the caller's account at the credit partner and unlocking a style (master key: they move or direct
// the account's money); the operator's coin grant (admin token; the CLI's `coins grant`). Shapes the
// spec leaves open are ours (README "Economy: bridge, referral, styles").
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { defineAdminGrant, REPEATED_GRANT } from '../ledger/ledger.operations.js';
import {
  BridgeConversionRef,
  BridgeLinkRef,
  BridgeRateRef,
  ReferralRef,
  styleList,
  StylePresetRef,
  StyleUnlockRef,
} from './economy.schema.js';
import { ECONOMY_READ, ECONOMY_SPEND } from './economy.access.js';
import { convertSchema, linkSchema } from './economy.input.js';

export const economyOperations = defineOperations({
  bridgeRate: defineQuery({
    description: 'The coin-to-credit rate, the credit partner, and whether the caller is linked to it',
    key: ECONOMY_READ,
    plain: true,
    output: BridgeRateRef,
    run: ({ ctx, actor }) => ctx.services.economy.bridge.rate(actor),
    rest: {
      route: 'GET /api/economy/bridge/rate',
      summary: 'The coin-to-credit rate (coins_per_credit), the credit partner and whether the caller is linked to it',
    },
  }),
  convertCoins: defineMutation({
    description: 'Converts coins into API credits at bridgeRate (credits rounded down to 0.0001; only the coins that make them are burned); idempotencyKey makes a retry convert once',
    key: ECONOMY_SPEND,
    input: convertSchema,
    output: BridgeConversionRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.convert(actor, input),
    rest: {
      route: 'POST /api/economy/bridge/convert',
      summary: 'Convert coins into API credits (coins; idempotency_key optional)',
      description:
        'Credits are rounded down to whole 0.0001 credits and only the coins that make them are burned (coins_burned may be a little below coins). ' +
        'With the http credit partner the coins are held until the partner confirms: status pending means it has not answered yet; the service asks again with the same idempotency key, and the conversion completes, or the coins are released.',
      errors: {
        402: 'too few coins (INSUFFICIENT_COINS)',
        409: 'no partner account linked (POST /api/economy/bridge/link), the partner refused the conversion (nothing spent), or the idempotency_key converted another amount',
      },
    },
  }),
  linkBridgeAccount: defineMutation({
    description: "Links the caller's account at the credit partner (needed before converting when the partner is http)",
    key: ECONOMY_SPEND,
    input: linkSchema,
    output: BridgeLinkRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.link(actor, input),
    rest: {
      route: 'POST /api/economy/bridge/link',
      summary: "Link the caller's account at the credit partner (partner_account), needed before converting when the partner is http",
    },
  }),
  bridgeConversion: defineQuery({
    description: "One of the caller's coin conversions, by conversionId",
    key: ECONOMY_READ,
    input: z.object({ conversion_id: z.string().describe('the conversion_id') }),
    output: BridgeConversionRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.conversion(actor, input.conversion_id),
    rest: {
      route: 'GET /api/economy/bridge/conversions/:id',
      pathFields: ['conversion_id'],
      params: { id: 'conversion_id' },
      summary: "One of the caller's coin conversions (a pending one's outcome)",
      // The same answer as the convert row, spread by the fragment the typed client knows.
      answerFragment: true,
    },
  }),
  referral: defineQuery({
    description: "The caller's referral code and link, its referrals and the commission they earned it",
    key: ECONOMY_READ,
    plain: true,
    output: ReferralRef,
    run: ({ ctx, actor }) => ctx.services.economy.referrals.referral(actor),
    rest: {
      route: 'GET /api/economy/referral',
      summary: "The caller's referral code and link, its referrals and the commission they earned it",
    },
  }),
  styles: defineQuery({
    description: 'Style presets: the free ones, then premium ones that are unlocked with coins',
    key: ECONOMY_READ,
    plain: true,
    output: [StylePresetRef],
    run: ({ ctx, actor }) => ctx.services.economy.styles.list(actor),
    rest: {
      route: 'GET /api/economy/styles',
      summary: 'Style presets: the four free ones of the generate route, then premium ones unlocked with coins',
      response: styleList,
    },
  }),
  unlockStyle: defineMutation({
    description: 'Unlocks a premium style preset, charging its price once; again (or a free preset) charges nothing',
    key: ECONOMY_SPEND,
    input: z.object({ slug: z.string().describe('the preset, as GET /api/economy/styles lists it') }),
    output: StyleUnlockRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.styles.unlock(actor, input.slug),
    rest: {
      route: 'POST /api/economy/styles/:slug/unlock',
      pathFields: ['slug'],
      summary: 'Unlock a premium style preset with coins (charged once; again, or a free preset, charges nothing)',
      errors: { 402: 'too few coins (INSUFFICIENT_COINS)' },
    },
  }),
  adminGrantCoins: defineAdminGrant('adminGrantCoins', 'CoinGrant', 'coins', (ctx, accountId, input) => ctx.services.economy.coins.grant(accountId, input), {
    path: '/api/admin/accounts/:handle/coins',
    description: `From the grants account. ${REPEATED_GRANT}`,
  }),
});
