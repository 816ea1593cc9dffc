// Accounts as callers see them, stated once: the answer objects (REST names, src/platform/wire.ts)
// and the GraphQL types made from them (src/graphql/answer-object.ts), with the caller's own account
// (viewer). The operator's operations are declared in accounts.operations.ts.
import { z } from 'zod';
import { builder, nodeId } from '../../graphql/builder.js';
import {answeredBy, answerEnum, answerFields, answerObject } from '../../graphql/answer-object.js';
import { camelCase } from '../../graphql/operation-args.js';
import { answerFrom, id, timestamp } from '../../platform/wire.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { accountPolicy } from './accounts.access.js';
import { ACCOUNT_STATUSES, type AccountWithKey } from './accounts.service.js';

export const AccountStatusEnum = answerEnum('AccountStatus', { values: ACCOUNT_STATUSES });

const accountFields = {
  account_id: id,
  handle: z.string(),
  email: z.string().nullable(),
  status: z.enum(ACCOUNT_STATUSES),
  tier: z.string(),
  created_at: timestamp,
  referral_code: z.string().describe('the code others sign up with to be referred by this account'),
  referred_by: z.string().nullable().describe('handle of the account that referred this one'),
};
export const account = answerFrom(z.object(accountFields).meta({ id: 'Account', description: 'An account as the admin routes answer it' }), { account_id: 'databaseId' });
/** The account and its new master key: the account's fields read from `account`. */
export const accountWithKey = answerFrom(
  z.object({ ...accountFields, api_key: z.string().describe('the master API key: shown in this answer only') }),
  { ...Object.fromEntries(Object.keys(accountFields).map((key) => [key, `account.${camelCase(key)}`])), account_id: 'account.databaseId', api_key: 'apiKey' },
);

export const AccountRef = answeredBy(builder.prismaNode('Account', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: accountPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: accountPolicy.nodeWhere(ctx) }),
  fields: (t) =>
    answerFields(t, account, {
      referral_code: { description: 'The code others sign up with to be referred by this account (GET /api/economy/referral)' },
      referred_by: {
        description: "Handle of the account that referred this one (it earns a commission on this account's rewards)",
        select: { referredBy: { select: { handle: true } } },
        resolve: (a: { referredBy?: { handle: string } | null }) => a.referredBy?.handle ?? null,
      },
    }),
}), account);

export const AccountWithKeyRef = answerObject<AccountWithKey>('AccountWithKey', accountWithKey, {
  description: 'An account and its master API key, shown only this once.',
  more: (t) => ({ account: t.field({ type: AccountRef, resolve: (r) => r.account }) }),
});

builder.queryField('viewer', (t) =>
  t.prismaField({
    type: 'Account',
    description: 'The account of the presented API key',
    authScopes: authScopesOf(ANY_KEY),
    resolve: (query, _root, _args, ctx) => ctx.services.accounts.viewer(ctx.actor, query),
  }),
);
