// One row of the REST route table: a documented method and path, who may call it, the GraphQL
// operation it runs, how request input becomes variables, and how the result becomes the documented JSON.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Source } from './input.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** none: public; key: an API key (scope says which); admin: the operator's admin token. */
export type RouteAuth = 'none' | 'key' | 'admin';

/** What a key needs: a sub-key scope, `master` (account-level, no sub-key), or `any` valid key. */
export type RouteScope = 'scrape' | 'generate' | 'search' | 'media' | 'master' | 'any';

export interface RestInput {
  query: Source;
  body: Source;
  params: Record<string, string>;
}

export interface RouteDefinition<TData = unknown, TVariables = Record<string, unknown>> {
  method: Method;
  /** Express path syntax (`/api/platform/sub-keys/:key/revoke`). */
  path: string;
  auth: RouteAuth;
  scope?: RouteScope;
  summary: string;
  operation: TypedDocumentNode<TData, TVariables>;
  variables?: (input: RestInput) => TVariables;
  /** The documented fields after `success` (never includes `success` itself). */
  shape: (data: TData, input: RestInput) => Record<string, unknown>;
  /** Status of a successful call; 200 unless stated. */
  successStatus?: number;
}

// Generic rows lose their types once in one array; defining them through this keeps each row checked.
export function defineRoute<TData, TVariables>(route: RouteDefinition<TData, TVariables>): RouteDefinition {
  return route as unknown as RouteDefinition;
}
