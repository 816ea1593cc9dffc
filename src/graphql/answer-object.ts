// GraphQL object fields made from a documented answer (a zod object of the REST answer, see
// src/platform/wire.ts), so an entity's fields are stated once. Each key becomes the field its
// `answerFrom` source names (or its camelCase), typed from its schema: integers Int, other numbers
// Float, text String, true/false Boolean, `timestamp` DateTime, a `z.enum` the enum made for the
// same values by answerEnum, lists of those, an object the type made from it by answerObject (or
// named by its `.meta({ id })`); nullable when the schema lets it be null or absent; described by its
// `.describe()`. A field reads the parent's property of its name (`databaseId` reads `id`); per-key
// overrides compute it instead (with `load`, batched as t.loadable does). Keys whose source is
// computed (null) or elsewhere (`bounty.x`) are not fields of this type.
import { FieldRef } from '@pothos/core';
import { z } from 'zod';
import { builder } from './builder.js';
import type { Context } from './context.js';
import { camelCase, unwrap } from './operation-args.js';
import { graphqlSources } from '../platform/wire.js';

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer S> ? S : never;
type Fields = Record<string, PothosSchemaTypes.FieldRef<Types>>;

/** What a key's field takes instead of the derived: options merged over them (a resolver, a type, a Prisma `select`, a dataloader `load`), a whole field, or null for none. */
export type FieldOverride<Parent> =
  | ({ type?: unknown; description?: string; resolve?: (parent: Parent, args: Record<string, never>, ctx: Context) => unknown; load?(ids: number[], ctx: Context): unknown } & Record<string, unknown>)
  | PothosSchemaTypes.FieldRef<Types>
  | null;
export type FieldOverrides<Parent, S extends z.ZodObject> = { [K in keyof S['shape']]?: FieldOverride<Parent> };

/** The override of a handle key: the handle of the account `accountOf` names, loaded in one batch per request. */
export const handleOf = <Parent>(accountOf: (parent: Parent) => number | null) => ({
  load: (ids: number[], ctx: Context) => ctx.services.accounts.handlesOf(ids),
  resolve: accountOf,
});

/** The enum types answerEnum made, by their values: a `z.enum` of the same values is typed with it. */
const enumsByValues = new Map<string, unknown[]>();
const valuesKey = (values: readonly string[]) => [...values].sort().join('|');

/** An enum type (builder.enumType) that answers' `z.enum`s of the same values take as their GraphQL type. */
export function answerEnum<const V extends readonly string[]>(name: string, options: { values: V; description?: string }) {
  const ref = builder.enumType(name, options);
  const key = valuesKey(options.values);
  enumsByValues.set(key, [...(enumsByValues.get(key) ?? []), ref]);
  return ref;
}

/** The object types answerObject made, by their answer schema. */
const objectsBySchema = new Map<z.ZodObject, unknown>();
/** The answer each object type was made from (answerObject, answeredBy): a REST row answering it whole need not name it again. */
const answersByType = new WeakMap<object, z.ZodObject>();

/** The answer schema an output type was made from, if it was made from one. */
export const answerOfType = (type: unknown): z.ZodObject | undefined => (typeof type === 'object' && type ? answersByType.get(type) : undefined);

/** Records that `ref` (a Prisma object whose fields are answerFields of `answer`) answers `answer` whole; returns the ref. */
export function answeredBy<R extends object>(ref: R, answer: z.ZodObject): R {
  answersByType.set(ref, answer);
  return ref;
}

/**
 * An object type made from an answer: its fields (answerFields, with `fields`' overrides) and the
 * answer's `.meta({ description })`; `more` adds fields only GraphQL has; `authScopes` are the
 * type's (a policy's).
 */
export function answerObject<Shape, S extends z.ZodObject = z.ZodObject>(
  name: string,
  schema: S,
  options: {
    description?: string;
    authScopes?: PothosSchemaTypes.ObjectTypeOptions<Types, Shape>['authScopes'];
    fields?: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>) => FieldOverrides<Shape, S>;
    more?: (t: PothosSchemaTypes.ObjectFieldBuilder<Types, Shape>) => Fields;
  } = {},
) {
  const ref = builder.objectRef<Shape>(name).implement({
    description: options.description ?? (z.globalRegistry.get(schema)?.description as string | undefined),
    ...(options.authScopes ? { authScopes: options.authScopes } : {}),
    fields: (t) => ({ ...answerFields<Shape, S>(t, schema, options.fields?.(t)), ...options.more?.(t) }),
  });
  objectsBySchema.set(schema, ref);
  return answeredBy(ref, schema);
}

/**
 * The fields of an answer's keys, for any object's field builder `t` (prismaObject, prismaNode,
 * objectRef().implement). The parent's type comes from an override's resolver (`(b: Bounty) => ...`).
 */
export function answerFields<Parent, S extends z.ZodObject>(t: object, schema: S, overrides: FieldOverrides<Parent, S> = {}): Fields {
  const from = graphqlSources.get(schema)?.from ?? {};
  const fields: Fields = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const source = from[key] === undefined ? camelCase(key) : from[key];
    // Computed by the REST row (null), the result itself (''), or a field of another object (`bounty.databaseId`).
    if (!source || source.includes('.')) continue;
    const override = (overrides as Record<string, FieldOverride<Parent> | undefined>)[key];
    if (override === null) continue;
    if (override instanceof FieldRef) {
      fields[source] = override as PothosSchemaTypes.FieldRef<Types>;
      continue;
    }
    const { base, required } = unwrap(field);
    const element = (base._zod.def as { element?: z.ZodType }).element;
    const property = source === 'databaseId' ? 'id' : source;
    // A field that reads the parent's property of its own name is exposed as t.expose* does it: no
    // resolver of ours, so GraphQL's default one reads it, and a type without scopes runs no wrapper.
    const exposed = property === source && override?.resolve === undefined;
    // An override with `load` batches its resolver's keys through a dataloader (t.loadable).
    const make = override?.load ? 'loadable' : 'field';
    fields[source] = (t as unknown as Record<typeof make, (options: unknown) => PothosSchemaTypes.FieldRef<Types>>)[make]({
      // An override's type (a z.enum answered as text) is taken without deriving one.
      type: override?.type ?? outputTypeOf(base, key),
      // A list's items are nullable only when its element schema is.
      nullable: element && !unwrap(element).required ? { list: !required, items: true } : !required,
      description: descriptionOf(field) ?? (source === 'databaseId' ? 'The integer id of the REST API' : undefined),
      ...(exposed ? { extensions: { pothosExposedField: source } } : { resolve: (parent: Record<string, unknown>) => parent[property] }),
      ...override,
    });
  }
  return fields;
}

function outputTypeOf(base: z.ZodType, where: string): unknown {
  const def = base._zod.def as { type: string; element?: z.ZodType; entries?: Record<string, string> };
  switch (def.type) {
    case 'string':
      return (base as z.ZodString).format === 'datetime' ? 'DateTime' : 'String';
    case 'number':
      return (base as z.ZodNumber).format === 'safeint' ? 'Int' : 'Float';
    case 'boolean':
      return 'Boolean';
    case 'enum': {
      const refs = enumsByValues.get(valuesKey(Object.values(def.entries!))) ?? [];
      if (refs.length !== 1) throw new Error(`${where}: ${refs.length ? 'several enums have' : 'no answerEnum has'} these values; give its type in the overrides`);
      return refs[0];
    }
    case 'array':
      return [outputTypeOf(unwrap(def.element!).base, `${where}[]`)];
    case 'object': {
      const named = graphqlSources.get(base as z.ZodObject)?.graphqlType ?? z.globalRegistry.get(base)?.id;
      const type = objectsBySchema.get(base as z.ZodObject) ?? named;
      if (!type) throw new Error(`${where}: an object made by no answerObject and named by no .meta({ id }); give its type in the overrides`);
      return type;
    }
    default:
      throw new Error(`${where}: a ${def.type} answer needs its GraphQL type in the overrides`);
  }
}

/**
 * The schema's `.describe()` (on it or on its nullable/optional wrappers), a sentence's first word
 * capitalized; an object's own description is its type's, not the field's.
 */
function descriptionOf(schema: z.ZodType): string | undefined {
  for (let current: z.ZodType | undefined = schema; current; current = (current._zod.def as { innerType?: z.ZodType }).innerType) {
    if (current._zod.def.type === 'object') return undefined;
    if (current.description) return current.description.replace(/^[a-z]+(?= |$)/, (word) => word[0]!.toUpperCase() + word.slice(1));
  }
  return undefined;
}

/** The answer's `.meta({ description })`: the description of the type made from it. */
export const answerDescription = (schema: z.ZodObject) => z.globalRegistry.get(schema)?.description as string | undefined;
