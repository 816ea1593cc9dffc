// Readers for REST inputs (query string, JSON body, path). Each names the field and what was
// expected when the value has the wrong type; ranges and meaning are the services' business.
import { InvalidInput } from '../src/platform/errors.js';
import { INT_MAX, INT_MIN, parsePathId } from '../src/platform/validation.js';

export type Source = Record<string, unknown>;

export function optionalString(source: Source, name: string): string | undefined {
  const value = source[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidInput(`${name}: expected a string`, name);
  return value;
}

export function requiredString(source: Source, name: string, message?: string): string {
  const value = optionalString(source, name);
  if (value === undefined || value.trim() === '') throw new InvalidInput(message ?? `${name} is required`, name);
  return value;
}

/**
 * Integers from JSON numbers or query-string digits, within GraphQL's Int (32 bits): a larger one is
 * the caller's mistake (400), not a variable GraphQL cannot take (which would surface as a 500).
 */
export function optionalInt(source: Source, name: string): number | undefined {
  const value = source[name];
  if (value === undefined || value === null || value === '') return undefined;
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number)) throw new InvalidInput(`${name}: expected an integer`, name);
  if (number < INT_MIN || number > INT_MAX) throw new InvalidInput(`${name}: expected an integer from ${INT_MIN} to ${INT_MAX}`, name);
  return number;
}

/** Booleans from JSON, or true/false/1/0 in query strings. */
export function optionalBool(source: Source, name: string): boolean | undefined {
  const value = source[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1' || value === 'true') return true;
  if (value === 0 || value === '0' || value === 'false') return false;
  throw new InvalidInput(`${name}: expected true or false (or 1 or 0)`, name);
}

/** A path id (`:id`, `:job_id` ...): one parser for every route. */
export function pathId(params: Record<string, string>, what = '', name = 'id'): number {
  return parsePathId(params[name], name, what);
}
