// Spec "Economy": the coin bridge (rate, convert), referrals and style presets; ours beside them:
// linking the caller's account at the credit partner, reading one conversion, and the operator's
// coin grant (admin token; the CLI's `coins grant`). Bounties are the community module's. Reads take
// any key; money moves and the link take the master key. Shapes the spec leaves open are ours
// (README "Economy: bridge, referral, styles").
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY, MASTER_KEY } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import {
  AdminGrantCoinsDocument,
  BridgeConversionDocument,
  BridgeRateDocument,
  ConvertCoinsDocument,
  LinkBridgeAccountDocument,
  ReferralDocument,
  StylesDocument,
  UnlockStyleDocument,
  type BridgeConversionFieldsFragment,
  type StylePresetFieldsFragment,
} from '../generated/operations.js';
import { balance, count, timestamp, held } from '../schemas.js';
import { handleParams } from './accounts.routes.js';
import { grantJson, grantResponse } from './ledger.routes.js';
import { coinGrantSchema, convertSchema, linkSchema } from '../../src/modules/economy/economy.input.js';
import { CONVERSION_STATUSES } from '../../src/modules/economy/bridge.service.js';

const partner = z.enum(['local', 'http']).describe('where the credits land: local (this service) or http (the external credit partner)');

const conversion = z
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

function conversionJson(c: BridgeConversionFieldsFragment): z.input<typeof conversion> {
  return {
    coins_burned: c.coinsBurned,
    credits_added: c.creditsAdded,
    new_balance: c.newBalance,
    held: c.held,
    conversion_id: c.conversionId,
    status: c.status,
    coins_per_credit: c.coinsPerCredit,
    partner: c.partner,
    partner_account: c.partnerAccount,
    replayed: c.replayed,
    message: c.message,
    attempts: c.attempts,
    created_at: c.createdAt,
    completed_at: c.completedAt,
  };
}

function styleJson(s: StylePresetFieldsFragment): z.input<typeof style> {
  return { slug: s.slug, name: s.name, premium: s.premium, price_coins: s.priceCoins, unlocked: s.unlocked };
}

export const economyRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/economy/bridge/rate',
    auth: 'key',
    key: ANY_KEY,
    summary: 'The coin-to-credit rate (coins_per_credit), the credit partner and whether the caller is linked to it',
    operation: BridgeRateDocument,
    response: z.object({
      coins_per_credit: z.number().describe('coins that make one API credit (BRIDGE_COINS_PER_CREDIT, default 10)'),
      partner,
      linked: z.boolean().describe('whether the caller can convert now (local: always; http: once a partner account is linked)'),
      partner_account: z.string().nullable().describe("the caller's linked account at the credit partner"),
      minimum_coins: z.number().describe('the fewest coins that make 0.0001 credit'),
    }),
    shape: (data) => {
      const r = data.bridgeRate;
      return { coins_per_credit: r.coinsPerCredit, partner: r.partner, linked: r.linked, partner_account: r.partnerAccount, minimum_coins: r.minimumCoins };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/bridge/convert',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Convert coins into API credits (coins; idempotency_key optional)',
    description:
      'Credits are rounded down to whole 0.0001 credits and only the coins that make them are burned (coins_burned may be a little below coins). ' +
      'With the http credit partner the coins are held until the partner confirms: status pending means it has not answered yet; the service asks again with the same idempotency key, and the conversion completes, or the coins are released.',
    operation: ConvertCoinsDocument,
    request: { body: convertSchema },
    response: conversion,
    errors: {
      402: 'too few coins (INSUFFICIENT_COINS)',
      409: 'no partner account linked (POST /api/economy/bridge/link), the partner refused the conversion (nothing spent), or the idempotency_key converted another amount',
    },
    variables: ({ body }) => ({ coins: body.coins, idempotencyKey: body.idempotency_key }),
    shape: (data) => conversionJson(unwrap(data.convertCoins)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/bridge/link',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Link the caller's account at the credit partner (partner_account), needed before converting when the partner is http",
    operation: LinkBridgeAccountDocument,
    request: { body: linkSchema },
    response: z.object({ partner, partner_account: z.string(), linked_at: timestamp }),
    variables: ({ body }) => ({ partnerAccount: body.partner_account }),
    shape: (data) => {
      const l = unwrap(data.linkBridgeAccount);
      return { partner: l.partner, partner_account: l.partnerAccount, linked_at: l.linkedAt };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/economy/bridge/conversions/:id',
    auth: 'key',
    key: ANY_KEY,
    summary: "One of the caller's coin conversions (a pending one's outcome)",
    operation: BridgeConversionDocument,
    request: { params: z.object({ id: z.string().describe('the conversion_id') }) },
    response: conversion,
    variables: ({ params }) => ({ conversionId: params.id! }),
    shape: (data) => conversionJson(unwrap(data.bridgeConversion)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/economy/referral',
    auth: 'key',
    key: ANY_KEY,
    summary: "The caller's referral code and link, its referrals and the commission they earned it",
    operation: ReferralDocument,
    response: z.object({
      referral_code: z.string(),
      referral_url: z.string().describe('<PUBLIC_BASE_URL or the request origin>/signup?ref=<referral_code>'),
      total_referrals: count.describe('accounts created with this code'),
      commission_earned: z.number().describe('coins received as referral commission (10% of what the referrals earn), ever'),
    }),
    shape: (data) => {
      const r = data.referral;
      return { referral_code: r.code, referral_url: r.url, total_referrals: r.totalReferrals, commission_earned: r.commissionEarned };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/economy/styles',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Style presets: the four free ones of the generate route, then premium ones unlocked with coins',
    operation: StylesDocument,
    response: z.object({ styles: z.array(style) }),
    shape: (data) => ({ styles: data.styles.map(styleJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/styles/:slug/unlock',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Unlock a premium style preset with coins (charged once; again, or a free preset, charges nothing)',
    operation: UnlockStyleDocument,
    request: { params: z.object({ slug: z.string().describe('the preset, as GET /api/economy/styles lists it') }) },
    response: z.object({
      ...styleFields,
      charged: z.number().describe('coins charged by this call (0 when free or unlocked before)'),
      already_unlocked: z.boolean(),
      new_balance: balance.describe("the caller's spendable coin balance after (held coins not included)"),
      held,
    }),
    errors: { 402: 'too few coins (INSUFFICIENT_COINS)' },
    variables: ({ params }) => ({ slug: params.slug! }),
    shape: (data) => {
      const u = unwrap(data.unlockStyle);
      return { ...styleJson(u.style), charged: u.charged, already_unlocked: u.alreadyUnlocked, new_balance: u.newBalance, held: u.held };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/coins',
    auth: 'admin',
    summary: 'Grant coins to an account (amount; reference and idempotency_key optional)',
    description: 'From the grants account. A repeat with the same idempotency_key grants nothing more and answers the first grant (`replayed: true`); the same key with another account or amount is a 409.',
    operation: AdminGrantCoinsDocument,
    request: { params: handleParams, body: coinGrantSchema },
    response: grantResponse('coins'),
    errors: { 409: 'the idempotency_key was used for another grant' },
    variables: ({ params, body }) => ({ handle: params.handle!, amount: body.amount, reference: body.reference, idempotencyKey: body.idempotency_key }),
    shape: (data) => grantJson(unwrap(data.adminGrantCoins)),
  }),
];
