// GraphQL surface of money: the caller's wallet, the types of the caller's API credits (their query,
// GET /api/media/credits, is declared in media.operations.ts), and the operator's grants and reward
// settings stated once: their answers (REST names) and the GraphQL types made from them (their
// operations are declared in ledger.operations.ts). Thin: the rules live in the services.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerObject } from '../../graphql/answer-object.js';
import { answerFrom, balance, held, id, timestamp } from '../../platform/wire.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import type { CreditEntryView, CreditSummary } from './credits.service.js';
import type { RewardSettings } from './rewards.service.js';
import { balanceOf, type Balance, type GrantResult, type Wallet, type WalletEntry } from './ledger.service.js';
import { CURRENCIES, fromMinor, type Currency } from './money.js';
import { REWARD_ACTIONS } from './reward-rates.js';

const SPENDABLE = 'What a new payment may spend now (held amounts not included)';
const HELD = 'Held by pending transfers (an escrowed bounty, a conversion waiting for the credit partner, an analysis in progress): not spendable while held';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer S> ? S : never;

/**
 * The two fields of every answer that shows an account's coins (README "Balances"): `balance`,
 * what it may spend now, and `held` beside it. `whose` names the account ("The caller's").
 */
export function balanceFields<T extends Balance>(t: PothosSchemaTypes.ObjectFieldBuilder<Types, T>, whose = "The caller's") {
  return {
    balance: t.float({ description: `${whose} spendable coins now (held coins not included)`, resolve: (r) => r.balance }),
    held: t.float({ description: `${whose} coins held by pending transfers (escrowed bounties, conversions waiting for the credit partner), beside balance`, resolve: (r) => r.held }),
  };
}

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

export const CreditsRef = builder.objectRef<CreditSummary>('Credits').implement({
  fields: (t) => ({
    balance: t.exposeFloat('balance', { description: SPENDABLE }),
    held: t.exposeFloat('held', { description: 'Held by analyses in progress; spendable again when they finish or fail, if not spent' }),
    reserved: t.exposeFloat('held', { deprecationReason: 'Use held (the same amount)' }),
    totalAdded: t.exposeFloat('totalAdded'),
    totalSpent: t.exposeFloat('totalSpent'),
    entries: t.field({ type: [CreditEntryRef], resolve: (c) => c.entries }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});


const RewardRateRef = builder.objectRef<{ key: string; value: number }>('RewardRate').implement({
  fields: (t) => ({ key: t.exposeString('key'), value: t.exposeFloat('value') }),
});

const RewardCapRef = builder.objectRef<{ action: string; cap: number | null }>('RewardDailyCap').implement({
  fields: (t) => ({ action: t.exposeString('action'), cap: t.exposeInt('cap', { nullable: true, description: 'Paid awards per account per UTC day; null: no cap' }) }),
});

/** The settings as REST answers them: objects by action, where GraphQL has lists of pairs (ledger.operations.ts turns one into the other). */
export const rewardSettings = answerFrom(
  z
    .object({
      rates: z.record(z.string(), z.number()).describe('coins per reward action, then coin_multiplier, referral_commission_percent and challenge_multiplier'),
      daily_caps: z.record(z.string(), z.int().nullable()).describe('paid awards per action, account and UTC day; null: no cap'),
      updated_at: timestamp.nullable().describe("the operator's last change (null: configuration only)"),
    })
    .meta({ id: 'RewardSettings', description: 'Reward rates, factors and daily caps in force' }),
  { rates: null, daily_caps: null },
);

export const RewardSettingsRef = answerObject<RewardSettings>('RewardSettings', rewardSettings, {
  more: (t) => ({
    rates: t.field({
      type: [RewardRateRef],
      description: 'Coins per action, then coin_multiplier, referral_commission_percent, challenge_multiplier',
      resolve: (s) => Object.entries(s.rates).map(([key, value]) => ({ key, value })),
    }),
    dailyCaps: t.field({ type: [RewardCapRef], resolve: (s) => REWARD_ACTIONS.map((action) => ({ action, cap: s.dailyCaps[action] })) }),
  }),
});

export const RewardRateInput = builder.inputType('RewardRateInput', {
  fields: (t) => ({ key: t.string({ required: true }), value: t.float({ required: true }) }),
});

export const RewardCapInput = builder.inputType('RewardDailyCapInput', {
  fields: (t) => ({ action: t.string({ required: true }), cap: t.int({ description: 'null: no cap' }) }),
});

const CurrencyEnum = builder.enumType('Currency', { values: CURRENCIES });

const LedgerEntryRef = builder.objectRef<WalletEntry>('LedgerEntry').implement({
  description: 'A posted movement on a wallet: amount positive in, negative out',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: "The transfer's position in the ledger (newest highest)" }),
    transferId: t.exposeString('transferId', { description: 'The ledger transfer (its idempotency key)' }),
    kind: t.exposeString('kind', { description: 'single, or post (a held amount moved)' }),
    amount: t.float({ resolve: (e) => fromMinor(e.amount) }),
    action: t.exposeString('action', { description: 'What it was for: grant, reward:tagging, community:unlock, bounty:claim ...' }),
    reference: t.exposeString('reference', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const LedgerHistoryRef = builder.objectRef<{ entries: WalletEntry[]; total: number; limit: number; offset: number }>('LedgerHistory').implement({
  fields: (t) => ({
    entries: t.field({ type: [LedgerEntryRef], resolve: (h) => h.entries }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

type WalletWithHistory = Wallet & { history: { entries: WalletEntry[]; total: number; limit: number; offset: number } };

const WalletRef = builder.objectRef<WalletWithHistory>('Wallet').implement({
  description: "The caller's wallet in one currency",
  fields: (t) => ({
    currency: t.field({ type: CurrencyEnum, resolve: (w) => w.currency }),
    balance: t.float({ description: SPENDABLE, resolve: (w) => balanceOf(w).balance }),
    held: t.float({ description: HELD, resolve: (w) => balanceOf(w).held }),
    reserved: t.float({ deprecationReason: 'Use held (the same amount)', resolve: (w) => balanceOf(w).held }),
    available: t.float({ deprecationReason: 'Use balance (the same amount)', resolve: (w) => balanceOf(w).balance }),
    totalIn: t.float({ resolve: (w) => fromMinor(w.totalCredited) }),
    totalOut: t.float({ resolve: (w) => fromMinor(w.totalDebited) }),
    history: t.field({ type: LedgerHistoryRef, description: 'Posted movements, newest first', resolve: (w) => w.history }),
  }),
});

builder.queryField('wallet', (t) =>
  t.field({
    type: WalletRef,
    description: "The caller's coins (default) or API credits, with the history of posted movements (limit default 50, max 200; offset)",
    authScopes: authScopesOf(ANY_KEY),
    errors: {},
    args: { currency: t.arg({ type: CurrencyEnum }), limit: t.arg.int(), offset: t.arg.int() },
    resolve: async (_root, args, ctx) => {
      const currency = args.currency ?? 'coins';
      const [wallet, history] = await Promise.all([
        ctx.services.ledger.wallet(ctx.actor!.accountId, currency),
        ctx.services.ledger.history(ctx.actor!.accountId, currency, { limit: args.limit ?? undefined, offset: args.offset ?? undefined }),
      ]);
      return { ...wallet, history };
    },
  }),
);

/** An operator's grant of a currency (adminGrantCredits, adminGrantCoins: ledger.operations.ts): the GraphQL type `typeName` made from its answer. */
export function grantType(typeName: string, currency: Currency) {
  const answer = z.object({
    account_id: id,
    handle: z.string(),
    amount: z.number().describe(`${currency} granted`),
    balance: balance.describe(`the account's spendable ${currency} after the grant (held ${currency} not included)`),
    held,
    transfer_id: z.string().describe('the ledger transfer'),
    replayed: z.boolean().describe('true when this idempotency_key was granted before (nothing added now)'),
  });
  return answerObject<GrantResult & { accountId: number; handle: string }>(typeName, answer, {
    fields: () => ({ held: { description: `The account's ${currency} held by pending transfers, beside balance` } }),
  });
}
