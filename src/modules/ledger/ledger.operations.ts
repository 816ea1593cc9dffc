// The operator's grants of money, declared once (docs/architecture.md): API credits here, coins in
// economy.operations.ts, alike but for the currency. Behind the admin token; the CLI uses them
// (`credits grant`, `coins grant`). Reward settings stay in ledger.schema.ts and
// rest-shim/routes/ledger.routes.ts (their REST shapes are records, GraphQL's lists).
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import type { Context } from '../../graphql/context.js';
import { ADMIN_TOKEN } from '../access/index.js';
import { handleInput } from '../accounts/accounts.operations.js';
import { balance, held, id } from '../../platform/wire.js';
import { grantRef } from './ledger.schema.js';
import { grantSchemaFor } from './credits.service.js';
import type { GrantResult } from './ledger.service.js';
import type { Currency } from './money.js';

/**
 * An operator's grant of a currency: `field` the GraphQL mutation, `typeName` its answer type,
 * `grant` the currency's service call, `path` and `description` its REST row's.
 */
export function defineAdminGrant(
  field: string,
  typeName: string,
  currency: Currency,
  grant: (ctx: Context, accountId: number, input: z.input<ReturnType<typeof grantSchemaFor>>) => Promise<GrantResult>,
  rest: { path: string; description: string },
) {
  return defineOperation({
    kind: 'mutation',
    name: field,
    description: `Adds ${currency} to an account (from the grants account); idempotencyKey makes a retry grant once`,
    key: ADMIN_TOKEN,
    input: handleInput.extend(grantSchemaFor(currency).shape),
    output: grantRef(typeName, currency),
    run: async ({ ctx, input: { handle, ...input } }) => {
      const account = await ctx.services.accounts.byHandle(handle);
      return { ...(await grant(ctx, account.id, input)), accountId: account.id, handle: account.handle };
    },
    rest: {
      method: 'POST',
      path: rest.path,
      pathFields: ['handle'],
      summary: `Grant ${currency === 'credits' ? 'API credits' : currency} to an account (amount; reference and idempotency_key optional)`,
      description: rest.description,
      response: z.object({
        account_id: id,
        handle: z.string(),
        amount: z.number().describe(`${currency} granted`),
        balance: balance.describe(`the account's spendable ${currency} after the grant (held ${currency} not included)`),
        held,
        transfer_id: z.string().describe('the ledger transfer'),
        replayed: z.boolean().describe('true when this idempotency_key was granted before (nothing added now)'),
      }),
      errors: { 409: 'the idempotency_key was used for another grant' },
    },
  });
}

/** A repeat's answer, as both grants' rows describe it. */
export const REPEATED_GRANT = 'A repeat with the same idempotency_key grants nothing more and answers the first grant (`replayed: true`); the same key with another account or amount is a 409.';

export const ledgerOperations = {
  adminGrantCredits: defineAdminGrant('adminGrantCredits', 'CreditGrant', 'credits', (ctx, accountId, input) => ctx.services.credits.grant(accountId, input), {
    path: '/api/admin/accounts/:handle/credits',
    description: REPEATED_GRANT,
  }),
};
