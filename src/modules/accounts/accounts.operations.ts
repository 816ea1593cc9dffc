// The operator's account operations, declared once (docs/architecture.md): create an account, read
// one, set its status or tier, replace its master key. Behind the admin token (our design; the spec
// has no admin surface); the CLI uses them. The account is named by its handle in the path.
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { ADMIN_TOKEN } from '../access/index.js';
import { AccountRef, AccountStatusEnum, AccountWithKeyRef } from './accounts.schema.js';
import { ACCOUNT_STATUSES, createSchema, tierInputSchema, type AccountStatusValue } from './accounts.service.js';

/** `:handle` in a path: the accounts service reads it by its own rule (also for the ledger and economy grants). */
export const handleInput = z.object({ handle: z.string().describe("the account's handle") });

const statusRow = (action: 'suspend' | 'activate' | 'deactivate', status: AccountStatusValue) => ({
  route: `POST /api/admin/accounts/:handle/${action}` as const,
  pathFields: ['handle'],
  fixed: { status },
  summary: `Set an account ${status}`,
  answerFragment: true,
});

export const accountsOperations = defineOperations({
  adminCreateAccount: defineMutation({
    key: ADMIN_TOKEN,
    input: createSchema.extend({ tier: createSchema.shape.tier.describe('a configured tier (default standard)') }),
    output: AccountWithKeyRef,
    run: ({ ctx, input }) => ctx.services.accounts.create({ handle: input.handle, email: input.email, tier: input.tier, referredBy: input.referred_by }),
    rest: {
      route: 'POST /api/admin/accounts',
      summary: 'Create an account (handle; email, tier and referred_by, a referral code, optional); the answer holds its master API key, shown only once',
      description: "referred_by attaches the new account to the account whose referral code it is (GET /api/economy/referral): that account earns a commission on the new one's rewards. An unknown code is a 400 naming referred_by.",
      errors: { 409: 'the handle or email is taken' },
      successStatus: 201,
    },
  }),
  adminAccount: defineQuery({
    key: ADMIN_TOKEN,
    plain: true,
    input: handleInput,
    output: AccountRef,
    run: ({ ctx, input }) => ctx.services.accounts.byHandle(input.handle),
    rest: { route: 'GET /api/admin/accounts/:handle', pathFields: ['handle'], summary: 'Read an account', operationName: 'AdminGetAccount', answerFragment: true },
  }),
  adminSetAccountStatus: defineMutation({
    key: ADMIN_TOKEN,
    input: handleInput.extend({ status: z.enum(ACCOUNT_STATUSES) }),
    args: { status: AccountStatusEnum },
    output: AccountRef,
    run: ({ ctx, input }) => ctx.services.accounts.setStatus(input.handle, input.status),
    rest: [statusRow('suspend', 'suspended'), statusRow('activate', 'active'), statusRow('deactivate', 'inactive')],
  }),
  adminSetAccountTier: defineMutation({
    key: ADMIN_TOKEN,
    input: handleInput.extend({ tier: tierInputSchema.shape.tier.describe('a configured tier') }),
    output: AccountRef,
    run: ({ ctx, input }) => ctx.services.accounts.setTier(input.handle, input.tier),
    rest: { route: 'POST /api/admin/accounts/:handle/tier', pathFields: ['handle'], summary: "Set an account's tier (body: tier)", answerFragment: true },
  }),
  adminRotateKey: defineMutation({
    key: ADMIN_TOKEN,
    input: handleInput,
    output: AccountWithKeyRef,
    run: ({ ctx, input }) => ctx.services.accounts.rotateKey(input.handle),
    rest: { route: 'POST /api/admin/accounts/:handle/rotate-key', pathFields: ['handle'], summary: 'Replace the master API key; the old one stops working at once' },
  }),
});
