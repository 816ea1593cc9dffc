// GraphQL arguments made from an operation's zod input: each field becomes an argument named in
// camelCase (`max_files` -> `maxFiles`), typed from its schema (text String, integers Int, other
// numbers Float, true/false Boolean, lists of those), required when the schema neither defaults nor
// makes it optional. The resolver turns the arguments back into the input by the same names (the
// fields of input objects inside too, as a REST row's variables carry them in camelCase). A field
// whose REST wire form is not its GraphQL form is a `z.codec(wire, graphql)` (`verified` 0 or 1 on the
// wire, a Boolean argument): the argument is typed by the codec's GraphQL side, the resolver encodes
// the argument into the wire form the input takes, and a REST row decodes the wire form into the variable.
import { z } from 'zod';
import { builder } from './builder.js';
import type { Operation } from './operation.js';

/** GraphQL types for fields whose zod schema names no GraphQL type (enums, input objects): a Pothos ref, or `[ref]`. */
export type ArgOverrides = Record<string, unknown>;

export interface DerivedArg {
  name: string;
  /** The input field it fills (snake_case); undefined for an id. */
  field?: string;
  type: unknown;
  required: boolean;
  description?: string;
}

export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

/** The GraphQL argument (or input field) that carries an input field. */
export const argNameOf = (operation: Operation, field: string) => operation.graphqlNames?.[field] ?? camelCase(field);

const inputTypes = new Map<string, unknown>();

/** The operation's arguments: its ids first (Int!), then its input's fields, or one `input` argument of its input type. */
export function graphqlArgs(operation: Operation): DerivedArg[] {
  const ids = Object.keys(operation.ids ?? {}).map((name): DerivedArg => ({ name, type: 'Int', required: true }));
  const fields = inputFields(operation);
  if (!operation.inputType) return [...ids, ...fields];
  let type = inputTypes.get(operation.inputType);
  if (!type) {
    type = builder.inputType(operation.inputType, {
      description: operation.input?.description,
      fields: (t) => Object.fromEntries(fields.map((f) => [f.name, t.field({ type: f.type as never, required: f.required, description: f.description })])),
    });
    inputTypes.set(operation.inputType, type);
  }
  return [...ids, { name: 'input', type, required: true }];
}

/** The arguments (or input object fields) the input's fields become. */
export function inputFields(operation: Operation): DerivedArg[] {
  if (!operation.input) return [];
  return Object.entries(operation.input.shape).map(([field, schema]) => {
    const { base, required } = unwrap(schema as z.ZodType);
    const type = operation.args?.[field] ?? graphqlTypeOf(base, `${operation.name}.${field}`, operation.args);
    const description = operation.argDescriptions?.[field] ?? (schema as z.ZodType).description ?? base.description;
    return { name: argNameOf(operation, field), field, type, required: required && !operation.optionalArgs?.includes(field), description };
  });
}

/**
 * The input the service takes, from the arguments: absent and null arguments are absent fields (the
 * schema's defaults apply), but for `nullClears`. Input objects inside (a list of items) come back
 * in the input's names, their null fields absent.
 */
export function snakeInput(operation: Operation, values: Record<string, unknown>): Record<string, unknown> {
  const source = operation.inputType ? ((values.input ?? {}) as Record<string, unknown>) : values;
  const input: Record<string, unknown> = {};
  for (const [field, schema] of Object.entries(operation.input?.shape ?? {})) {
    const value = source[argNameOf(operation, field)];
    if (value === null && operation.nullClears?.includes(field)) input[field] = null;
    else if (value !== undefined && value !== null) input[field] = isCodec(schema as z.ZodType) ? z.encode(schema as z.ZodType, value) : renamedInside(schema as z.ZodType, value, 'input');
  }
  return input;
}

/**
 * A value of an object field (or a list of objects) with its keys renamed: to GraphQL's camelCase
 * (`thumbnail_url` -> `thumbnailUrl`, for a REST row's variables) or back to the input's names.
 */
export function renamedInside(schema: z.ZodType, value: unknown, to: 'graphql' | 'input'): unknown {
  const { base } = unwrap(schema);
  const def = base._zod.def as { type: string; element?: z.ZodType };
  if (def.type === 'array' && Array.isArray(value)) return value.map((item) => renamedInside(def.element!, item, to));
  if (def.type !== 'object' || value === null || typeof value !== 'object') return value;
  const renamed: Record<string, unknown> = {};
  for (const [field, inner] of Object.entries((base as z.ZodObject).shape)) {
    const item = (value as Record<string, unknown>)[to === 'graphql' ? field : camelCase(field)];
    if (item !== undefined && item !== null) renamed[to === 'graphql' ? camelCase(field) : field] = renamedInside(inner as z.ZodType, item, to);
  }
  return renamed;
}

/** A field whose wire form is not its GraphQL form: a codec under its optional, default or nullable. */
export function isCodec(schema: z.ZodType): boolean {
  for (let current: z.ZodType | undefined = schema; current; current = (current._zod.def as { innerType?: z.ZodType }).innerType) {
    if (current instanceof z.ZodCodec) return true;
  }
  return false;
}

/**
 * The schema under optional, default, nullable and the like (and a pipe's input side, a codec's
 * GraphQL side); required unless one of them lets it be absent.
 */
export function unwrap(schema: z.ZodType): { base: z.ZodType; required: boolean } {
  let current = schema;
  let required = true;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType; out?: z.ZodType };
    if (def.type === 'optional' || def.type === 'default' || def.type === 'nullable' || def.type === 'prefault') required = false;
    if (def.innerType) current = def.innerType;
    else if (current instanceof z.ZodCodec) current = def.out!;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return { base: current, required };
  }
}

function graphqlTypeOf(base: z.ZodType, where: string, overrides?: ArgOverrides): unknown {
  const def = base._zod.def as { type: string; element?: z.ZodType };
  switch (def.type) {
    case 'string':
      return 'String';
    case 'number':
      return (base as z.ZodNumber).format === 'safeint' ? 'Int' : 'Float';
    case 'boolean':
      return 'Boolean';
    case 'file':
      return 'File';
    case 'array':
      return [graphqlTypeOf(unwrap(def.element!).base, `${where}[]`, overrides)];
    default:
      throw new Error(`${where}: a ${def.type} input needs its GraphQL type in the operation's args`);
  }
}
