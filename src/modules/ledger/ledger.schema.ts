// GraphQL surface of money, stated once: the caller's wallet, the caller's API credits (their query,
// GET /api/media/credits, is declared in media.operations.ts), and the operator's grants and reward
// settings: their answers (REST names, src/platform/wire.ts) and the GraphQL types made from them
// (src/graphql/answer-object.ts). The operations are declared in ledger.operations.ts. Thin: the
// rules live in the services.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, balance, held, id, pageCounts, timestamp } from '../../platform/wire.js';
import type { CreditEntryView, CreditSummary } from './credits.service.js';
import type { RewardSettings } from './rewards.service.js';
import type { Balance, GrantResult, LedgerService, WalletEntry } from './ledger.service.js';
import { CURRENCIES, fromMinor, type Currency } from './money.js';
import { REWARD_ACTIONS } from './reward-rates.js';

const SPENDABLE = 'What a new payment may spend now (held amounts not included)';
const HELD = 'Held by pending transfers (an escrowed bounty, a conversion waiting for the credit partner, an analysis in progress): not spendable while held';
/** An old name of an amount, kept for the clients that read it. */
const sameAs = (field: string) => ({ deprecationReason: `Use ${field} (the same amount)` });

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

export const CurrencyEnum = answerEnum('Currency', { values: CURRENCIES });

/** A posted movement as a wallet's history and the credits show it: amount positive in, negative out. */
const movement = {
  transfer_id: z.string().describe('the ledger transfer (its idempotency key)'),
  amount: z.number(),
  action: z.string(),
  reference: z.string().nullable(),
  created_at: timestamp,
};

const creditEntry = answerFrom(z.object({ id: id.describe("the entry's position in the ledger (newest highest)"), ...movement }), { id: 'databaseId' });
answerObject<CreditEntryView>('CreditEntry', creditEntry, { description: 'A posted movement of API credits: amount positive added, negative spent' });

export const CreditsRef = answerObject<CreditSummary>(
  'Credits',
  z.object({
    balance: balance.describe(SPENDABLE),
    held: held.describe('Held by analyses in progress; spendable again when they finish or fail, if not spent'),
    total_added: z.number(),
    total_spent: z.number(),
    entries: z.array(creditEntry),
    ...pageCounts,
  }),
  { more: (t) => ({ reserved: t.exposeFloat('held', sameAs('held')) }) },
);

const ledgerEntry = z.object({
  seq: z.int().describe("the transfer's position in the ledger (newest highest)"),
  kind: z.string().describe('single, or post (a held amount moved)'),
  ...movement,
  action: movement.action.describe('what it was for: grant, reward:tagging, community:unlock, bounty:claim ...'),
});
answerObject<WalletEntry>('LedgerEntry', ledgerEntry, {
  description: 'A posted movement on a wallet: amount positive in, negative out',
  fields: () => ({ amount: { resolve: (e: WalletEntry) => fromMinor(e.amount) } }),
});

type History = Awaited<ReturnType<LedgerService['history']>>;
const ledgerHistory = z.object({ entries: z.array(ledgerEntry), ...pageCounts });
answerObject<History>('LedgerHistory', ledgerHistory);

/** A wallet as its owner is shown it, with a page of its history (the `wallet` query makes it). */
export type WalletView = Balance & { currency: Currency; totalIn: number; totalOut: number; history: History };

export const WalletRef = answerObject<WalletView>(
  'Wallet',
  z.object({ currency: z.enum(CURRENCIES), balance: balance.describe(SPENDABLE), held: held.describe(HELD), total_in: z.number(), total_out: z.number(), history: ledgerHistory }),
  {
    description: "The caller's wallet in one currency",
    fields: () => ({ history: { description: 'Posted movements, newest first' } }),
    more: (t) => ({ reserved: t.exposeFloat('held', sameAs('held')), available: t.exposeFloat('balance', sameAs('balance')) }),
  },
);

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
