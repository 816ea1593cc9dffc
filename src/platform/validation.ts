// Edge validation with zod: the first problem becomes a 400 that names the field and what was expected.
import { z } from 'zod';
import { InvalidInput } from './errors.js';

export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  // Messages that already start with the field's name ("url is required ...") stand as they are.
  const message = !field || issue.message.startsWith(`${field} `) ? issue.message : `${field}: ${issue.message}`;
  throw new InvalidInput(message, field || undefined);
}

/** GraphQL's Int: 32 bits, signed. Every integer of the API fits it. */
export const INT_MIN = -2_147_483_648;
export const INT_MAX = 2_147_483_647;

/** The one rule for an object id (a path segment or a field): a positive 32-bit integer, GraphQL's Int. */
export const objectId = z.int('expected an integer id').positive('expected a positive id').max(INT_MAX, 'expected an id below 2^31');

/** An object id from a path segment (digits only): a 400 naming the segment and the object otherwise. */
export function parsePathId(value: string | undefined, name: string, what: string): number {
  const digits = value !== undefined && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  const result = objectId.safeParse(digits);
  if (!result.success) throw new InvalidInput(`${name}: expected an integer ${what ? `${what} ` : ''}id`, name);
  return result.data;
}

/**
 * Text the database cannot store: a NUL character, or a UTF-16 surrogate without its pair (it has no
 * UTF-8 form). Returns the path of the first such string in a value (`tags.2`), or null.
 */
export function findUnstorableText(value: unknown, path = ''): string | null {
  // String.prototype.isWellFormed (Node 20) is not in TypeScript's ES2022 library.
  if (typeof value === 'string') return value.includes('\u0000') || !(value as string & { isWellFormed(): boolean }).isWellFormed() ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], path ? `${path}.${i}` : String(i));
      if (found !== null) return found;
    }
    return null;
  }
  // Plain objects, and the null-prototype ones Express makes of query strings and path parameters.
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) {
    for (const [key, item] of Object.entries(value as object)) {
      const found = findUnstorableText(item, path ? `${path}.${key}` : key);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Throws the 400 for such text, naming where it is. */
export function refuseUnstorableText(value: unknown): void {
  const field = findUnstorableText(value);
  if (field === null) return;
  throw new InvalidInput(`${field ? `${field}: ` : ''}text with a NUL character or an unpaired surrogate cannot be stored`, field || undefined);
}
