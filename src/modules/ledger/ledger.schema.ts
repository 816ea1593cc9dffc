// GraphQL surface of money: the caller's API credits (GET /api/media/credits), and the operator's
// credit grants and reward settings (admin token). Thin: the rules live in the services.
import { builder } from '../../graphql/builder.js';
import type { CreditEntryView, CreditSummary, GrantResult } from './credits.service.js';
import type { RewardSettings } from './rewards.service.js';
import { REWARD_ACTIONS } from './reward-rates.js';

const CreditEntryRef = builder.objectRef<CreditEntryView>('CreditEntry').implement({
  description: 'A posted movement of API credits: amount positive added, negative spent',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: "The entry's position in the ledger (newest highest)" }),
    transferId: t.exposeString('transferId', { description: 'The ledger transfer (its idempotency key)' }),
    amount: t.exposeFloat('amount'),
    action: t.exposeString('action'),
    reference: t.exposeString('reference', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const CreditsRef = builder.objectRef<CreditSummary>('Credits').implement({
  fields: (t) => ({
    balance: t.exposeFloat('balance'),
    reserved: t.exposeFloat('reserved', { description: 'Held by analyses in progress; not spendable until they finish' }),
    totalAdded: t.exposeFloat('totalAdded'),
    totalSpent: t.exposeFloat('totalSpent'),
    entries: t.field({ type: [CreditEntryRef], resolve: (c) => c.entries }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

const CreditGrantRef = builder.objectRef<GrantResult & { accountId: number; handle: string }>('CreditGrant').implement({
  fields: (t) => ({
    accountId: t.exposeInt('accountId'),
    handle: t.exposeString('handle'),
    transferId: t.exposeString('transferId'),
    amount: t.exposeFloat('amount'),
    balance: t.exposeFloat('balance', { description: "The account's credit balance after the grant" }),
    replayed: t.exposeBoolean('replayed', { description: 'True when this idempotency key was granted before (nothing added now)' }),
  }),
});

const RewardRateRef = builder.objectRef<{ key: string; value: number }>('RewardRate').implement({
  fields: (t) => ({ key: t.exposeString('key'), value: t.exposeFloat('value') }),
});

const RewardCapRef = builder.objectRef<{ action: string; cap: number | null }>('RewardDailyCap').implement({
  fields: (t) => ({ action: t.exposeString('action'), cap: t.exposeInt('cap', { nullable: true, description: 'Paid awards per account per UTC day; null: no cap' }) }),
});

const RewardSettingsRef = builder.objectRef<RewardSettings>('RewardSettings').implement({
  fields: (t) => ({
    rates: t.field({
      type: [RewardRateRef],
      description: 'Coins per action, then coin_multiplier, referral_commission_percent, challenge_multiplier',
      resolve: (s) => Object.entries(s.rates).map(([key, value]) => ({ key, value })),
    }),
    dailyCaps: t.field({ type: [RewardCapRef], resolve: (s) => REWARD_ACTIONS.map((action) => ({ action, cap: s.dailyCaps[action] })) }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true }),
  }),
});

const RewardRateInput = builder.inputType('RewardRateInput', {
  fields: (t) => ({ key: t.string({ required: true }), value: t.float({ required: true }) }),
});

const RewardCapInput = builder.inputType('RewardDailyCapInput', {
  fields: (t) => ({ action: t.string({ required: true }), cap: t.int({ description: 'null: no cap' }) }),
});

builder.queryField('credits', (t) =>
  t.field({
    type: CreditsRef,
    description: "The caller's API credits: balance, totals and entries (newest first)",
    authScopes: { scope: 'media' },
    errors: {},
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.credits.summary(ctx.actor!, { limit: args.limit ?? undefined, offset: args.offset ?? undefined }),
  }),
);

builder.queryField('adminRewards', (t) =>
  t.field({
    type: RewardSettingsRef,
    description: 'Reward rates, factors and daily caps in force',
    authScopes: { admin: true },
    resolve: (_root, _args, ctx) => ctx.services.rewards.settings(),
  }),
);

builder.mutationFields((t) => ({
  adminGrantCredits: t.field({
    type: CreditGrantRef,
    description: 'Adds API credits to an account (from the grants account); idempotencyKey makes a retry grant once',
    authScopes: { admin: true },
    errors: {},
    args: {
      handle: t.arg.string({ required: true }),
      amount: t.arg.float({ required: true }),
      reference: t.arg.string(),
      idempotencyKey: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      const account = await ctx.services.accounts.byHandle(args.handle);
      const grant = await ctx.services.credits.grant(account.id, { amount: args.amount, reference: args.reference, idempotency_key: args.idempotencyKey });
      return { ...grant, accountId: account.id, handle: account.handle };
    },
  }),
  adminUpdateRewards: t.field({
    type: RewardSettingsRef,
    description: 'Changes reward rates, factors and daily caps for every process (merged over those in force)',
    authScopes: { admin: true },
    errors: {},
    args: { rates: t.arg({ type: [RewardRateInput] }), dailyCaps: t.arg({ type: [RewardCapInput] }) },
    resolve: (_root, args, ctx) =>
      ctx.services.rewards.update({
        rates: args.rates ? Object.fromEntries(args.rates.map((r) => [r.key, r.value])) : undefined,
        daily_caps: args.dailyCaps ? Object.fromEntries(args.dailyCaps.map((c) => [c.action, c.cap ?? null])) : undefined,
      }),
  }),
}));
