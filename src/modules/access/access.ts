// Who may read, change or list a resource: one policy per resource type, in the module that owns
// the type (`<module>.access.ts`), and nothing else says it. A policy names the kind of key that
// reaches the resource at all (a sub-key scope, the master key, or any key) and the database filter
// of the rows an actor may use. Services put that filter into their queries, GraphQL types carry
// the key rule as type-level authScopes, relay node lookups use the filter, and the HTTP routers
// ask services that use it. In the manner of immich's server/src/utils/access.ts.
import { Forbidden, NotFound, Unauthenticated } from '../../platform/errors.js';
import type { Actor } from '../accounts/index.js';
import type { SubKeyScope } from '../api-keys/index.js';

// The answers to a key that cannot reach something. They live here, where the rule is, and this
// file imports no other module at run time: every policy file imports it, so it must not be part
// of an import cycle.
export const MISSING_KEY_MESSAGE = 'API key required: send it in the X-API-Key header (or as the JSON body field api_key)';
export const MISSING_SCOPE_MESSAGE = (scope: string) => `this sub-key lacks the '${scope}' scope needed for this operation`;
export const MASTER_KEY_REQUIRED_MESSAGE = 'this operation needs the account master key; sub-keys cannot call it';

export const ADMIN_TOKEN_REQUIRED_MESSAGE = 'admin token required: send it as X-Admin-Token or Authorization: Bearer';

export type Permission = 'read' | 'change';

/**
 * Which key may call: a sub-key scope (the master key has every scope), the master key, any valid
 * key, or the operator's admin token (no API key serves there). The one way route rows, resolvers,
 * the bot, pipeline steps and services say it: name a rule with the constants below (or a module's
 * own names for them), never a literal.
 */
export type KeyRule = { scope: SubKeyScope } | { master: true } | { anyKey: true } | { adminToken: true };

export const ANY_KEY: KeyRule = { anyKey: true };
export const MASTER_KEY: KeyRule = { master: true };
/** The operator's admin token (X-Admin-Token or Authorization: Bearer), not an API key. */
export const ADMIN_TOKEN: KeyRule = { adminToken: true };
/** One rule per sub-key scope: `SCOPE.media`. */
export const SCOPE = {
  scrape: { scope: 'scrape' },
  generate: { scope: 'generate' },
  search: { scope: 'search' },
  media: { scope: 'media' },
} as const satisfies Record<SubKeyScope, KeyRule>;

/** The word the API documents for a rule (OpenAPI `x-scope`, the pipeline catalogue): a scope, `master` or `any`. */
export function keyRuleName(rule: KeyRule): SubKeyScope | 'master' | 'any' | 'admin' {
  return 'scope' in rule ? rule.scope : 'master' in rule ? 'master' : 'adminToken' in rule ? 'admin' : 'any';
}

export interface PolicyDefinition<Where> {
  /** The Prisma model guarded, e.g. `MediaItem`. */
  model: string;
  /** How messages name one row: `media item`. */
  noun: string;
  key: KeyRule;
  /** Rows the actor may read and list. */
  read: (actor: Actor) => Where;
  /** Rows the actor may change (rename, delete, add to ...); the read rows unless stated. */
  change?: (actor: Actor) => Where;
  /** The operator's admin token reads every row (accounts only). */
  adminReads?: boolean;
}

/** The usual rule: the rows of the actor's own account (the model's `accountId`). */
export const ownAccountRows = (actor: Actor) => ({ accountId: actor.accountId });

/** Pothos scope maps (any of them grants). */
export type AuthScopeMap = { scope?: SubKeyScope; master?: boolean; authenticated?: boolean; admin?: boolean };

/** A rule as Pothos authScopes, for a GraphQL field or type. */
export function authScopesOf(rule: KeyRule): AuthScopeMap {
  return 'scope' in rule ? { scope: rule.scope } : 'master' in rule ? { master: true } : 'adminToken' in rule ? { admin: true } : { authenticated: true };
}

export interface AccessPolicy<Where> {
  readonly model: string;
  readonly noun: string;
  readonly key: KeyRule;
  /** Type-level authScopes for the GraphQL type of this resource. */
  readonly authScopes: AuthScopeMap;
  /** Throws 401 without a key and 403 when the key's kind or scopes cannot reach the resource. */
  checkKey(actor: Actor | null): Actor;
  /** The filter of the rows the actor may use with this permission (after checkKey). */
  where(actor: Actor | null, permission?: Permission): Where;
  /**
   * The filter a relay node lookup uses: the admin token reads every row where the policy says so;
   * anyone else gets `where` (which throws 401/403 for a key that cannot reach the type).
   */
  nodeWhere(ctx: { actor: Actor | null; admin: boolean }): Where | Record<string, never>;
  /** Throws the 404 callers get for a row that is missing or not theirs (the two are not told apart). */
  notFound(id: number | string): never;
  /** All or nothing: throws 404 naming the first wanted id that is not among those the filter found. */
  requireAll(wanted: readonly number[], found: Iterable<number>): void;
  /**
   * One row the actor may use, or the 404: `find` runs the service's query with the filter it is
   * handed (`{ id, AND: <policy filter> }`).
   */
  findOne<Row>(actor: Actor | null, id: number, find: (where: { id: number; AND: Where }) => Promise<Row | null>, permission?: Permission): Promise<Row>;
  /** Deletes one row the actor may change, or throws the 404: `remove` runs the service's deleteMany with the filter it is handed. */
  deleteOne(actor: Actor | null, id: number, remove: (where: { id: number; AND: Where }) => Promise<{ count: number }>): Promise<{ id: number }>;
}

const registry = new Map<string, AccessPolicy<unknown>>();

export function definePolicy<Where>(definition: PolicyDefinition<Where>): AccessPolicy<Where> {
  const { key } = definition;
  const authScopes = authScopesOf(key);
  if (definition.adminReads) authScopes.admin = true;
  const checkKey = (actor: Actor | null): Actor => requireKey(actor, key);
  const where = (actor: Actor | null, permission: Permission = 'read'): Where => {
    const checked = checkKey(actor);
    return permission === 'change' && definition.change ? definition.change(checked) : definition.read(checked);
  };
  const policy: AccessPolicy<Where> = {
    model: definition.model,
    noun: definition.noun,
    key,
    authScopes,
    checkKey,
    where,
    nodeWhere: (ctx) => (definition.adminReads && ctx.admin && !ctx.actor ? {} : where(ctx.actor)),
    notFound: (id) => {
      throw new NotFound(`no ${definition.noun} ${id}`);
    },
    requireAll: (wanted, found) => {
      const have = new Set(found);
      const missing = wanted.find((id) => !have.has(id));
      if (missing !== undefined) policy.notFound(missing);
    },
    findOne: async (actor, id, find, permission) => {
      const row = await find({ id, AND: where(actor, permission) });
      return row ?? policy.notFound(id);
    },
    deleteOne: async (actor, id, remove) => {
      const { count } = await remove({ id, AND: where(actor, 'change') });
      if (count === 0) policy.notFound(id);
      return { id };
    },
  };
  if (registry.has(definition.model)) throw new Error(`a second access policy for ${definition.model}`);
  registry.set(definition.model, policy as AccessPolicy<unknown>);
  return policy;
}

/** Every policy defined so far, by model (tests check that each GraphQL node type has one). */
export function accessPolicies(): ReadonlyMap<string, AccessPolicy<unknown>> {
  return registry;
}

/** The check for work that reads no stored rows (a scrape request, a vision analysis): the key rule alone. */
export function requireKey(actor: Actor | null, rule: KeyRule): Actor {
  // The admin token is checked where the request's credentials are (the shim, GraphQL's authScopes): no API key meets it.
  if ('adminToken' in rule) throw new Unauthenticated(ADMIN_TOKEN_REQUIRED_MESSAGE);
  if (!actor) throw new Unauthenticated(MISSING_KEY_MESSAGE);
  if ('scope' in rule && !actor.scopes.has(rule.scope)) throw new Forbidden(MISSING_SCOPE_MESSAGE(rule.scope));
  if ('master' in rule && actor.keyKind !== 'master') throw new Forbidden(MASTER_KEY_REQUIRED_MESSAGE);
  return actor;
}
