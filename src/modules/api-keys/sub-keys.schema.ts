// GraphQL surface of sub-keys: the sub-key type, the viewer's connection and a change subscription
// (create, revoke and the REST list are declared in api-keys.operations.ts).
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, MASTER_KEY } from '../access/index.js';
import { subKeyPolicy } from './sub-keys.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { SUB_KEY_EVENT_TYPES, SUB_KEY_PAGE, SUB_KEY_STATUSES, subKeyStatus, type SubKeyUsage } from './sub-keys.service.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import type { SubKeyEvent } from '../../platform/events.js';

const SubKeyStatusEnum = builder.enumType('SubKeyStatus', { values: SUB_KEY_STATUSES });

const SubKeyUsageRef = builder.objectRef<SubKeyUsage>('SubKeyUsage').implement({
  fields: (t) => ({
    requestsUsed: t.exposeInt('requestsUsed'),
    requestsRemaining: t.exposeInt('requestsRemaining', { nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const SubKeyRef = builder.prismaNode('ApiKey', {
  variant: 'SubKey',
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: subKeyPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: subKeyPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id used by the REST API' }),
    prefix: t.exposeString('prefix', { description: 'The first characters of the key, enough to recognise and revoke it' }),
    label: t.exposeString('label', { nullable: true }),
    scopes: t.exposeStringList('scopes'),
    requestBudget: t.exposeInt('requestBudget', { nullable: true, description: 'Most accepted requests the key may make in its life (REST credit_limit); refused requests do not spend it' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    status: t.field({ type: SubKeyStatusEnum, resolve: (key) => subKeyStatus(key) }),
    usage: t.loadable({
      type: SubKeyUsageRef,
      // Counters live outside Prisma's relations: one batched query for all keys on the page.
      load: (keys: Array<Pick<ApiKey, 'id' | 'requestBudget'>>, ctx) => ctx.services.subKeys.usageOf(keys),
      resolve: (key) => ({ id: key.id, requestBudget: key.requestBudget }),
      loaderOptions: { cacheKeyFn: (key) => key.id },
    }),
  }),
});

builder.prismaObjectField(AccountRef, 'subKeys', (t) =>
  t.relatedConnection('apiKeys', {
    type: SubKeyRef,
    description: 'Sub-keys of this account, newest first (master key only)',
    authScopes: authScopesOf(MASTER_KEY),
    cursor: 'id',
    maxSize: SUB_KEY_PAGE.maxSize,
    defaultSize: SUB_KEY_PAGE.defaultSize,
    totalCount: true,
    query: () => ({ where: { kind: 'sub' }, orderBy: { id: 'desc' } }),
  }),
);

export const CreateSubKeyPayload = builder.objectRef<{ subKey: ApiKey; secret: string }>('CreateSubKeyPayload').implement({
  fields: (t) => ({
    subKey: t.field({ type: SubKeyRef, resolve: (p) => p.subKey }),
    secret: t.exposeString('secret', { description: 'The sub-key itself (sk_...): shown only in this response' }),
  }),
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
