// The sub-key operations declared once (docs/architecture.md), master key only: create, list (a
// connection list over `Account.subKeys`, kept by the shim's answer cache) and revoke. Sub-key
// scopes are a list in GraphQL and comma-separated text on the wire (the spec's shape).
import { z } from 'zod';
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { defineConnectionList } from '../../graphql/connection-list.js';
import { MASTER_KEY } from '../access/index.js';
import { answerFrom, timestamp } from '../../platform/wire.js';
import { CreateSubKeyPayload, subKey, SubKeyRef } from './sub-keys.schema.js';
import { createSchema, DEFAULT_CREDIT_LIMIT, revokeSchema, SUB_KEY_PAGE } from './sub-keys.service.js';
import { SUB_KEY_SCOPES } from './scopes.js';

/** A sub-key answer with its scopes as the wire's comma-separated text (GraphQL answers a list). */
const withScopesText = <T extends Record<string, unknown>>(key: T): T => ({ ...key, scopes: (key.scopes as string[]).join(',') });

const createInput = createSchema.extend({
  credit_limit: createSchema.shape.credit_limit.describe(`requests the key may make in its life (default ${DEFAULT_CREDIT_LIMIT}); refused requests do not spend it`),
  scopes: createSchema.shape.scopes.describe(`comma-separated subset of ${SUB_KEY_SCOPES.join(', ')} (default all; a given list must name at least one)`),
  expires_days: createSchema.shape.expires_days.describe('days until it expires (default never)'),
});

export const apiKeysOperations = defineOperations({
  createSubKey: defineMutation({
    key: MASTER_KEY,
    input: createInput,
    inputType: 'CreateSubKeyInput',
    graphqlNames: { credit_limit: 'requestBudget' },
    output: CreateSubKeyPayload,
    run: ({ ctx, actor, input }) => ctx.services.subKeys.create(actor, input),
    rest: {
      route: 'POST /api/platform/sub-keys',
      summary: 'Create a scoped, credit-limited sub-key',
      shape: withScopesText,
      errors: { 409: 'the account has as many live sub-keys as it may' },
      successStatus: 201,
    },
  }),
  listSubKeys: defineConnectionList({
    name: 'ListSubKeys',
    key: MASTER_KEY,
    connection: 'viewer.subKeys',
    page: SUB_KEY_PAGE,
    items: 'sub_keys',
    node: subKey,
    rest: {
      route: 'GET /api/platform/sub-keys',
      summary: `List the account's sub-keys with usage, newest first (limit default ${SUB_KEY_PAGE.defaultSize}, max ${SUB_KEY_PAGE.maxSize}; cursor for the next page)`,
      shape: (answer) => ({ ...answer, sub_keys: (answer.sub_keys as Array<Record<string, unknown>>).map(withScopesText) }),
      // A listed key's status turns expired when its time comes, with nothing changed.
      cache: { domain: 'keys', changesAt: 'expires_at' },
    },
  }),
  revokeSubKey: defineMutation({
    key: MASTER_KEY,
    input: revokeSchema.extend({ key: revokeSchema.shape.key.describe('the sub-key, or its listed prefix') }),
    output: SubKeyRef,
    run: ({ ctx, actor, input }) => ctx.services.subKeys.revoke(actor, input.key),
    rest: {
      route: 'POST /api/platform/sub-keys/:key/revoke',
      pathFields: ['key'],
      secretParams: ['key'],
      summary: 'Revoke a sub-key (the key itself or its listed prefix) at once',
      response: answerFrom(z.object({ revoked: z.literal(true), prefix: z.string(), revoked_at: timestamp.nullable(), sub_key: subKey }), { revoked: null, sub_key: '' }),
      shape: (answer) => ({ revoked: true, ...answer, sub_key: withScopesText(answer.sub_key as Record<string, unknown>) }),
    },
  }),
});
