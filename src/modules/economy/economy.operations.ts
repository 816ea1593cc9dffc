// The economy operations declared once (docs/architecture.md): the bridge's rate, one conversion,
// the referral figures and the style presets (any key); converting coins into API credits, linking
// the caller's account at the credit partner and unlocking a style (master key: they move or direct
// the account's money); the operator's coin grant (admin token; the CLI's `coins grant`). Shapes the
// spec leaves open are ours (README "Economy: bridge, referral, styles").
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { answerFrom, balance, count, held, timestamp } from '../../platform/wire.js';
import { camelCase } from '../../graphql/operation-args.js';
import { defineAdminGrant, REPEATED_GRANT } from '../ledger/ledger.operations.js';
import { BridgeConversionRef, BridgeLinkRef, BridgeRateRef, ReferralRef, StylePresetRef, StyleUnlockRef } from './economy.schema.js';
import { CONVERSION_STATUSES } from './bridge.service.js';
import { ECONOMY_READ, ECONOMY_SPEND } from './economy.access.js';
import { convertSchema, linkSchema } from './economy.input.js';

export const partner = z.enum(['local', 'http']).describe('where the credits land: local (this service) or http (the external credit partner)');

/** A conversion as REST answers it (also GET /api/economy/bridge/conversions/{id}). */
export const conversion = z
  .object({
    coins_burned: z.number().describe('coins burned (completed), or held to be burned (pending); 0 when refused or failed'),
    credits_added: z.number().describe('credits added (completed), or to be added (pending); 0 when refused or failed'),
    new_balance: balance.describe("the caller's spendable coin balance now (held coins not included)"),
    held: held.describe("the caller's coins held now: this conversion's while it is pending, escrowed bounties ..."),
    conversion_id: z.string().describe('GET /api/economy/bridge/conversions/{conversion_id}; also the Idempotency-Key sent to the partner'),
    status: z.enum(CONVERSION_STATUSES).describe('completed, or pending while the partner has not answered (asked again in the background)'),
    coins_per_credit: z.number(),
    partner,
    partner_account: z.string().nullable(),
    replayed: z.boolean().describe('true when this idempotency_key converted before (nothing more happened now)'),
    message: z.string().nullable().describe('pending: why the partner has not confirmed yet; refused or failed: why'),
    attempts: count.describe('times the credit partner was asked'),
    created_at: timestamp,
    completed_at: timestamp.nullable(),
  })
  .meta({ id: 'BridgeConversion', description: 'A conversion of coins into API credits' });

const styleFields = {
  slug: z.string(),
  name: z.string(),
  premium: z.boolean(),
  price_coins: z.number().describe('coins to unlock it (0 for the free ones)'),
  unlocked: z.boolean().describe('whether the caller may use it (free ones always)'),
};
const style = z.object(styleFields).meta({ id: 'StylePreset', description: 'A style preset of the generate route' });

export const economyOperations = defineOperations({
  bridgeRate: defineOperation({
    kind: 'query',
    description: 'The coin-to-credit rate, the credit partner, and whether the caller is linked to it',
    key: ECONOMY_READ,
    plain: true,
    output: BridgeRateRef,
    run: ({ ctx, actor }) => ctx.services.economy.bridge.rate(actor),
    rest: {
      method: 'GET',
      path: '/api/economy/bridge/rate',
      summary: 'The coin-to-credit rate (coins_per_credit), the credit partner and whether the caller is linked to it',
      response: z.object({
        coins_per_credit: z.number().describe('coins that make one API credit (BRIDGE_COINS_PER_CREDIT, default 10)'),
        partner,
        linked: z.boolean().describe('whether the caller can convert now (local: always; http: once a partner account is linked)'),
        partner_account: z.string().nullable().describe("the caller's linked account at the credit partner"),
        minimum_coins: z.number().describe('the fewest coins that make 0.0001 credit'),
      }),
    },
  }),
  convertCoins: defineOperation({
    kind: 'mutation',
    description: 'Converts coins into API credits at bridgeRate (credits rounded down to 0.0001; only the coins that make them are burned); idempotencyKey makes a retry convert once',
    key: ECONOMY_SPEND,
    input: convertSchema,
    output: BridgeConversionRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.convert(actor, input),
    rest: {
      method: 'POST',
      path: '/api/economy/bridge/convert',
      summary: 'Convert coins into API credits (coins; idempotency_key optional)',
      description:
        'Credits are rounded down to whole 0.0001 credits and only the coins that make them are burned (coins_burned may be a little below coins). ' +
        'With the http credit partner the coins are held until the partner confirms: status pending means it has not answered yet; the service asks again with the same idempotency key, and the conversion completes, or the coins are released.',
      response: conversion,
      errors: {
        402: 'too few coins (INSUFFICIENT_COINS)',
        409: 'no partner account linked (POST /api/economy/bridge/link), the partner refused the conversion (nothing spent), or the idempotency_key converted another amount',
      },
    },
  }),
  linkBridgeAccount: defineOperation({
    kind: 'mutation',
    description: "Links the caller's account at the credit partner (needed before converting when the partner is http)",
    key: ECONOMY_SPEND,
    input: linkSchema,
    output: BridgeLinkRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.link(actor, input),
    rest: {
      method: 'POST',
      path: '/api/economy/bridge/link',
      summary: "Link the caller's account at the credit partner (partner_account), needed before converting when the partner is http",
      response: z.object({ partner, partner_account: z.string(), linked_at: timestamp }),
    },
  }),
  bridgeConversion: defineOperation({
    kind: 'query',
    description: "One of the caller's coin conversions, by conversionId",
    key: ECONOMY_READ,
    input: z.object({ conversion_id: z.string().describe('the conversion_id') }),
    output: BridgeConversionRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.bridge.conversion(actor, input.conversion_id),
    rest: {
      method: 'GET',
      path: '/api/economy/bridge/conversions/:id',
      pathFields: ['conversion_id'],
      params: { id: 'conversion_id' },
      summary: "One of the caller's coin conversions (a pending one's outcome)",
      // The same answer as the convert row, spread by the fragment the typed client knows.
      response: conversion,
      answerFragment: true,
    },
  }),
  referral: defineOperation({
    kind: 'query',
    description: "The caller's referral code and link, its referrals and the commission they earned it",
    key: ECONOMY_READ,
    plain: true,
    output: ReferralRef,
    run: ({ ctx, actor }) => ctx.services.economy.referrals.referral(actor),
    rest: {
      method: 'GET',
      path: '/api/economy/referral',
      summary: "The caller's referral code and link, its referrals and the commission they earned it",
      response: answerFrom(
        z.object({
          referral_code: z.string(),
          referral_url: z.string().describe('<PUBLIC_BASE_URL or the request origin>/signup?ref=<referral_code>'),
          total_referrals: count.describe('accounts created with this code'),
          commission_earned: z.number().describe('coins received as referral commission (10% of what the referrals earn), ever'),
        }),
        { referral_code: 'code', referral_url: 'url' },
      ),
    },
  }),
  styles: defineOperation({
    kind: 'query',
    description: 'Style presets: the free ones, then premium ones that are unlocked with coins',
    key: ECONOMY_READ,
    plain: true,
    output: [StylePresetRef],
    run: ({ ctx, actor }) => ctx.services.economy.styles.list(actor),
    rest: {
      method: 'GET',
      path: '/api/economy/styles',
      summary: 'Style presets: the four free ones of the generate route, then premium ones unlocked with coins',
      response: answerFrom(z.object({ styles: z.array(style) }), { styles: '' }),
    },
  }),
  unlockStyle: defineOperation({
    kind: 'mutation',
    description: 'Unlocks a premium style preset, charging its price once; again (or a free preset) charges nothing',
    key: ECONOMY_SPEND,
    input: z.object({ slug: z.string().describe('the preset, as GET /api/economy/styles lists it') }),
    output: StyleUnlockRef,
    run: ({ ctx, actor, input }) => ctx.services.economy.styles.unlock(actor, input.slug),
    rest: {
      method: 'POST',
      path: '/api/economy/styles/:slug/unlock',
      pathFields: ['slug'],
      summary: 'Unlock a premium style preset with coins (charged once; again, or a free preset, charges nothing)',
      // The preset's fields read from `style`, beside the charge.
      response: answerFrom(
        z.object({
          ...styleFields,
          charged: z.number().describe('coins charged by this call (0 when free or unlocked before)'),
          already_unlocked: z.boolean(),
          new_balance: balance.describe("the caller's spendable coin balance after (held coins not included)"),
          held,
        }),
        Object.fromEntries(Object.keys(styleFields).map((key) => [key, `style.${camelCase(key)}`])),
      ),
      errors: { 402: 'too few coins (INSUFFICIENT_COINS)' },
    },
  }),
  adminGrantCoins: defineAdminGrant('adminGrantCoins', 'CoinGrant', 'coins', (ctx, accountId, input) => ctx.services.economy.coins.grant(accountId, input), {
    path: '/api/admin/accounts/:handle/coins',
    description: `From the grants account. ${REPEATED_GRANT}`,
  }),
});
