// The economy as callers see it (spec "Economy": the coin bridge, referrals and style presets), stated
// once: each answer object (REST names, src/platform/wire.ts) and the GraphQL type made from it
// (src/graphql/answer-object.ts). The operations are declared in economy.operations.ts; the rules live
// in the economy services. Shapes the spec leaves open are ours (docs/economy.md "Economy: bridge, referral, styles").
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { camelCase } from '../../graphql/operation-args.js';
import { answerFrom, balance, count, held, timestamp } from '../../platform/wire.js';
import { CONVERSION_STATUSES, type BridgeLinkView, type BridgeRateView, type ConversionView } from './bridge.service.js';
import { referralUrl, type ReferralView } from './referral.service.js';
import type { StyleView, UnlockResult } from './styles.service.js';

const PARTNERS = ['local', 'http'] as const;
answerEnum('BridgePartner', { description: 'Where converted credits land: local (this service) or http (an external partner)', values: PARTNERS });
answerEnum('BridgeConversionStatus', { values: CONVERSION_STATUSES });

const partner = z.enum(PARTNERS).describe('where the credits land: local (this service) or http (the external credit partner)');

export const bridgeRate = z.object({
  coins_per_credit: z.number().describe('coins that make one API credit (BRIDGE_COINS_PER_CREDIT, default 10)'),
  partner,
  linked: z.boolean().describe('whether the caller can convert now (local: always; http: once a partner account is linked)'),
  partner_account: z.string().nullable().describe("the caller's linked account at the credit partner"),
  minimum_coins: z.number().describe('the fewest coins that make 0.0001 credit'),
});
export const BridgeRateRef = answerObject<BridgeRateView>('BridgeRate', bridgeRate);

export const bridgeLink = z.object({ partner, partner_account: z.string(), linked_at: timestamp });
export const BridgeLinkRef = answerObject<BridgeLinkView>('BridgeLink', bridgeLink);

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
export const BridgeConversionRef = answerObject<ConversionView>('BridgeConversion', conversion, {
  fields: () => ({ conversion_id: { description: 'Also the Idempotency-Key sent to the credit partner', resolve: (c: ConversionView) => c.id } }),
});

export const referral = answerFrom(
  z.object({
    referral_code: z.string(),
    referral_url: z.string().describe('<PUBLIC_BASE_URL or the request origin>/signup?ref=<referral_code>'),
    total_referrals: count.describe('accounts created with this code'),
    commission_earned: z.number().describe('coins received as referral commission (10% of what the referrals earn), ever'),
  }),
  { referral_code: 'code', referral_url: 'url' },
);
export const ReferralRef = answerObject<ReferralView>('Referral', referral, {
  fields: () => ({
    referral_url: { description: 'Sign-up link with the code: <base URL>/signup?ref=<code>', resolve: (r: ReferralView, _a, ctx) => referralUrl(ctx.baseUrl, r.code) },
  }),
});

const styleFields = {
  slug: z.string(),
  name: z.string(),
  premium: z.boolean(),
  price_coins: z.number().describe('coins to unlock it (0 for the free ones)'),
  unlocked: z.boolean().describe('whether the caller may use it (free ones always)'),
};
const style = z.object(styleFields).meta({ id: 'StylePreset', description: 'A style preset of the generate route' });
export const StylePresetRef = answerObject<StyleView>('StylePreset', style);
export const styleList = answerFrom(z.object({ styles: z.array(style) }), { styles: '' });

/** An unlock as REST answers it: the preset's fields read from `style`, beside the charge. */
export const styleUnlock = answerFrom(
  z.object({
    ...styleFields,
    charged: z.number().describe('coins charged by this call (0 when free or unlocked before)'),
    already_unlocked: z.boolean(),
    new_balance: balance.describe("the caller's spendable coin balance after (held coins not included)"),
    held,
  }),
  Object.fromEntries(Object.keys(styleFields).map((key) => [key, `style.${camelCase(key)}`])),
);
export const StyleUnlockRef = answerObject<UnlockResult>('StyleUnlock', styleUnlock, {
  fields: () => ({ held: { description: "The caller's coins held by pending transfers, beside newBalance" } }),
  more: (t) => ({ style: t.field({ type: StylePresetRef, resolve: (u) => u.style }) }),
});
