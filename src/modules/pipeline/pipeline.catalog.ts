// GET /api/pipeline/actions, generated from the zod schemas the steps are validated with: each
// action's params (type, required, default, allowed values, description) and outputs, as flat lists
// and as the JSON Schema they come from (z.toJSONSchema). Nothing here is written by hand.
import { z } from 'zod';
import { keyRuleName } from '../access/index.js';
import type { ActionDefinition, ActionName } from './actions/action.js';
import type { JsonSchema } from './pipeline.references.js';

export interface ParamEntry {
  name: string;
  type: string;
  required: boolean;
  /** The default's value; undefined when there is none. */
  default: unknown;
  /** The allowed values of an enumeration; null otherwise. */
  values: string[] | null;
  description: string | null;
}

export interface OutputEntry {
  name: string;
  type: string;
  description: string | null;
}

export interface ActionEntry {
  name: ActionName;
  summary: string;
  /** `scrape`, `generate`, `search` or `media`: the sub-key scope its single route needs; `any`: any key. */
  scope: string;
  params: ParamEntry[];
  outputs: OutputEntry[];
  paramsSchema: JsonSchema;
  outputsSchema: JsonSchema;
}

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

/** A JSON Schema's type in a word or two: `string`, `array of object`, `integer or null`. */
export function typeName(schema: JsonSchema): string {
  const options = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (options) return [...new Set(options.map(typeName))].join(' or ');
  if (Array.isArray(schema.enum)) return typeof schema.enum[0] === 'number' ? 'number' : 'string';
  if (schema.const !== undefined) return typeof schema.const;
  if (schema.type === 'array') return `array of ${typeName((schema.items as JsonSchema | undefined) ?? {})}`;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.join(' or ');
  return 'any';
}

const describe = (schema: JsonSchema) => (typeof schema.description === 'string' ? schema.description : null);

export function catalogEntry(action: ActionDefinition): ActionEntry {
  const paramsSchema = jsonSchemaOf(action.params, 'input');
  const outputsSchema = jsonSchemaOf(action.outputs, 'output');
  const required = new Set((paramsSchema.required as string[] | undefined) ?? []);
  const properties = (schema: JsonSchema) => Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>);
  return {
    name: action.name,
    summary: action.summary,
    scope: keyRuleName(action.key),
    params: properties(paramsSchema).map(([name, schema]) => ({
      name,
      type: typeName(schema),
      required: required.has(name),
      default: schema.default,
      values: Array.isArray(schema.enum) ? schema.enum.map(String) : null,
      description: describe(schema),
    })),
    outputs: properties(outputsSchema).map(([name, schema]) => ({ name, type: typeName(schema), description: describe(schema) })),
    paramsSchema,
    outputsSchema,
  };
}
