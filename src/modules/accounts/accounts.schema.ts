// GraphQL surface of accounts: the Account type, the caller's own account (viewer); the operator's
// operations are declared in accounts.operations.ts.
import { builder, nodeId } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { accountPolicy } from './accounts.access.js';
import { ACCOUNT_STATUSES, type AccountWithKey } from './accounts.service.js';

export const AccountStatusEnum = builder.enumType('AccountStatus', { values: ACCOUNT_STATUSES });

export const AccountRef = builder.prismaNode('Account', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: accountPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: accountPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id used by the REST API' }),
    handle: t.exposeString('handle'),
    email: t.exposeString('email', { nullable: true }),
    status: t.field({ type: AccountStatusEnum, resolve: (a) => a.status }),
    tier: t.exposeString('tier'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    referralCode: t.exposeString('referralCode', { description: 'The code others sign up with to be referred by this account (GET /api/economy/referral)' }),
    referredBy: t.string({
      nullable: true,
      description: "Handle of the account that referred this one (it earns a commission on this account's rewards)",
      select: { referredBy: { select: { handle: true } } },
      resolve: (a) => a.referredBy?.handle ?? null,
    }),
  }),
});

export const AccountWithKeyRef = builder.objectRef<AccountWithKey>('AccountWithKey').implement({
  description: 'An account and its master API key, shown only this once.',
  fields: (t) => ({
    account: t.field({ type: AccountRef, resolve: (r) => r.account }),
    apiKey: t.exposeString('apiKey'),
  }),
});

builder.queryField('viewer', (t) =>
  t.prismaField({
    type: 'Account',
    description: 'The account of the presented API key',
    authScopes: authScopesOf(ANY_KEY),
    resolve: (query, _root, _args, ctx) => ctx.services.accounts.viewer(ctx.actor, query),
  }),
);
