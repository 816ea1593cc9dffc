// Money's operations, declared once (docs/architecture.md): the caller's wallet (GraphQL only), and
// the operator's side: grants (API credits here, coins in economy.operations.ts, alike but for the
// currency), and reward rates and daily caps, which REST shows as objects and GraphQL as lists of
// pairs. The operator's are behind the admin token; the CLI uses them (`credits grant`, `coins
// grant`, `rewards show|set`).
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import type { Context } from '../../graphql/context.js';
import { pageArgs } from '../../platform/validation.js';
import { ADMIN_TOKEN, ANY_KEY } from '../access/index.js';
import { handleInput } from '../accounts/accounts.operations.js';
import { CurrencyEnum, grantType, RewardCapInput, RewardRateInput, RewardSettingsRef, WalletRef, type WalletView } from './ledger.schema.js';
import { settingsPatchSchema, type RewardSettings } from './rewards.service.js';
import { grantSchemaFor } from './credits.service.js';
import { balanceOf, type GrantResult } from './ledger.service.js';
import { CURRENCIES, fromMinor, type Currency } from './money.js';

/**
 * An operator's grant of a currency: `field` the GraphQL mutation, `typeName` its answer type,
 * `grant` the currency's service call, `path` and `description` its REST row's.
 */
export function defineAdminGrant(
  field: string,
  typeName: string,
  currency: Currency,
  grant: (ctx: Context, accountId: number, input: z.input<ReturnType<typeof grantSchemaFor>>) => Promise<GrantResult>,
  rest: { path: `/${string}`; description: string },
) {
  return defineMutation({
    name: field,
    description: `Adds ${currency} to an account (from the grants account); idempotencyKey makes a retry grant once`,
    key: ADMIN_TOKEN,
    input: handleInput.extend(grantSchemaFor(currency).shape),
    output: grantType(typeName, currency),
    run: async ({ ctx, input: { handle, ...input } }) => {
      const account = await ctx.services.accounts.byHandle(handle);
      return { ...(await grant(ctx, account.id, input)), accountId: account.id, handle: account.handle };
    },
    rest: {
      route: `POST ${rest.path}`,
      pathFields: ['handle'],
      summary: `Grant ${currency === 'credits' ? 'API credits' : currency} to an account (amount; reference and idempotency_key optional)`,
      description: rest.description,
      errors: { 409: 'the idempotency_key was used for another grant' },
    },
  });
}

/** A repeat's answer, as both grants' rows describe it. */
export const REPEATED_GRANT = 'A repeat with the same idempotency_key grants nothing more and answers the first grant (`replayed: true`); the same key with another account or amount is a 409.';

type Pairs<K extends string, V extends string> = Array<Record<K, string> & Record<V, unknown>>;
type Caps = Pairs<typeof CAP.key, typeof CAP.value>;
/** The GraphQL names of a pair's two fields. */
const RATE = { key: 'key', value: 'value' } as const;
const CAP = { key: 'action', value: 'cap' } as const;
const objectOf = <K extends string, V extends string>(pairs: Pairs<K, V> | undefined | null, { key, value }: { key: K; value: V }) => pairs && Object.fromEntries(pairs.map((p) => [p[key], p[value]]));
const pairsOf = (object: unknown, { key, value }: { key: string; value: string }) => object && Object.entries(object).map(([k, v]) => ({ [key]: k, [value]: v }));

/** The settings in REST's shape: objects by action, from GraphQL's lists of pairs (`rates { key value }`). */
const settingsRows = {
  answerFragment: true,
  reads: 'rates { key value } dailyCaps { action cap }',
  shape: (answer: Record<string, unknown>, data: unknown) => {
    const s = data as { rates: Pairs<'key', 'value'>; dailyCaps: Caps };
    return { rates: objectOf(s.rates, RATE), daily_caps: objectOf(s.dailyCaps, CAP), updated_at: answer.updated_at };
  },
};

export const ledgerOperations = defineOperations({
  wallet: defineQuery({
    description: "The caller's coins (default) or API credits, with the history of posted movements (limit default 50, max 200; offset)",
    key: ANY_KEY,
    input: z.object({ currency: z.enum(CURRENCIES).optional(), ...pageArgs(200, 50) }),
    args: { currency: CurrencyEnum },
    output: WalletRef,
    run: async ({ ctx, actor, input: { currency = 'coins', ...page } }): Promise<WalletView> => {
      const [wallet, history] = await Promise.all([ctx.services.ledger.wallet(actor.accountId, currency), ctx.services.ledger.history(actor.accountId, currency, page)]);
      return { currency, ...balanceOf(wallet), totalIn: fromMinor(wallet.totalCredited), totalOut: fromMinor(wallet.totalDebited), history };
    },
  }),
  adminGrantCredits: defineAdminGrant('adminGrantCredits', 'CreditGrant', 'credits', (ctx, accountId, input) => ctx.services.credits.grant(accountId, input), {
    path: '/api/admin/accounts/:handle/credits',
    description: REPEATED_GRANT,
  }),
  adminRewards: defineQuery({
    description: 'Reward rates, factors and daily caps in force',
    key: ADMIN_TOKEN,
    plain: true,
    output: RewardSettingsRef,
    run: ({ ctx }) => ctx.services.rewards.settings(),
    rest: { route: 'GET /api/admin/rewards', summary: 'Reward rates, factors and daily caps in force', ...settingsRows },
  }),
  adminUpdateRewards: defineMutation({
    description: 'Changes reward rates, factors and daily caps for every process (merged over those in force)',
    key: ADMIN_TOKEN,
    input: settingsPatchSchema,
    // GraphQL takes the objects as lists of pairs.
    args: { rates: [RewardRateInput], daily_caps: [RewardCapInput] },
    output: RewardSettingsRef,
    run: ({ ctx, input }): Promise<RewardSettings> => {
      const pairs = input as unknown as { rates?: Pairs<'key', 'value'>; daily_caps?: Caps };
      const caps = pairs.daily_caps?.map((c) => ({ ...c, cap: c.cap ?? null }));
      return ctx.services.rewards.update({ rates: objectOf(pairs.rates, RATE) ?? undefined, daily_caps: objectOf(caps, CAP) ?? undefined });
    },
    rest: {
      route: 'PATCH /api/admin/rewards',
      summary: 'Change reward rates and daily caps for every process (rates, daily_caps: objects merged over those in force)',
      ...settingsRows,
      variables: ({ rates, dailyCaps }) => ({ rates: pairsOf(rates, RATE), dailyCaps: pairsOf(dailyCaps, CAP) }),
    },
  }),
});
