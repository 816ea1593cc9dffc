// The economy operations declared once (docs/architecture.md): the bridge's rate and the referral
// figures (any key), converting coins into API credits and linking the caller's account at the
// credit partner (master key: they move or direct the account's money). One conversion (a string id
// in its path), the styles (a bare list), their unlock (a slug in its path) and the operator's coin
// grant (admin token) stay in economy.schema.ts and rest-shim/routes/economy.routes.ts. Shapes the spec leaves
// open are ours (README "Economy: bridge, referral, styles").
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { answerFrom, balance, count, held, timestamp } from '../../platform/wire.js';
import { BridgeConversionRef, BridgeLinkRef, BridgeRateRef, ReferralRef } from './economy.schema.js';
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

export const economyOperations = {
  bridgeRate: defineOperation({
    kind: 'query',
    name: 'bridgeRate',
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
    name: 'convertCoins',
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
    name: 'linkBridgeAccount',
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
  referral: defineOperation({
    kind: 'query',
    name: 'referral',
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
};
