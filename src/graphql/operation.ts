// One declaration per operation (docs/architecture.md "One declaration per operation"): a module
// states each operation once — its input (one zod schema, REST's snake_case names, which are also
// the service's), the key rule, the service call, the GraphQL output and, when the spec documents
// it, its REST route and answer. The Pothos field is made here from that declaration; the REST row,
// its operation document and its OpenAPI entry are made from it by rest-shim/derive.ts.
import type { z } from 'zod';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { authScopesOf, type KeyRule } from '../modules/access/index.js';
import type { Actor } from '../modules/accounts/index.js';
import { graphqlArgs, snakeInput, type ArgOverrides } from './operation-args.js';

type Kind = 'query' | 'mutation';
// Pothos refs (object, enum, list of them) or scalar names; the builder checks them when the field is made.
type OutputType = unknown;

export type RestMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
/** A REST row's method and path as the spec writes them: `'GET /api/media/list'`. */
export type RestRoute = `${RestMethod} /${string}`;

/** A route's method and path, as the shim's route table has them. */
export function routeParts(route: RestRoute): { method: RestMethod; path: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space) as RestMethod, path: route.slice(space + 1) };
}

/** The REST half of a declaration: the spec's route and answer (rest-shim/derive.ts reads it). */
export interface RestBinding {
  route: RestRoute;
  summary: string;
  description?: string;
  /**
   * The documented answer after `success`, in REST names; its keys select the GraphQL fields (rest-shim/derive.ts).
   * Unless given, the answer the output type was made from (answerObject, answeredBy): the row answers the result whole.
   */
  response?: z.ZodObject;
  /** A path parameter named otherwise than its id argument (`bounty_id` for `id`) or its path field (`code` for `handle`, `id` for `conversion_id`). */
  params?: Record<string, string>;
  /** Input fields the path carries (a slug, a token), in front of any ids: not in the query or body. */
  pathFields?: string[];
  /** Path parameters that carry a secret (a key, a share token): the access log never shows them. */
  secretParams?: string[];
  /**
   * Input values the row itself stands for, not in its path parameters, query or body: a path per
   * decision (`/approve`: `{ decision: 'approved' }`), the trash beside the list (`{ trashed: true }`);
   * undefined leaves the field out of this row (`/portfolio`, the caller's own, beside `/portfolio/:code`).
   */
  fixed?: Record<string, unknown>;
  /** A path parameter's description where it says more than `the <noun> id` (the noun stays the one of messages), or a path field's REST-only description. */
  paramDescriptions?: Record<string, string>;
  successStatus?: number;
  /** Row-specific failures with when they happen (the OpenAPI document lists them). */
  errors?: Partial<Record<400 | 401 | 402 | 403 | 404 | 409 | 413 | 416 | 429 | 500 | 502 | 503, string>>;
  /** The operation name of the generated document where the typed client knows another one. */
  operationName?: string;
  /** The result's fields selected through the fragment `<fragment>Fields` on the output type: codegen writes it to declared.graphql and the typed client exports it (`<fragment>FieldsFragment`). */
  fragment?: string;
  /** Select a named answer (`.meta({ id })`) by its fragment `<id>Fields` at the top too, so that the typed client exports it. */
  answerFragment?: boolean;
  /** Who may call: by the operation's key rule (the default: an API key, or the admin token for ADMIN_TOKEN), or no credentials at all (GraphQL too: the key rule is not checked). */
  auth?: 'key' | 'none';
  /**
   * Fields of the answer computed rather than read from the result (their source in `answerFrom` is
   * null): gets the answer read so far, the result's data and the request, returns the whole answer.
   */
  shape?: (answer: Record<string, unknown>, data: unknown, request: { params: Record<string, string>; baseUrl: string }) => Record<string, unknown>;
  /** GraphQL fields `shape` reads that no answer key selects (`rates { key value }`), added to the answer's selection (its fragment with answerFragment). */
  reads?: string;
  /**
   * The GraphQL variables from the REST input's where their shapes differ (a REST object whose GraphQL
   * argument is a list of pairs, a legacy row's other name of a field); gets the request's checked body and files too.
   */
  variables?: (variables: Record<string, unknown>, request: { body: Record<string, unknown>; files: Record<string, File> }) => Record<string, unknown>;
  /**
   * The row's own request (query or body, and form) instead of the operation's input, taken as it is:
   * a legacy row's (`/api/ocr`: task ocr only, the file also as `file`). The operation's input fields
   * are read from it by name; `fixed` and `variables` make the rest.
   */
  input?: z.ZodObject;
  /** Why a result that came back (the success member's data) is still a failure to report (`success: false`, HTTP 200): a failed job polls fine. */
  failure?: (data: unknown) => string | null;
  /** A GET the shim may answer again while the account's data of this domain is unchanged (rest-shim/answer-cache.ts). */
  cache?: { domain: 'keys' | 'media'; validUntil?: (data: unknown) => Date | null };
  /**
   * Form fields instead of a JSON body: multipart with these file fields (each a `z.file()` in the input), or urlencoded.
   * `json`: a JSON body is taken too: the input without its files (`true`), or this schema (a refined input cannot omit them itself).
   */
  form?: { files: string[]; json?: true | z.ZodObject };
  /**
   * Answer fields selected only when a REST query flag is true (`fields: { urls: 'details' }`): each
   * flag of `flags` is a query field of the row and a Boolean! variable of its document
   * (`urls @include(if: $details)`), not a GraphQL argument.
   */
  include?: { flags: z.ZodObject; fields: Record<string, string> };
}

/** An operation as its module states it (defineQuery, defineMutation). */
export interface OperationDeclaration<Input extends z.ZodObject | undefined, Ids extends string, Result> {
  /** The GraphQL root field: the declaration's key in its module's `defineOperations` record unless given. */
  name?: string;
  description?: string;
  /** Which key may call; null: no key needed (no authScopes, `actor` null without one; a key that is sent is still checked, and the service may ask more of it). */
  key: KeyRule | null;
  /** Integer ids the operation acts on (path parameters in REST), by argument name, with the noun messages use. */
  ids?: Record<Ids, string>;
  input?: Input;
  /** GraphQL types for input fields the zod schema cannot name (enums, input objects). */
  args?: ArgOverrides;
  /** The whole input as one argument `input` of this input object type, instead of one argument per field. */
  inputType?: string;
  /** GraphQL names of input fields that are not the camelCase of their input names (`crowdsource_id: 'itemId'`). */
  graphqlNames?: Record<string, string>;
  /** Input fields the GraphQL schema takes as optional though the input requires them (the service refuses their absence in its own words). */
  optionalArgs?: string[];
  /** Input fields where null is a value (it clears the field): `run` gets the null rather than an absent field. */
  nullClears?: string[];
  /** GraphQL descriptions of arguments (by input field) where GraphQL says what the REST schema does not (`null removes the group`). */
  argDescriptions?: Record<string, string>;
  /** A Prisma object output resolved with Pothos's selection (`t.prismaField`): `run` gets the `query` to spread into its findUnique/findMany. */
  prisma?: boolean;
  output: OutputType;
  nullable?: boolean;
  /** The field answers its output itself, not a result union with ServiceError (a read that cannot fail). */
  plain?: boolean;
  /** `actor` is the key's account; null under the ADMIN_TOKEN rule and without a key under `key: null` (typed as present for the common case). */
  run: (call: { actor: Actor; ctx: Context; input: Input extends z.ZodObject ? z.input<Input> : Record<string, never>; query: Record<string, unknown> } & Record<Ids, number>) => Promise<Result> | Result;
  /** Several rows of one field (a path per decision, a path with and without a handle) share the first row's document and answer. */
  rest?: RestBinding | RestBinding[];
}

export type Operation = OperationDeclaration<z.ZodObject | undefined, string, unknown> & { kind: Kind; name: string };

const declared: Operation[] = [];

/** Every operation declared so far, in declaration order (scripts/print-operations.ts writes their documents). */
export function declaredOperations(): readonly Operation[] {
  return declared;
}

const declaration =
  (kind: Kind) =>
  <Input extends z.ZodObject | undefined = undefined, Ids extends string = never, Result = unknown>(declared: OperationDeclaration<Input, Ids, Result>): Operation =>
    ({ ...declared, kind }) as unknown as Operation;

/** A query's declaration, typed by its input and ids; `defineOperations` names it and adds its field. */
export const defineQuery = declaration('query');
/** A mutation's declaration, typed by its input and ids; `defineOperations` names it and adds its field. */
export const defineMutation = declaration('mutation');

/**
 * A module's operations: each is named by its key (unless its declaration names it) and its field is
 * added to the GraphQL schema, in the record's order. Other entries (connection lists) pass through.
 */
export function defineOperations<T extends Record<string, object>>(operations: T): T {
  for (const [key, entry] of Object.entries(operations)) {
    if (!('kind' in entry) || entry.kind === 'connection' || declared.includes(entry as Operation)) continue;
    const operation = entry as Operation;
    operation.name ??= key;
    addField(operation);
    declared.push(operation);
  }
  return operations;
}

function addField(operation: Operation): void {
  const args = graphqlArgs(operation);
  const field = (t: FieldBuilder) => {
    const options = {
      type: operation.output as never,
      nullable: operation.nullable ?? false,
      description: operation.description,
      // No key rule (key: null), or a row anyone may call (rest.auth 'none'): a keyless field in GraphQL too.
      ...(operation.key && [operation.rest].flat()[0]?.auth !== 'none' ? { authScopes: authScopesOf(operation.key) } : {}),
      ...(operation.plain ? {} : { errors: {} }),
      args: Object.fromEntries(args.map((arg) => [arg.name, t.arg({ type: arg.type as never, required: arg.required, description: arg.description })])),
      resolve: (...params: unknown[]) => {
        // t.prismaField's resolvers take Pothos's selection first.
        const [query, , values, ctx] = (operation.prisma ? params : [{}, ...params]) as [Record<string, unknown>, unknown, Record<string, unknown>, Context];
        const ids = Object.fromEntries(Object.keys(operation.ids ?? {}).map((name) => [name, values[name]]));
        const input = snakeInput(operation, values);
        return operation.run({ actor: ctx.actor!, ctx, input, query, ...ids } as never);
      },
    } as never;
    return operation.prisma ? t.prismaField(options) : t.field(options);
  };
  if (operation.kind === 'query') builder.queryField(operation.name, field as never);
  else builder.mutationField(operation.name, field as never);
}

interface FieldBuilder {
  field: (options: never) => unknown;
  prismaField: (options: never) => unknown;
  arg: (options: { type: never; required: boolean; description?: string }) => unknown;
}
