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
  StylesDocument,
  UnlockStyleDocument,
  type StylePresetFieldsFragment,
} from '../generated/operations.js';
import { balance, held } from '../schemas.js';
import { answerOf, restRoutesOf } from '../derive.js';
import { handleParams } from './accounts.routes.js';
import { grantJson, grantResponse } from './ledger.routes.js';
import { coinGrantSchema } from '../../src/modules/economy/economy.input.js';
import { conversion, economyOperations } from '../../src/modules/economy/economy.operations.js';

const styleFields = {
  slug: z.string(),
  name: z.string(),
  premium: z.boolean(),
  price_coins: z.number().describe('coins to unlock it (0 for the free ones)'),
  unlocked: z.boolean().describe('whether the caller may use it (free ones always)'),
};
const style = z.object(styleFields).meta({ id: 'StylePreset', description: 'A style preset of the generate route' });

function styleJson(s: StylePresetFieldsFragment): z.input<typeof style> {
  return { slug: s.slug, name: s.name, premium: s.premium, price_coins: s.priceCoins, unlocked: s.unlocked };
}

const { bridgeRate, convertCoins, linkBridgeAccount, referral } = economyOperations;

export const economyRoutes = [
  // Declared rows in their place among the hand-written ones (the route table's order).
  ...restRoutesOf({ bridgeRate, convertCoins, linkBridgeAccount }),
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
    // The same answer as the declared convert row, read by the same mapping.
    shape: (data) => answerOf(conversion, unwrap(data.bridgeConversion)) as z.input<typeof conversion>,
  }),
  ...restRoutesOf({ referral }),
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
