// Spec "Platform": sub-keys.
import { defineRoute } from '../route.js';
import { optionalInt, optionalString, requiredString } from '../input.js';
import { unwrap } from '../result.js';
import { CreateSubKeyDocument, ListSubKeysDocument, RevokeSubKeyDocument, type SubKeyFieldsFragment } from '../generated/operations.js';

/** A sub-key as listed (our shape; the spec leaves it open). The secret itself is never listed. */
export function subKeyJson(k: SubKeyFieldsFragment) {
  return {
    id: k.databaseId,
    prefix: k.prefix,
    label: k.label,
    scopes: k.scopes.join(','),
    credit_limit: k.creditLimit,
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

export const platformRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/platform/sub-keys',
    auth: 'key',
    scope: 'master',
    summary: 'Create a scoped, credit-limited sub-key',
    operation: CreateSubKeyDocument,
    successStatus: 201,
    variables: ({ body }) => ({
      input: {
        label: optionalString(body, 'label'),
        creditLimit: optionalInt(body, 'credit_limit'),
        scopes: optionalString(body, 'scopes'),
        expiresDays: optionalInt(body, 'expires_days'),
      },
    }),
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
    scope: 'master',
    summary: "List the account's sub-keys with usage, newest first (limit default 100, max 200; cursor for the next page)",
    operation: ListSubKeysDocument,
    variables: ({ query }) => ({ first: optionalInt(query, 'limit') ?? 100, after: optionalString(query, 'cursor') }),
    shape: (data) => {
      const connection = data.viewer.subKeys;
      return {
        sub_keys: connection.edges.map((edge) => subKeyJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/platform/sub-keys/:key/revoke',
    auth: 'key',
    scope: 'master',
    summary: 'Revoke a sub-key (the key itself or its listed prefix) at once',
    operation: RevokeSubKeyDocument,
    variables: ({ params }) => ({ key: requiredString(params, 'key') }),
    shape: (data) => {
      const subKey = subKeyJson(unwrap(data.revokeSubKey));
      return { revoked: true, prefix: subKey.prefix, revoked_at: subKey.revoked_at, sub_key: subKey };
    },
  }),
];
