// One row of the REST route table: a documented method and path, who may call it, the GraphQL
// operation it runs, how request input becomes variables, and how the result becomes the documented JSON.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Request, Response } from 'express';
import type { Context } from '../src/graphql/context.js';
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
  /** Base for absolute URLs in answers (PUBLIC_BASE_URL or the request's own origin). */
  baseUrl: string;
  /** Uploaded files of multipart requests, by field name (routes that declare `multipart`). */
  files: Record<string, File>;
}

interface RouteBase {
  /** Accepts multipart/form-data besides JSON; these fields may carry one file each. */
  multipart?: { files: string[] };
  method: Method;
  /** Express path syntax (`/api/platform/sub-keys/:key/revoke`). */
  path: string;
  auth: RouteAuth;
  scope?: RouteScope;
  summary: string;
}

/**
 * A binary route (a file, a ZIP): authenticated and scope-checked like the others, then it writes
 * the response itself from a service, streaming from the blob store.
 */
export interface StreamRouteDefinition extends RouteBase {
  kind: 'stream';
  handle: (context: Context, input: RestInput, req: Request, res: Response) => Promise<void>;
}

export type AnyRoute = RouteDefinition | StreamRouteDefinition;

export function defineStreamRoute(route: Omit<StreamRouteDefinition, 'kind'>): StreamRouteDefinition {
  return { ...route, kind: 'stream' };
}

export interface RouteDefinition<TData = unknown, TVariables = Record<string, unknown>> {
  kind?: 'graphql';
  multipart?: { files: string[] };
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
  /** The answer's `success` when it is not simply true (a failed job polls fine but reports false). */
  successFlag?: (data: TData) => boolean;
}

// Generic rows lose their types once in one array; defining them through this keeps each row checked.
export function defineRoute<TData, TVariables>(route: RouteDefinition<TData, TVariables>): RouteDefinition {
  return route as unknown as RouteDefinition;
}
