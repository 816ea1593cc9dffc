// Sub-keys as callers see them, stated once: each answer object (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (src/graphql/answer-object.ts); the viewer's connection and a
// change subscription. Create, revoke and the REST list are declared in api-keys.operations.ts.
import { z } from 'zod';
import { prismaConnectionHelpers } from '@pothos/plugin-prisma';
import { builder, nodeId } from '../../graphql/builder.js';
import { answerDescription, answerEnum, answerFields, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { authScopesOf, MASTER_KEY } from '../access/index.js';
import { subKeyPolicy } from './sub-keys.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { SUB_KEY_EVENT_TYPES, SUB_KEY_PAGE, SUB_KEY_STATUSES, subKeyStatus, type SubKeyUsage } from './sub-keys.service.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import type { SubKeyEvent } from '../../platform/events.js';
import { SUB_KEY_SCOPES } from './scopes.js';

answerEnum('SubKeyStatus', { values: SUB_KEY_STATUSES });

export const scopesText = z.string().describe(`comma-separated subset of ${SUB_KEY_SCOPES.join(', ')}`);

const subKeyUsage = z.object({ requests_used: count, requests_remaining: z.int().nullable(), last_used_at: timestamp.nullable() });
const SubKeyUsageRef = answerObject<SubKeyUsage>('SubKeyUsage', subKeyUsage);

export const subKey = answerFrom(
  z
    .object({
      id,
      prefix: z.string().describe('display prefix: names the key in listings and revocations'),
      label: z.string().nullable(),
      scopes: scopesText,
      credit_limit: z.int().nullable().describe('requests the key may make in its life'),
      expires_at: timestamp.nullable(),
      created_at: timestamp,
      revoked_at: timestamp.nullable(),
      status: z.enum(SUB_KEY_STATUSES),
      usage: subKeyUsage,
    })
    .meta({ id: 'SubKey', description: 'A sub-key as listed; the secret itself is only in the creation answer' }),
  { id: 'databaseId', credit_limit: 'requestBudget' },
);

export const SubKeyRef = builder.prismaNode('ApiKey', {
  variant: 'SubKey',
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: subKeyPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: subKeyPolicy.nodeWhere(ctx) }),
  description: answerDescription(subKey),
  fields: (t) =>
    answerFields(t, subKey, {
      // A list in GraphQL, comma-separated text on the wire (the spec's shape).
      scopes: { type: ['String'], description: 'Scopes the key may use' },
      credit_limit: { description: 'Most accepted requests the key may make in its life (REST credit_limit); refused requests do not spend it' },
      status: { resolve: (key: ApiKey) => subKeyStatus(key) },
      usage: t.loadable({
        type: SubKeyUsageRef,
        // Counters live outside Prisma's relations: one batched query for all keys on the page.
        load: (keys: Array<Pick<ApiKey, 'id' | 'requestBudget'>>, ctx) => ctx.services.subKeys.usageOf(keys),
        resolve: (key) => ({ id: key.id, requestBudget: key.requestBudget }),
        loaderOptions: { cacheKeyFn: (key) => key.id },
      }),
    }),
});

// Cursors and page arguments as Pothos' Prisma connections have them (the same cursors as before
// this list was read on the driver); the rows come from SubKeysService.page in one statement.
const subKeyPages = prismaConnectionHelpers(builder, SubKeyRef, { cursor: 'id', maxSize: SUB_KEY_PAGE.maxSize, defaultSize: SUB_KEY_PAGE.defaultSize });

builder.prismaObjectField(AccountRef, 'subKeys', (t) =>
  t.connection(
    {
      type: SubKeyRef,
      description: 'Sub-keys of this account, newest first (master key only)',
      authScopes: authScopesOf(MASTER_KEY),
      resolve: async (account, args, ctx) => {
        const { take, skip, cursor } = subKeyPages.getQuery(args, ctx, () => ({}));
        const { rows, total } = await ctx.services.subKeys.page(ctx.actor, account.id, { take: take!, skip: skip ?? 0, cursor: cursor as { id: number } | undefined });
        return { ...subKeyPages.resolve(rows, args, ctx), totalCount: total };
      },
    },
    { fields: (c) => ({ totalCount: c.int({ resolve: (connection) => (connection as unknown as { totalCount: number }).totalCount }) }) },
  ),
);

export const createdSubKey = answerFrom(
  z.object({
    sub_key: z.string().describe('the secret: shown in this answer only'),
    label: z.string().nullable(),
    credit_limit: z.int().nullable(),
    scopes: scopesText,
    expires_at: timestamp.nullable(),
    id,
    prefix: z.string(),
    created_at: timestamp,
  }),
  { sub_key: 'secret', label: 'subKey.label', credit_limit: 'subKey.requestBudget', scopes: 'subKey.scopes', expires_at: 'subKey.expiresAt', id: 'subKey.databaseId', prefix: 'subKey.prefix', created_at: 'subKey.createdAt' },
);
export const CreateSubKeyPayload = answerObject<{ subKey: ApiKey; secret: string }>('CreateSubKeyPayload', createdSubKey, {
  fields: () => ({ sub_key: { description: 'The sub-key itself (sk_...): shown only in this response' } }),
  more: (t) => ({ subKey: t.field({ type: SubKeyRef, resolve: (p) => p.subKey }) }),
});

const SubKeyEventTypeEnum = builder.enumType('SubKeyEventType', { values: SUB_KEY_EVENT_TYPES });

builder.subscriptionField('subKeyEvents', (t) =>
  t.field({
    type: builder.objectRef<SubKeyEvent>('SubKeyEvent').implement({
      fields: (f) => ({
        type: f.field({ type: SubKeyEventTypeEnum, resolve: (e) => e.type }),
        subKey: f.prismaField({
          type: SubKeyRef,
          resolve: (query, e, _args, ctx) => ctx.services.subKeys.get(ctx.actor, e.subKeyId, query),
        }),
      }),
    }),
    description: "Sub-keys of the caller's account being created or revoked",
    authScopes: authScopesOf(MASTER_KEY),
    subscribe: (_root, _args, ctx) => ctx.services.events.subscribe('subKeyEvents', ctx.actor!.accountId),
    resolve: (event) => event,
  }),
);
