// Sub-key scopes (spec "Platform"): which parts of the API a sub-key may call.
// The mapping of scopes to endpoints is ours (the spec leaves it open) and is written down in the
// README's scope table; each GraphQL field declares the scope it needs, and every REST route runs a
// GraphQL operation, so one check covers both. Master keys have every scope plus `account`.
export const SUB_KEY_SCOPES = ['scrape', 'generate', 'search', 'media'] as const;
export type SubKeyScope = (typeof SUB_KEY_SCOPES)[number];

export function isSubKeyScope(value: string): value is SubKeyScope {
  return (SUB_KEY_SCOPES as readonly string[]).includes(value);
}

import { Forbidden, Unauthenticated } from '../../platform/errors.js';
import type { Actor } from '../accounts/actor.js';

export const MISSING_SCOPE_MESSAGE = (scope: string) => `this sub-key lacks the '${scope}' scope needed for this operation`;
export const MASTER_KEY_REQUIRED_MESSAGE = 'this operation needs the account master key; sub-keys cannot call it';

/** The check GraphQL fields get from scope-auth, for routes that do not run GraphQL (file streams). */
export function requireRouteScope(actor: Actor | null, scope: string | undefined): asserts actor is Actor {
  if (!actor) throw new Unauthenticated('API key required: send it in the X-API-Key header (or as the JSON body field api_key)');
  if (scope === 'master' && actor.keyKind !== 'master') throw new Forbidden(MASTER_KEY_REQUIRED_MESSAGE);
  if (scope && isSubKeyScope(scope) && !actor.scopes.has(scope)) throw new Forbidden(MISSING_SCOPE_MESSAGE(scope));
}
