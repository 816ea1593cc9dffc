// The GraphQL ways to reach rows an access policy guards (src/modules/access), stated once for every
// owned model (a collection, a schedule, a job ...): the relay node lookup, the account's rows as a
// connection, and one row by its integer id.
import { nodeId } from './builder.js';
import type { Context } from './context.js';
import type { PageSizes } from './connection-cursor.js';
import { defineQuery, type Operation } from './operation.js';
import type { AccessPolicy } from '../modules/access/index.js';
import type { Actor } from '../modules/accounts/index.js';

/**
 * A prismaNode's id, key rule and lookup under the policy: a missing or foreign id is a null node, as
 * relay has it (not Prisma's not-found error, a 500).
 */
export const policyNode = <Where>(policy: AccessPolicy<Where>) => ({
  id: { field: 'id' as const },
  nullable: true as const,
  authScopes: policy.authScopes,
  findUnique: (id: string, ctx: Context) => ({ id: nodeId(id), AND: policy.nodeWhere(ctx) }),
});

/**
 * A relatedConnection's options for the rows of an account the policy lets the caller read, newest
 * first, with their total; `filter` narrows them by the connection's own arguments.
 */
export const newestFirst = <Where, Args = unknown>(policy: AccessPolicy<Where>, page: PageSizes, filter?: (args: Args) => object) => ({
  authScopes: policy.authScopes,
  cursor: 'id' as const,
  ...page,
  totalCount: true as const,
  query: (args: NoInfer<Args>, ctx: Context) => ({ where: filter ? { AND: [policy.where(ctx.actor), filter(args)] } : policy.where(ctx.actor), orderBy: { id: 'desc' as const } }),
});

/** A Query field `(id: Int!)`: one of the caller's rows under the policy, read by `find` with Pothos's selection. */
export const ownedRowQuery = <Where>(policy: AccessPolicy<Where>, output: unknown, find: (ctx: Context, actor: Actor, id: number, query: Record<string, unknown>) => Promise<unknown>): Operation =>
  defineQuery({
    description: `One of the caller's ${policy.noun}s by its integer id`,
    key: policy.key,
    ids: { id: policy.noun },
    plain: true,
    prisma: true,
    output,
    run: ({ ctx, actor, id, query }) => find(ctx, actor, id, query),
  });
