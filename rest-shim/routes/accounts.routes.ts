// Operator routes behind the admin token (our design; the spec has no admin surface). The CLI uses them.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { unwrap } from '../result.js';
import {
  AdminCreateAccountDocument,
  AdminGetAccountDocument,
  AdminRotateKeyDocument,
  AdminSetAccountStatusDocument,
  AdminSetAccountTierDocument,
  type AccountFieldsFragment,
} from '../generated/operations.js';

import { id, timestamp } from '../schemas.js';
import { ACCOUNT_STATUSES, createSchema as createAccountSchema, tierInputSchema, type AccountStatusValue } from '../../src/modules/accounts/accounts.service.js';

/** `:handle` in a path: the accounts service reads it by its own rule (also for the ledger routes). */
export const handleParams = z.object({ handle: z.string().describe("the account's handle") });

const account = z
  .object({
    account_id: id,
    handle: z.string(),
    email: z.string().nullable(),
    status: z.enum(ACCOUNT_STATUSES),
    tier: z.string(),
    created_at: timestamp,
    referral_code: z.string().describe('the code others sign up with to be referred by this account'),
    referred_by: z.string().nullable().describe('handle of the account that referred this one'),
  })
  .meta({ id: 'Account', description: 'An account as the admin routes answer it' });
const accountWithKey = account.extend({ api_key: z.string().describe('the master API key: shown in this answer only') });

export function accountJson(a: AccountFieldsFragment): z.input<typeof account> {
  return { account_id: a.databaseId, handle: a.handle, email: a.email, status: a.status, tier: a.tier, created_at: a.createdAt, referral_code: a.referralCode, referred_by: a.referredBy ?? null };
}

const statusRoute = (action: 'suspend' | 'activate' | 'deactivate', status: AccountStatusValue) =>
  defineRoute({
    method: 'POST',
    path: `/api/admin/accounts/:handle/${action}`,
    auth: 'admin',
    summary: `Set an account ${status}`,
    operation: AdminSetAccountStatusDocument,
    request: { params: handleParams },
    response: account,
    variables: ({ params }) => ({ handle: params.handle!, status }),
    shape: (data) => accountJson(unwrap(data.adminSetAccountStatus)),
  });

export const accountsRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts',
    auth: 'admin',
    summary: 'Create an account (handle; email, tier and referred_by, a referral code, optional); the answer holds its master API key, shown only once',
    description: 'referred_by attaches the new account to the account whose referral code it is (GET /api/economy/referral): that account earns a commission on the new one\'s rewards. An unknown code is a 400 naming referred_by.',
    operation: AdminCreateAccountDocument,
    request: { body: createAccountSchema.extend({ tier: createAccountSchema.shape.tier.describe('a configured tier (default standard)') }) },
    response: accountWithKey,
    errors: { 409: 'the handle or email is taken' },
    successStatus: 201,
    variables: ({ body }) => ({ handle: body.handle, email: body.email, tier: body.tier, referredBy: body.referred_by }),
    shape: (data) => {
      const { account, apiKey } = unwrap(data.adminCreateAccount);
      return { ...accountJson(account), api_key: apiKey };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/admin/accounts/:handle',
    auth: 'admin',
    summary: 'Read an account',
    operation: AdminGetAccountDocument,
    request: { params: handleParams },
    response: account,
    variables: ({ params }) => ({ handle: params.handle! }),
    shape: (data) => accountJson(data.adminAccount),
  }),
  statusRoute('suspend', 'suspended'),
  statusRoute('activate', 'active'),
  statusRoute('deactivate', 'inactive'),
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/tier',
    auth: 'admin',
    summary: "Set an account's tier (body: tier)",
    operation: AdminSetAccountTierDocument,
    request: { params: handleParams, body: tierInputSchema.extend({ tier: tierInputSchema.shape.tier.describe('a configured tier') }) },
    response: account,
    variables: ({ params, body }) => ({ handle: params.handle!, tier: body.tier }),
    shape: (data) => accountJson(unwrap(data.adminSetAccountTier)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/rotate-key',
    auth: 'admin',
    summary: 'Replace the master API key; the old one stops working at once',
    operation: AdminRotateKeyDocument,
    request: { params: handleParams },
    response: accountWithKey,
    variables: ({ params }) => ({ handle: params.handle! }),
    shape: (data) => {
      const { account, apiKey } = unwrap(data.adminRotateKey);
      return { ...accountJson(account), api_key: apiKey };
    },
  }),
];
