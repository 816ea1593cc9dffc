// The Pothos schema builder shared by every module's `*.schema.ts`.
import SchemaBuilder from '@pothos/core';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import ErrorsPlugin from '@pothos/plugin-errors';
import PrismaPlugin from '@pothos/plugin-prisma';
import RelayPlugin from '@pothos/plugin-relay';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import type PrismaTypes from '../generated/pothos-prisma-types.js';
import { getDatamodel } from '../generated/pothos-prisma-types.js';
import type { Context } from './context.js';
// Registers the refusals plugin (request budgets) before the builder is made.
import './request-budget.js';
import type { SubKeyScope } from '../modules/api-keys/index.js';
import { ADMIN_TOKEN_REQUIRED_MESSAGE, MASTER_KEY_REQUIRED_MESSAGE, MISSING_KEY_MESSAGE, MISSING_SCOPE_MESSAGE } from '../modules/access/index.js';
import { AppError, Forbidden, InvalidInput, Unauthenticated } from '../platform/errors.js';
import { GraphQLError, valueFromASTUntyped } from 'graphql';

export const builder = new SchemaBuilder<{
  Context: Context;
  PrismaTypes: PrismaTypes;
  AuthScopes: {
    /** Any valid key (master or sub). */
    authenticated: boolean;
    /** The account's master key: account-level operations no sub-key may call. */
    master: boolean;
    /** A sub-key scope; master keys have all of them. */
    scope: SubKeyScope;
    /** The operator's admin token. */
    admin: boolean;
  };
  Scalars: {
    DateTime: { Input: Date; Output: Date };
    File: { Input: File; Output: never };
    /** Any JSON value (pipeline params and step outputs, whose shapes GET /api/pipeline/actions lists). */
    JSON: { Input: unknown; Output: unknown };
  };
  DefaultFieldNullability: false;
}>({
  // refusals right after scope-auth: it must see the ServiceError results the errors plugin makes.
  plugins: [ScopeAuthPlugin, 'refusals' as const, ErrorsPlugin, PrismaPlugin, RelayPlugin, DataloaderPlugin],
  defaultFieldNullability: false,
  scopeAuth: {
    // Check subscription fields when a client subscribes, not only when an event arrives.
    authorizeOnSubscribe: true,
    authScopes: (ctx) => ({
      authenticated: ctx.actor !== null,
      master: ctx.actor?.keyKind === 'master',
      scope: (name: SubKeyScope) => ctx.actor?.scopes.has(name) ?? false,
      admin: ctx.admin,
    }),
    unauthorizedError: (_parent, ctx, _info, result) => scopeError(ctx, result.failure),
  },
  errors: { defaultTypes: [AppError] },
  prisma: {
    client: (ctx) => ctx.services.db.prisma,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    // A global id naming a type that is not ours is the caller's mistake (400), not a 500.
    nodeQueryOptions: { resolve: (_root, { id }, _ctx, _info, resolveNode) => resolveNode(knownNodeType(id)) },
    nodesQueryOptions: { resolve: (_root, { ids }, _ctx, _info, resolveNodes) => resolveNodes(ids.map(knownNodeType)) },
  },
});

function knownNodeType<T extends { typename: string }>(id: T): T {
  try {
    builder.configStore.getTypeConfig(id.typename, 'Object');
    return id;
  } catch {
    throw new InvalidInput(`id: ${JSON.stringify(id.typename.slice(0, 60))} is not a type of this service`, 'id');
  }
}

/** The integer row id inside a relay global id; anything else is the caller's mistake (400), never a 500. */
export function nodeId(id: string | number): number {
  const value = typeof id === 'number' ? id : /^[1-9]\d{0,15}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidInput(`id: expected a global id of an object of this service`, 'id');
  return value;
}

interface Failure {
  kind: string;
  scope?: string;
  parameter?: unknown;
  failures?: Failure[];
}

/** Turns a scope-auth failure into the error callers get: 401 without a key, 403 naming what is missing. */
function scopeError(ctx: Context, failure: Failure): AppError {
  const wanted = flatten(failure);
  if (wanted.some((f) => f.scope === 'admin')) {
    return ctx.admin ? new Forbidden('not allowed') : new Unauthenticated(ADMIN_TOKEN_REQUIRED_MESSAGE);
  }
  if (!ctx.actor) return new Unauthenticated(MISSING_KEY_MESSAGE);
  const scope = wanted.find((f) => f.scope === 'scope');
  if (scope) return new Forbidden(MISSING_SCOPE_MESSAGE(String(scope.parameter)));
  if (wanted.some((f) => f.scope === 'master')) return new Forbidden(MASTER_KEY_REQUIRED_MESSAGE);
  return new Forbidden('not allowed');
}

function flatten(failure: Failure): Failure[] {
  return failure.failures ? failure.failures.flatMap(flatten) : [failure];
}

// A value a scalar refuses is the caller's mistake: a GraphQLError (a TypeError would be answered 500).
builder.scalarType('DateTime', {
  description: 'ISO 8601 timestamp in UTC',
  serialize: (value) => value.toISOString(),
  parseValue: (value) => {
    const date = new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime: expected an ISO 8601 timestamp');
    return date;
  },
});

builder.scalarType('File', {
  description: 'An uploaded file (GraphQL multipart request, or multipart/form-data on REST routes)',
  serialize: () => {
    throw new TypeError('File is an input-only scalar');
  },
  parseValue: (value) => {
    // Yoga hands over its own File implementation, not Node's global class: check the shape.
    const file = value as File | null;
    if (file && typeof file === 'object' && typeof file.arrayBuffer === 'function' && typeof file.name === 'string') return file;
    throw new GraphQLError('File: expected an uploaded file');
  },
});

export const ServiceErrorRef = builder.objectType(AppError, {
  name: 'ServiceError',
  description: 'A refused operation: `status` is the HTTP status the REST API answers with.',
  fields: (t) => ({
    message: t.exposeString('message'),
    status: t.exposeInt('status'),
    code: t.exposeString('code'),
    field: t.exposeString('field', { nullable: true, description: 'The input field the message is about' }),
  }),
});

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

builder.scalarType('JSON', {
  description: 'Any JSON value: pipeline params and step outputs (their shapes: pipelineActions)',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
