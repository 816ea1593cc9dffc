// GraphQL surface of accounts: the caller's own account (viewer) and the admin operations.
import { builder, nodeId } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { accountPolicy } from './accounts.access.js';
import { ACCOUNT_STATUSES, type AccountWithKey } from './accounts.service.js';

const AccountStatusEnum = builder.enumType('AccountStatus', { values: ACCOUNT_STATUSES });

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

const AccountWithKeyRef = builder.objectRef<AccountWithKey>('AccountWithKey').implement({
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

builder.queryField('adminAccount', (t) =>
  t.prismaField({
    type: 'Account',
    authScopes: { admin: true },
    args: { handle: t.arg.string({ required: true }) },
    resolve: async (_query, _root, args, ctx) => ctx.services.accounts.byHandle(args.handle),
  }),
);

builder.mutationFields((t) => ({
  adminCreateAccount: t.field({
    type: AccountWithKeyRef,
    authScopes: { admin: true },
    errors: {},
    args: {
      handle: t.arg.string({ required: true }),
      email: t.arg.string(),
      tier: t.arg.string(),
      referredBy: t.arg.string({ description: "The referrer's referral code" }),
    },
    resolve: (_root, args, ctx) => ctx.services.accounts.create(args),
  }),
  adminSetAccountStatus: t.field({
    type: AccountRef,
    authScopes: { admin: true },
    errors: {},
    args: { handle: t.arg.string({ required: true }), status: t.arg({ type: AccountStatusEnum, required: true }) },
    resolve: (_root, args, ctx) => ctx.services.accounts.setStatus(args.handle, args.status),
  }),
  adminSetAccountTier: t.field({
    type: AccountRef,
    authScopes: { admin: true },
    errors: {},
    args: { handle: t.arg.string({ required: true }), tier: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.accounts.setTier(args.handle, args.tier),
  }),
  adminRotateKey: t.field({
    type: AccountWithKeyRef,
    authScopes: { admin: true },
    errors: {},
    args: { handle: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => ctx.services.accounts.rotateKey(args.handle),
  }),
}));
