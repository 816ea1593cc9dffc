// Spec "Platform": sub-keys.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { MASTER_KEY } from '../../src/modules/access/index.js';
import { earliestFuture } from '../answer-cache.js';
import { unwrap } from '../result.js';
import { CreateSubKeyDocument, ListSubKeysDocument, RevokeSubKeyDocument, type SubKeyFieldsFragment } from '../generated/operations.js';
import { SUB_KEY_SCOPES } from '../../src/modules/api-keys/scopes.js';
import { createSchema as createSubKeySchema, listSchema, revokeSchema, SUB_KEY_PAGE, SUB_KEY_STATUSES } from '../../src/modules/api-keys/sub-keys.service.js';
import { count, id, nextCursor, timestamp } from '../schemas.js';

const scopesText = z.string().describe(`comma-separated subset of ${SUB_KEY_SCOPES.join(', ')}`);

const subKey = z
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
    usage: z.object({ requests_used: count, requests_remaining: z.int().nullable(), last_used_at: timestamp.nullable() }),
  })
  .meta({ id: 'SubKey', description: 'A sub-key as listed; the secret itself is only in the creation answer' });

/** A sub-key as listed (our shape; the spec leaves it open). The secret itself is never listed. */
export function subKeyJson(k: SubKeyFieldsFragment): z.input<typeof subKey> {
  return {
    id: k.databaseId,
    prefix: k.prefix,
    label: k.label,
    scopes: k.scopes.join(','),
    credit_limit: k.requestBudget,
    expires_at: k.expiresAt,
    created_at: k.createdAt,
    revoked_at: k.revokedAt,
    status: k.status,
    usage: {
      requests_used: k.usage.requestsUsed,
      requests_remaining: k.usage.requestsRemaining,
      last_used_at: k.usage.lastUsedAt,
    },
  };
}

export const apiKeysRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/platform/sub-keys',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Create a scoped, credit-limited sub-key',
    operation: CreateSubKeyDocument,
    request: {
      body: createSubKeySchema.extend({
        credit_limit: createSubKeySchema.shape.credit_limit.describe('requests the key may make in its life'),
        scopes: createSubKeySchema.shape.scopes.describe(`comma-separated subset of ${SUB_KEY_SCOPES.join(', ')} (default all)`),
        expires_days: createSubKeySchema.shape.expires_days.describe('days until it expires (default never)'),
      }),
    },
    response: z.object({
      sub_key: z.string().describe('the secret: shown in this answer only'),
      label: z.string().nullable(),
      credit_limit: z.int().nullable(),
      scopes: scopesText,
      expires_at: timestamp.nullable(),
      id,
      prefix: z.string(),
      created_at: timestamp,
    }),
    errors: { 409: 'the account has as many live sub-keys as it may' },
    successStatus: 201,
    variables: ({ body }) => ({ input: { label: body.label, requestBudget: body.credit_limit, scopes: body.scopes, expiresDays: body.expires_days } }),
    shape: (data) => {
      const { secret, subKey } = unwrap(data.createSubKey);
      const listed = subKeyJson(subKey);
      return {
        sub_key: secret,
        label: listed.label,
        credit_limit: listed.credit_limit,
        scopes: listed.scopes,
        expires_at: listed.expires_at,
        id: listed.id,
        prefix: listed.prefix,
        created_at: listed.created_at,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/platform/sub-keys',
    auth: 'key',
    key: MASTER_KEY,
    summary: `List the account's sub-keys with usage, newest first (limit default ${SUB_KEY_PAGE.defaultSize}, max ${SUB_KEY_PAGE.maxSize}; cursor for the next page)`,
    operation: ListSubKeysDocument,
    request: { query: listSchema },
    response: z.object({ sub_keys: z.array(subKey), total: count, next_cursor: nextCursor }),
    variables: ({ query }) => ({ first: query.limit, after: query.cursor }),
    shape: (data) => {
      const connection = data.viewer.subKeys;
      return {
        sub_keys: connection.edges.map((edge) => subKeyJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
    // A listed key's status turns expired when its time comes, with nothing changed.
    cache: { domain: 'keys', validUntil: (data) => earliestFuture(data.viewer.subKeys.edges.map((edge) => edge.node.expiresAt)) },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/platform/sub-keys/:key/revoke',
    secretParams: ['key'],
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Revoke a sub-key (the key itself or its listed prefix) at once',
    operation: RevokeSubKeyDocument,
    request: { params: revokeSchema.extend({ key: revokeSchema.shape.key.describe('the sub-key, or its listed prefix') }) },
    response: z.object({ revoked: z.literal(true), prefix: z.string(), revoked_at: timestamp.nullable(), sub_key: subKey }),
    variables: ({ params }) => ({ key: params.key! }),
    shape: (data) => {
      const subKey = subKeyJson(unwrap(data.revokeSubKey));
      return { revoked: true as const, prefix: subKey.prefix, revoked_at: subKey.revoked_at, sub_key: subKey };
    },
  }),
];
