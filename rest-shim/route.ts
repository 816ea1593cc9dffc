// One row of the REST route table: a documented method and path, who may call it, the GraphQL
// operation it runs, how request input becomes variables, and how the result becomes the documented JSON.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import type { Context } from '../src/graphql/context.js';
import type { KeyRule } from '../src/modules/access/index.js';
import type { Source } from './input.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** none: public; key: an API key (`key` says which); admin: the operator's admin token. */
export type RouteAuth = 'none' | 'key' | 'admin';

export interface RestInput<Query = Source, Body = Source> {
  query: Query;
  body: Body;
  params: Record<string, string>;
  /** Base for absolute URLs in answers (PUBLIC_BASE_URL or the request's own origin). */
  baseUrl: string;
  /** Uploaded files of multipart requests, by field name (routes that declare `multipart`). */
  files: Record<string, File>;
}

/**
 * What a route reads, as zod schemas under their REST (snake_case) names: data for the OpenAPI
 * document (rest-shim/openapi.ts), and the contract test checks its valid calls against them.
 * Query values arrive as text; their schemas say what the text must read as (an integer, true/false).
 */
export interface RouteRequest {
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** The JSON body. */
  body?: z.ZodObject;
  /** Form fields: multipart/form-data where the route declares `multipart` (files as z.file()), else urlencoded. */
  form?: z.ZodObject;
}

/**
 * What a route's `variables` reads: its query and body as its request schemas take them (checked
 * and typed by rest-shim/input.ts before `variables` runs); a form body holds its files too.
 */
export type RequestInput<R extends RouteRequest> = RestInput<
  R['query'] extends z.ZodObject ? z.input<R['query']> : Source,
  R['body'] extends z.ZodObject ? z.input<R['body']> : R['form'] extends z.ZodObject ? z.input<R['form']> : Source
>;

/** The documented JSON after `success` (`success` itself is added by the document and the shim). */
export type ResponseSchema = z.ZodObject | z.ZodUnion<readonly z.ZodObject[]>;

/** Statuses a route can fail with, besides the ones its auth and inputs imply (rest-shim/openapi.ts). */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 416 | 429 | 500 | 502 | 503;

/** A non-JSON answer (a file, a ZIP, a page, a redirect): its status, body types and headers. */
export interface RawResponse {
  status: number;
  description: string;
  /** Content types of the body; none for bodiless answers (304, 303). */
  contentTypes?: string[];
  /** Response headers worth naming, with what they carry. */
  headers?: Record<string, string>;
}

interface RouteDocs {
  request?: RouteRequest;
  /** Row-specific failures with when they happen; 400, 401, 403, 404, 413 and 429 follow from auth and inputs. */
  errors?: Partial<Record<ErrorStatus, string>>;
  /** Longer text for the document than the summary. */
  description?: string;
}

/** What every row states, whatever serves it (GraphQL, a stream, a router of its own). */
interface RouteBase extends RouteDocs {
  /** Accepts multipart/form-data besides JSON; these fields may carry one file each. */
  multipart?: { files: string[] };
  method: Method;
  /** Express path syntax (`/api/platform/sub-keys/:key/revoke`). */
  path: string;
  /** Path parameters that carry a secret or a capability (a key, a share token): the access log never shows them. */
  secretParams?: string[];
  auth: RouteAuth;
  /** Which key may call a `key` route (every one states it): SCOPE.media, MASTER_KEY, ANY_KEY, or its module's name for one. */
  key?: KeyRule;
  summary: string;
}

/**
 * A binary route (a file, a ZIP): authenticated and scope-checked like the others, then it writes
 * the response itself from a service, streaming from the blob store.
 */
export interface StreamRouteDefinition extends RouteBase {
  kind: 'stream';
  handle: (context: Context, input: RestInput, req: Request, res: Response) => Promise<void>;
  /** What it answers when it works. */
  produces: RawResponse[];
}

/**
 * A route served by a router of its own under src/http (health check, signed file URLs, the gallery
 * page, the API document): listed so that the OpenAPI document, the 405 answers and the contract
 * test know it. The shim mounts nothing for it.
 */
export interface MountedRouteDefinition extends RouteBase {
  kind: 'mounted';
  /** A JSON answer in the envelope (`success` first), when it answers one. */
  response?: ResponseSchema;
  successStatus?: number;
  /** Its other answers (files, pages, redirects, a document without the envelope). */
  produces?: RawResponse[];
}

export type AnyRoute = RouteDefinition | StreamRouteDefinition | MountedRouteDefinition;

export function defineStreamRoute(route: Omit<StreamRouteDefinition, 'kind'>): StreamRouteDefinition {
  return { ...route, kind: 'stream' };
}

export function defineMountedRoute(route: Omit<MountedRouteDefinition, 'kind'>): MountedRouteDefinition {
  return { ...route, kind: 'mounted' };
}

export interface RouteDefinition<TData = unknown, TVariables = Record<string, unknown>, TResponse extends ResponseSchema = ResponseSchema, TRequest extends RouteRequest = RouteRequest> extends RouteBase {
  request?: TRequest;
  kind?: 'graphql';
  operation: TypedDocumentNode<TData, TVariables>;
  variables?: (input: RequestInput<TRequest>) => TVariables;
  /** The documented answer after `success`: what `shape` returns, field for field and in order. */
  response: TResponse;
  /** The documented fields after `success` (never includes `success` itself). */
  shape: (data: TData, input: RestInput) => z.input<TResponse> & Record<string, unknown>;
  /** Status of a successful call; 200 unless stated. */
  successStatus?: number;
  /**
   * Why the answer reports a failure, or null when it does not (a failed job polls fine, HTTP 200,
   * but answers `success: false`). The shim then answers `success: false` with this as `error`:
   * every `success: false` carries an `error`.
   */
  failure?: (data: TData) => string | null;
  /**
   * A GET whose answer depends on nothing but the key, the input and one domain of the account's
   * data: the shim keeps it and answers the same again while that domain's version stays the same
   * (answer-cache.ts). `validUntil` is when the answer would change with time alone.
   */
  cache?: { domain: DataDomain; validUntil?: (data: TData) => Date | null };
}

/** Domains of an account's data with a version raised by each change (the DataVersion migration). */
export type DataDomain = 'keys' | 'media';

export type CachedRoute = RouteDefinition & { cache: NonNullable<RouteDefinition['cache']> };

// Generic rows lose their types once in one array; defining them through this keeps each row checked.
export function defineRoute<TData, TVariables, TResponse extends ResponseSchema, TRequest extends RouteRequest = RouteRequest>(
  route: RouteDefinition<TData, TVariables, TResponse, TRequest>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}
