// REST rows made from the modules' operation declarations (src/graphql/operation.ts): the path,
// request schemas, variables, the GraphQL document, the answer's mapping and the OpenAPI entry all
// follow from one declaration, so none of them is written again here.
import { z } from 'zod';
import { parse, print, type DocumentNode } from 'graphql';
import { routeParts, type Operation, type RestBinding, type RestMethod } from '../src/graphql/operation.js';
import { answerOfType } from '../src/graphql/answer-object.js';
import { argNameOf, camelCase, graphqlArgs, inputFields, isCodec, renamedInside, unwrap } from '../src/graphql/operation-args.js';
import { graphqlSources } from '../src/platform/wire.js';
import { numberFromText, objectId } from '../src/platform/validation.js';
import type { RouteDefinition, RestInput } from './route.js';
import { unwrap as unwrapResult } from './result.js';
import { pathId } from './input.js';
import { connectionListRoute, connectionListText } from './derive-list.js';
import { declaredConnectionLists, type ConnectionList } from '../src/graphql/connection-list.js';

/** The fragment every derived document spreads for failures (declared.graphql holds it for the typed client). */
const SERVICE_ERROR_FRAGMENT = 'fragment ServiceErrorFields on ServiceError { message status code field }';

/** The REST rows of a module's declared operations that the spec documents (the ones with `rest`), and of its connection lists. */
export function restRoutesOf(operations: Record<string, Operation | ConnectionList>): RouteDefinition[] {
  return Object.values(operations).flatMap((operation) =>
    'connection' in operation ? [connectionListRoute(operation)] : restBindingsOf(operation).map((rest) => restRoute(operation, rest)),
  );
}

/** A REST row as the shim reads it: its route's method and path, its answer given or the output type's. */
type RestRow = RestBinding & { method: RestMethod; path: string; response: z.ZodObject };

/** An operation's REST rows (`rest` is one binding or several); the first one's document and answer serve them all. */
function restBindingsOf(operation: Operation): RestRow[] {
  return [operation.rest ?? []].flat().map((rest) => {
    const response = rest.response ?? answerOfType(operation.output);
    if (!response) throw new Error(`${operation.name}: ${rest.route} needs its response: the output type was made from no answer (answerObject, answeredBy)`);
    return { ...rest, ...routeParts(rest.route), response };
  });
}

function restRoute(operation: Operation, rest: RestRow): RouteDefinition {
  const ids = Object.entries(operation.ids ?? {}) as Array<[string, string]>;
  const restName = (arg: string) => Object.entries(rest.params ?? {}).find(([, to]) => to === arg)?.[0] ?? arg;
  const pathFields = rest.pathFields ?? [];
  const pathShape = Object.fromEntries(pathFields.map((field) => [restName(field), withDescription(operation.input!.shape[field]! as z.ZodType, rest.paramDescriptions?.[field])]));
  const idShape = Object.fromEntries(ids.map(([arg, noun]) => [restName(arg), objectId.describe(rest.paramDescriptions?.[restName(arg)] ?? `the ${noun} id`)]));
  const params = pathFields.length + ids.length > 0 ? z.object({ ...pathShape, ...idShape }) : undefined;
  // The rest of the input, when any is left, is the query's or the body's (a row's own input instead, as it is).
  const notCarried = [...pathFields, ...Object.keys(rest.fixed ?? {})];
  const carried = rest.input ?? (operation.input && notCarried.length ? operation.input.omit(Object.fromEntries(notCarried.map((field) => [field, true])) as never) : operation.input);
  const carries = rest.form ? 'form' : rest.method === 'GET' || rest.method === 'DELETE' ? 'query' : 'body';
  const carriedShape = { ...carried?.shape, ...rest.include?.flags.shape };
  const jsonBody = rest.form?.json === true ? carried?.omit(Object.fromEntries(rest.form.files.map((file) => [file, true])) as never) : rest.form?.json;
  // The admin token rule is the shim's `admin` auth; no API key is asked for there.
  const auth = rest.auth ?? (operation.key === null ? 'none' : 'adminToken' in operation.key ? 'admin' : 'key');
  let document: DocumentNode | undefined;
  return {
    kind: 'graphql',
    method: rest.method,
    path: rest.path,
    secretParams: rest.secretParams,
    auth,
    key: auth === 'key' ? (operation.key ?? undefined) : undefined,
    ...(rest.form?.files.length ? { multipart: { files: rest.form.files } } : {}),
    failure: rest.failure && ((data: unknown) => rest.failure!(resultOf(operation, data))),
    cache: rest.cache,
    summary: rest.summary,
    description: rest.description,
    errors: rest.errors,
    successStatus: rest.successStatus,
    request: {
      ...(params ? { params } : {}),
      ...(Object.keys(carriedShape).length > 0 ? { [carries]: rest.include ? (carried ?? z.object({})).extend(rest.include.flags.shape) : carried } : {}),
      ...(jsonBody ? { body: jsonBody } : {}),
    },
    response: rest.response,
    // Built on first use, then kept: the document is the same for every request.
    get operation() {
      if (!document) {
        const fragments = new Map<string, string>();
        const text = operationText(operation, fragments);
        document = parse([text, ...fragments.values(), ...(operation.plain ? [] : [SERVICE_ERROR_FRAGMENT])].join('\n'));
      }
      return document;
    },
    variables: (input: RestInput) => {
      const variables = variablesOf(operation, rest, ids, restName, input, carries === 'query' ? 'query' : 'body');
      return rest.variables ? rest.variables(variables, input) : variables;
    },
    shape: (data: unknown, input: RestInput) => {
      const result = resultOf(operation, data);
      const answer = answerOf(rest.response, result);
      return rest.shape ? rest.shape(answer, result, input) : answer;
    },
  } as RouteDefinition;
}

/** The operation's result in the GraphQL data: the success member's (a ServiceError is thrown as the AppError it was). */
function resultOf(operation: Operation, data: unknown): unknown {
  const field = (data as Record<string, Parameters<typeof unwrapResult>[0]>)[operation.name]!;
  return operation.plain ? field : unwrapResult(field);
}

function variablesOf(operation: Operation, rest: RestRow, ids: Array<[string, string]>, restName: (arg: string) => string, input: RestInput, carries: 'query' | 'body') {
  const variables: Record<string, unknown> = {};
  for (const [arg, noun] of ids) variables[arg] = pathId(input.params, noun, restName(arg));
  const values: Record<string, unknown> = {};
  const inPath = new Set(rest.pathFields);
  // A String argument takes a number as its digits (JSON's `quality: 80` for `quality: String`), a
  // Float or Int one form text as its number (`unlock_price` typed as text by the spec).
  const argTypes = new Map(inputFields(operation).map((arg) => [arg.field, arg.type]));
  for (const [field, schema] of Object.entries(operation.input?.shape ?? {})) {
    const body = rest.form?.files.includes(field) ? { ...input[carries], ...input.files } : input[carries];
    const value = rest.fixed && field in rest.fixed ? rest.fixed[field] : inPath.has(field) ? input.params[restName(field)] : body[field];
    if (value !== undefined) values[argNameOf(operation, field)] = variableOf(schema as z.ZodType, value, argTypes.get(field));
  }
  for (const flag of Object.keys(rest.include?.flags.shape ?? {})) variables[flag] = input.query[flag] === true;
  return operation.inputType ? { ...variables, input: values } : { ...variables, ...values };
}

/** A REST value (checked, typed as the wire has it) as its GraphQL variable. */
function variableOf(schema: z.ZodType, value: unknown, argType: unknown): unknown {
  if (typeof value === 'number' && argType === 'String') return String(value);
  if (typeof value === 'string' && (argType === 'Float' || argType === 'Int')) return numberFromText(value);
  // A wire form of its own (`verified` 0 or 1): the codec's GraphQL side.
  if (isCodec(schema)) return z.decode(schema, value as never);
  return renamedInside(schema, value, 'graphql');
}

/** The GraphQL document of a declared operation: its arguments as variables, the answer's fields selected (fragments it spreads go into `fragments`, by name). */
export function operationText(operation: Operation, fragments = new Map<string, string>()): string {
  const args = graphqlArgs(operation);
  const [rest] = restBindingsOf(operation) as [RestRow];
  const name = rest.operationName ?? operation.name.charAt(0).toUpperCase() + operation.name.slice(1);
  const flags = Object.keys(rest.include?.flags.shape ?? {}).map((flag) => `$${flag}: Boolean!`);
  const declarations = [...args.map((arg) => `$${arg.name}: ${typeText(arg)}`), ...flags].join(', ');
  const passes = args.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
  const success = `${operation.kind === 'query' ? 'Query' : 'Mutation'}${operation.name.charAt(0).toUpperCase()}${operation.name.slice(1)}Success`;
  const fields = selectionOf(rest.response, fragments, { included: rest.include?.fields, top: rest.answerFragment, reads: rest.reads });
  const fragment = rest.fragment;
  if (fragment) fragments.set(fragment, `fragment ${fragment}Fields on ${(operation.output as { name: string }).name} ${fields}`);
  const selection = fragment ? `{ ...${fragment}Fields }` : fields;
  const answer = operation.plain ? selection : `{ __typename ... on ${success} { data ${selection} } ...ServiceErrorFields }`;
  const text = `${operation.kind} ${name}${declarations ? `(${declarations})` : ''} { ${operation.name}${passes ? `(${passes})` : ''} ${answer} }`;
  return print(parse(text));
}

const withDescription = (schema: z.ZodType, description: string | undefined) => (description ? schema.describe(description) : schema);

export function typeText(arg: { type: unknown; required: boolean }): string {
  const named = (type: unknown): string => (Array.isArray(type) ? `[${named(type[0])}!]` : typeof type === 'string' ? type : (type as { name: string }).name);
  return `${named(arg.type)}${arg.required ? '!' : ''}`;
}

type Tree = Map<string, Tree | null>;

/** The GraphQL path of an answer's source: `''` is the result itself. */
const pathOf = (source: string) => (source === '' ? [] : source.split('.'));

/**
 * The GraphQL fields a documented answer needs, by its keys and their sources. An object named in
 * the document (`.meta({ id: 'Bounty' })`) is selected by the fragment `BountyFields` on the GraphQL
 * type of that name, which the typed client exports as a type of its own; so is a named answer
 * itself (`top`), or one that wraps the result (source `''`).
 */
export function selectionOf(schema: z.ZodObject, fragments: Map<string, string>, { included = {}, top = false, reads }: { included?: Record<string, string>; top?: boolean; reads?: string } = {}): string {
  return printTree(top ? objectTree(schema, fragments, reads) : withReads(treeOf(schema, fragments, included), reads));
}

/** An object's selection: its fragment's spread when it is named, else its fields (with the fields a `shape` reads, at the top). */
function objectTree(schema: z.ZodObject, fragments: Map<string, string>, reads?: string): Tree {
  const named = z.globalRegistry.get(schema)?.id;
  if (!named) return withReads(treeOf(schema, fragments), reads);
  const { graphqlType = named, fragment = `${named}Fields` } = graphqlSources.get(schema) ?? {};
  fragments.set(fragment, `fragment ${fragment} on ${graphqlType} ${selectionOf(schema, fragments, { reads })}`);
  return new Map([[`...${fragment}`, null]]);
}

/** `reads` is selection text: a key printed as it is. */
const withReads = (tree: Tree, reads?: string): Tree => (reads ? tree.set(reads, null) : tree);

function treeOf(schema: z.ZodObject, fragments: Map<string, string>, included: Record<string, string> = {}): Tree {
  const tree: Tree = new Map();
  const from = graphqlSources.get(schema)?.from ?? {};
  for (const [key, field] of Object.entries(schema.shape)) {
    // A computed field (source null) is the declaration's `shape` to fill.
    if (from[key] === null) continue;
    const path = pathOf(from[key] ?? camelCase(key));
    if (included[key]) path[0] += ` @include(if: $${included[key]})`;
    const nested = objectOf(field as z.ZodType);
    // An answer that wraps the result (`{ folder: <the result> }`) selects the object (its fragment when named) at the top.
    if (path.length === 0 && nested) for (const [k, v] of objectTree(nested, fragments)) tree.set(k, v);
    let node = tree;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      if (last && !nested) {
        if (!node.has(segment)) node.set(segment, null);
        return;
      }
      const child = node.get(segment) ?? new Map();
      node.set(segment, child);
      if (last && nested) for (const [k, v] of objectTree(nested, fragments)) child.set(k, v);
      node = child;
    });
  }
  return tree;
}

function printTree(tree: Tree): string {
  return `{ ${[...tree].map(([name, child]) => (child ? `${name} ${printTree(child)}` : name)).join(' ')} }`;
}

/** The object schema under a field (or under a list's items), when the field holds objects. */
function objectOf(schema: z.ZodType): z.ZodObject | undefined {
  const { base } = unwrap(schema);
  const def = base._zod.def as { type: string; element?: z.ZodType };
  if (def.type === 'object') return base as z.ZodObject;
  if (def.type === 'array') return objectOf(def.element!);
  return undefined;
}

/** How to read one answer key from the result: its GraphQL path, whether absence leaves it out, and how to read its value. */
interface KeyReader {
  key: string;
  path: string[];
  optional: boolean;
  read: (value: unknown) => unknown;
}

/**
 * The readers of an answer schema, made once per schema (a list answer reads every item by them:
 * walking the zod schema and renaming keys per item cost a quarter of an uncached list's time).
 */
const readers = new WeakMap<z.ZodObject, KeyReader[]>();

function readersOf(schema: z.ZodObject): KeyReader[] {
  let made = readers.get(schema);
  if (made) return made;
  const from = graphqlSources.get(schema)?.from ?? {};
  made = Object.entries(schema.shape).flatMap(([key, field]) =>
    from[key] === null ? [] : [{ key, path: pathOf(from[key] ?? camelCase(key)), optional: (field as z.ZodType)._zod.def.type === 'optional', read: valueReader(field as z.ZodType) }],
  );
  readers.set(schema, made);
  return made;
}

/** The documented answer from the GraphQL result: each key from its source, objects and lists of them in turn. */
export function answerOf(schema: z.ZodObject, data: unknown): Record<string, unknown> {
  const answer: Record<string, unknown> = {};
  for (const { key, path, optional, read } of readersOf(schema)) {
    let value = data;
    for (const segment of path) value = value == null ? value : (value as Record<string, unknown>)[segment];
    // An optional field the result leaves out stays out; a nullable one is null.
    if ((value === undefined || value === null) && optional) continue;
    answer[key] = value === undefined || value === null ? null : read(value);
  }
  return answer;
}

/** answerOf, typed as the schema's answer: for rows written by hand that read a result by a documented answer's sources. */
export const answerAs = <S extends z.ZodObject>(schema: S, data: unknown) => answerOf(schema, data) as z.input<S>;

/** How a present value of this schema is read: objects by their readers, lists item by item, the rest as it is. */
function valueReader(schema: z.ZodType): (value: unknown) => unknown {
  const { base } = unwrap(schema);
  const def = base._zod.def as { type: string; element?: z.ZodType };
  if (def.type === 'object') return (value) => answerOf(base as z.ZodObject, value);
  if (def.type === 'array') {
    const item = valueReader(def.element!);
    return (value) => (Array.isArray(value) ? value.map((entry) => (entry === undefined || entry === null ? null : item(entry))) : value);
  }
  return (value) => value;
}

/** The documents of every declared operation with a REST row, as rest-shim/operations/declared.graphql holds them. */
export async function declaredOperationsText(): Promise<string> {
  await import('../src/graphql/schema.js');
  const { declaredOperations } = await import('../src/graphql/operation.js');
  const fragments = new Map<string, string>();
  // Sorted by name: declaration order follows module import order, which differs between a fresh
  // process and a test worker that has already imported some modules.
  const byName = <T extends { name: string }>(items: readonly T[]) => [...items].sort((a, b) => a.name.localeCompare(b.name, 'en'));
  const texts = byName(declaredOperations()).flatMap((operation) => (operation.rest ? [operationText(operation, fragments)] : []));
  texts.push(...byName(declaredConnectionLists()).map((list) => connectionListText(list, fragments)));
  fragments.set('ServiceErrorFields', SERVICE_ERROR_FRAGMENT);
  const sortedFragments = [...fragments].sort(([a], [b]) => a.localeCompare(b, 'en')).map(([, fragment]) => fragment);
  const all = [...sortedFragments.map((fragment) => print(parse(fragment))), ...texts];
  return `# Generated from the operation declarations (src/modules/*/*.operations.ts) by \`npm run codegen\`; do not edit.\n\n${all.join('\n\n')}\n`;
}
