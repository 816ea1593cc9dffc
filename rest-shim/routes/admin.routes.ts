// Operator routes behind the admin token (our design; the spec has no admin surface). The CLI uses them.
import { defineRoute } from '../route.js';
import { optionalString, requiredString } from '../input.js';
import { unwrap } from '../result.js';
import {
  AdminCreateAccountDocument,
  AdminGetAccountDocument,
  AdminRotateKeyDocument,
  AdminSetAccountStatusDocument,
  AdminSetAccountTierDocument,
  type AccountFieldsFragment,
} from '../generated/operations.js';

export function accountJson(a: AccountFieldsFragment) {
  return { account_id: a.databaseId, handle: a.handle, email: a.email, status: a.status, tier: a.tier, created_at: a.createdAt };
}

const statusRoute = (action: 'suspend' | 'activate' | 'deactivate', status: 'suspended' | 'active' | 'inactive') =>
  defineRoute({
    method: 'POST',
    path: `/api/admin/accounts/:handle/${action}`,
    auth: 'admin',
    summary: `Set an account ${status}`,
    operation: AdminSetAccountStatusDocument,
    variables: ({ params }) => ({ handle: requiredString(params, 'handle'), status }),
    shape: (data) => accountJson(unwrap(data.adminSetAccountStatus)),
  });

export const adminRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts',
    auth: 'admin',
    summary: 'Create an account; the answer holds its master API key, shown only once',
    operation: AdminCreateAccountDocument,
    successStatus: 201,
    variables: ({ body }) => ({
      handle: requiredString(body, 'handle'),
      email: optionalString(body, 'email'),
      tier: optionalString(body, 'tier'),
    }),
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
    variables: ({ params }) => ({ handle: requiredString(params, 'handle') }),
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
    variables: ({ params, body }) => ({ handle: requiredString(params, 'handle'), tier: requiredString(body, 'tier') }),
    shape: (data) => accountJson(unwrap(data.adminSetAccountTier)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/admin/accounts/:handle/rotate-key',
    auth: 'admin',
    summary: 'Replace the master API key; the old one stops working at once',
    operation: AdminRotateKeyDocument,
    variables: ({ params }) => ({ handle: requiredString(params, 'handle') }),
    shape: (data) => {
      const { account, apiKey } = unwrap(data.adminRotateKey);
      return { ...accountJson(account), api_key: apiKey };
    },
  }),
];
