// One declaration per operation (docs/architecture.md "One declaration per operation"): a module
// states each operation once — its input (one zod schema, REST's snake_case names, which are also
// the service's), the key rule, the service call, the GraphQL output and, when the spec documents
// it, its REST path and answer. The Pothos field is made here from that declaration; the REST row,
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

/** The REST half of a declaration: the spec's method, path and answer (rest-shim/derive.ts reads it). */
export interface RestBinding {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  summary: string;
  description?: string;
  /** The documented answer after `success`, in REST names; its keys select the GraphQL fields (rest-shim/derive.ts). */
  response: z.ZodObject;
  /** A path parameter named otherwise than its id argument or path field (`bounty_id` for `id`, `id` for `conversion_id`). */
  params?: Record<string, string>;
  /** Input fields the path carries (a slug, a token), in front of any ids: not in the query or body. */
  pathFields?: string[];
  /** Input fields the row sets itself (`status: 'suspended'` for POST .../suspend): not in the request. */
  values?: Record<string, unknown>;
  /** A path parameter's description where it says more than `the <noun> id` (the noun stays the one of messages). */
  paramDescriptions?: Record<string, string>;
  successStatus?: number;
  /** Row-specific failures with when they happen (the OpenAPI document lists them). */
  errors?: Partial<Record<400 | 401 | 402 | 403 | 404 | 409 | 413 | 416 | 429 | 500 | 502 | 503, string>>;
  /** The operation name of the generated document where the typed client knows another one. */
  operationName?: string;
  /** Select a named answer (`.meta({ id })`) by its fragment `<id>Fields` at the top too, where the typed client knows that fragment. */
  answerFragment?: boolean;
  /** Who may call: by the operation's key rule (the default: an API key, or the admin token for ADMIN_TOKEN), or no credentials at all. */
  auth?: 'key' | 'none';
  /**
   * Fields of the answer computed rather than read from the result (their source in `answerFrom` is
   * null): gets the answer read so far, the result's data and the request, returns the whole answer.
   */
  shape?: (answer: Record<string, unknown>, data: unknown, request: { params: Record<string, string>; baseUrl: string }) => Record<string, unknown>;
  /** GraphQL fields `shape` reads that no answer key selects (`rates { key value }`), added to the answer's selection (its fragment with answerFragment). */
  reads?: string;
  /** The GraphQL variables from the REST input's where their shapes differ (a REST object whose GraphQL argument is a list of pairs). */
  variables?: (variables: Record<string, unknown>) => Record<string, unknown>;
  /** Why a result that came back is still a failure to report (`success: false`, HTTP 200): a failed job polls fine. */
  failure?: (data: unknown) => string | null;
  /** A GET the shim may answer again while the account's data of this domain is unchanged (rest-shim/answer-cache.ts). */
  cache?: { domain: 'keys' | 'media'; validUntil?: (data: unknown) => Date | null };
  /** Form fields instead of a JSON body: multipart with these file fields (each a `z.file()` in the input), or urlencoded. */
  form?: { files: string[] };
}

export interface OperationDeclaration<Input extends z.ZodObject | undefined, Ids extends string, Result> {
  kind: Kind;
  /** The GraphQL root field. */
  name: string;
  description?: string;
  key: KeyRule;
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
  /** A Prisma object output resolved with Pothos's selection (`t.prismaField`): `run` gets the `query` to spread into its findUnique/findMany. */
  prisma?: boolean;
  output: OutputType;
  nullable?: boolean;
  /** The field answers its output itself, not a result union with ServiceError (a read that cannot fail). */
  plain?: boolean;
  /** `actor` is the key's account; null only under the ADMIN_TOKEN rule (typed as present for the common case). */
  run: (call: { actor: Actor; ctx: Context; input: Input extends z.ZodObject ? z.input<Input> : Record<string, never>; query: Record<string, unknown> } & Record<Ids, number>) => Promise<Result> | Result;
  /** Several rows of one field (each fixing some input by `values`) share its document, named by the first. */
  rest?: RestBinding | RestBinding[];
}

export type Operation = OperationDeclaration<z.ZodObject | undefined, string, unknown>;

/** Declares an operation and adds its field to the GraphQL schema. */
const declared: Operation[] = [];

/** Every operation declared so far, in declaration order (scripts/print-operations.ts writes their documents). */
export function declaredOperations(): readonly Operation[] {
  return declared;
}

export function defineOperation<Input extends z.ZodObject | undefined = undefined, Ids extends string = never, Result = unknown>(
  declaration: OperationDeclaration<Input, Ids, Result>,
): Operation {
  const operation = declaration as unknown as Operation;
  addField(operation);
  declared.push(operation);
  return operation;
}

function addField(operation: Operation): void {
  const args = graphqlArgs(operation);
  const field = (t: FieldBuilder) => {
    const options = {
      type: operation.output as never,
      nullable: operation.nullable ?? false,
      description: operation.description,
      authScopes: authScopesOf(operation.key),
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
