// GraphQL types of the economy (spec "Economy"): the coin bridge, referrals and style presets; the
// operations are declared in economy.operations.ts. Thin: the rules live in the economy services.
import { builder } from '../../graphql/builder.js';
import { CONVERSION_STATUSES, type BridgeLinkView, type BridgeRateView, type ConversionView } from './bridge.service.js';
import { referralUrl, type ReferralView } from './referral.service.js';
import type { StyleView, UnlockResult } from './styles.service.js';

const BridgePartnerEnum = builder.enumType('BridgePartner', {
  description: 'Where converted credits land: local (this service) or http (an external partner)',
  values: ['local', 'http'] as const,
});
const ConversionStatusEnum = builder.enumType('BridgeConversionStatus', { values: CONVERSION_STATUSES });

export const BridgeRateRef = builder.objectRef<BridgeRateView>('BridgeRate').implement({
  fields: (t) => ({
    coinsPerCredit: t.exposeFloat('coinsPerCredit', { description: 'Coins that make one API credit' }),
    partner: t.field({ type: BridgePartnerEnum, resolve: (r) => r.partner }),
    linked: t.exposeBoolean('linked', { description: 'Whether the caller can convert now (local: always; http: once a partner account is linked)' }),
    partnerAccount: t.exposeString('partnerAccount', { nullable: true, description: "The caller's linked account at the credit partner" }),
    minimumCoins: t.exposeFloat('minimumCoins', { description: 'The fewest coins that make 0.0001 credit' }),
  }),
});

export const BridgeLinkRef = builder.objectRef<BridgeLinkView>('BridgeLink').implement({
  fields: (t) => ({
    partner: t.field({ type: BridgePartnerEnum, resolve: (l) => l.partner }),
    partnerAccount: t.exposeString('partnerAccount'),
    linkedAt: t.expose('linkedAt', { type: 'DateTime' }),
  }),
});

export const BridgeConversionRef = builder.objectRef<ConversionView>('BridgeConversion').implement({
  description: 'A conversion of coins into API credits',
  fields: (t) => ({
    conversionId: t.exposeString('id', { description: 'Also the Idempotency-Key sent to the credit partner' }),
    status: t.field({ type: ConversionStatusEnum, resolve: (c) => c.status }),
    coinsBurned: t.exposeFloat('coinsBurned', { description: 'Coins burned (completed) or held to be burned (pending); 0 when refused or failed' }),
    creditsAdded: t.exposeFloat('creditsAdded', { description: 'Credits added (completed) or to be added (pending); 0 when refused or failed' }),
    newBalance: t.exposeFloat('newBalance', { description: "The caller's spendable coins now (held coins not included)" }),
    held: t.exposeFloat('held', { description: "The caller's coins held by pending transfers (this conversion's while pending, escrowed bounties), beside newBalance" }),
    coinsPerCredit: t.exposeFloat('coinsPerCredit'),
    partner: t.field({ type: BridgePartnerEnum, resolve: (c) => c.partner }),
    partnerAccount: t.exposeString('partnerAccount', { nullable: true }),
    replayed: t.exposeBoolean('replayed', { description: 'True when this idempotency key converted before (nothing more happened now)' }),
    message: t.exposeString('message', { nullable: true, description: 'Pending: why the partner has not confirmed yet; refused or failed: why' }),
    attempts: t.exposeInt('attempts', { description: 'Times the credit partner was asked' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const ReferralRef = builder.objectRef<ReferralView>('Referral').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    url: t.string({ description: 'Sign-up link with the code: <base URL>/signup?ref=<code>', resolve: (r, _a, ctx) => referralUrl(ctx.baseUrl, r.code) }),
    totalReferrals: t.exposeInt('totalReferrals', { description: 'Accounts created with this code' }),
    commissionEarned: t.exposeFloat('commissionEarned', { description: 'Coins received as referral commission, ever' }),
  }),
});

export const StylePresetRef = builder.objectRef<StyleView>('StylePreset').implement({
  fields: (t) => ({
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    premium: t.exposeBoolean('premium'),
    priceCoins: t.exposeFloat('priceCoins', { description: 'Coins to unlock it (0 for the free ones)' }),
    unlocked: t.exposeBoolean('unlocked', { description: 'Whether the caller may use it (free ones always)' }),
  }),
});

export const StyleUnlockRef = builder.objectRef<UnlockResult>('StyleUnlock').implement({
  fields: (t) => ({
    style: t.field({ type: StylePresetRef, resolve: (u) => u.style }),
    charged: t.exposeFloat('charged', { description: 'Coins charged by this call (0 when free or unlocked before)' }),
    alreadyUnlocked: t.exposeBoolean('alreadyUnlocked'),
    newBalance: t.exposeFloat('newBalance', { description: "The caller's spendable coins after (held coins not included)" }),
    held: t.exposeFloat('held', { description: "The caller's coins held by pending transfers, beside newBalance" }),
  }),
});
