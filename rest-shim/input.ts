// Reading REST inputs (query string, JSON or form body, path) by the route's own request schemas,
// which are the modules' zod schemas: the rules and messages of an input are stated once, in its
// module, and the shim only turns wire text into the types those schemas expect.
import type { z } from 'zod';
import { InvalidInput } from '../src/platform/errors.js';
import { INT_MAX, INT_MIN, jsonNestsTooDeep, numberFromText, parseInput, parsePathId, tooDeeplyNested } from '../src/platform/validation.js';
import type { RestInput, RouteRequest } from './route.js';

export type Source = Record<string, unknown>;

/**
 * The request's query and body, checked by the route's schemas (a 400 naming the field, in the
 * module's words) and typed as those schemas take them. The values are the caller's, only typed:
 * the module parses them again with the same schema, so trimming and defaults happen there, once.
 * A form body (multipart or urlencoded) is checked together with its files.
 */
export function readRequest(request: RouteRequest | undefined, input: RestInput): RestInput {
  if (!request) return input;
  const bodySchema = request.body ?? request.form;
  return {
    ...input,
    query: request.query ? checked(request.query, input.query, true) : input.query,
    body: bodySchema ? checked(bodySchema, request.form ? { ...input.body, ...input.files } : input.body, Boolean(request.form)) : input.body,
  };
}

/** `text`: a query string or form fields, where a field left empty (`?position=`) is an absent one. */
function checked(schema: z.ZodObject, source: Source, text: boolean): Source {
  const values = typedBy(schema, source, text);
  parseInput(schema, values);
  return values;
}

/** A source typed by a schema as readRequest types it (`text`: a query string or form fields), unchecked: for tests over the route table. */
export function typedBy(schema: z.ZodObject, source: Source, text: boolean): Source {
  const present = text ? Object.fromEntries(Object.entries(source).filter(([, value]) => value !== '')) : source;
  return typed(schema, present, '') as Source;
}

/**
 * Query strings and form fields are text: digits (and decimals) become numbers, true/false/1/0 booleans and a
 * JSON array's text an array, where the schema expects one; empty text there is an absent field.
 * Integers must fit GraphQL's Int (32 bits), which every variable of the shim's operations is.
 */
function typed(schema: z.ZodType, value: unknown, path: string): unknown {
  if (value === undefined || value === null) return value;
  const base = baseOf(schema);
  const def = base._zod.def as { type: string; element?: z.ZodType };
  // Empty text where a number, a boolean or a list is expected: the field was left blank.
  if (value === '' && (def.type === 'number' || def.type === 'boolean' || def.type === 'array')) return undefined;
  switch (def.type) {
    case 'number': {
      // Decimals too (min_confidence=0.8); an integer field's own check refuses them in its words.
      const number = numberFromText(value);
      if (typeof number === 'number' && Number.isInteger(number) && (number < INT_MIN || number > INT_MAX)) {
        throw new InvalidInput(`${path}: expected an integer from ${INT_MIN} to ${INT_MAX}`, path);
      }
      return number;
    }
    case 'boolean':
      if (value === 'true' || value === '1' || value === 1) return true;
      if (value === 'false' || value === '0' || value === 0) return false;
      return value;
    case 'array': {
      const list = typeof value === 'string' ? jsonArray(value, path) : value;
      return Array.isArray(list) ? list.map((item, i) => typed(def.element!, item, `${path}.${i}`)) : list;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return value;
      const shape = (base as z.ZodObject).shape;
      const result: Source = { ...(value as Source) };
      for (const [key, field] of Object.entries(shape)) {
        if (key in result) result[key] = typed(field, result[key], path ? `${path}.${key}` : key);
      }
      return result;
    }
    default:
      return value;
  }
}

/** The schema under optional, nullable, default and the like, and the input side of a pipe. */
function baseOf(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if (def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else return current;
  }
}

/**
 * A JSON array sent as text; anything else stays text, for the schema to refuse in its words. Text
 * nested deeper than MAX_NESTING_DEPTH is refused before it is parsed.
 */
function jsonArray(text: string, path: string): unknown {
  if (jsonNestsTooDeep(text)) throw tooDeeplyNested(path);
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : text;
  } catch {
    return text;
  }
}

/** A path id (`:id`, `:job_id` ...): one parser for every route. */
export function pathId(params: Record<string, string>, what = '', name = 'id'): number {
  return parsePathId(params[name], name, what);
}

