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

/**
 * An integer field of an input (limit, offset, days ...): `expected <what>` for anything that is not
 * a whole number. Chain the range (`.min`, `.max`) and usually a `.default`.
 */
export const int = (what: string) => z.number({ error: `expected ${what}` }).int(`expected ${what}`);

/** A page's `limit`: 1 to `max`, `fallback` when absent. */
export const limitArg = (max: number, fallback: number) => int('an integer').min(1, 'expected at least 1').max(max, `expected at most ${max}`).default(fallback);

/** A page's `limit` (see limitArg) and `offset` (0 or more, at most `maxOffset` where given, 0 when absent): spread into an input. */
export function pageArgs(max: number, fallback: number, { maxOffset }: { maxOffset?: number } = {}) {
  const offset = int('an integer').min(0, 'expected 0 or more');
  return { limit: limitArg(max, fallback), offset: (maxOffset === undefined ? offset : offset.max(maxOffset, `expected at most ${maxOffset}`)).default(0) };
}

/** Text of at most `max` characters, trimmed. */
export const text = (max: number) => z.string({ error: 'expected a string' }).trim().max(max, `expected at most ${max} characters`);

/**
 * An absolute http or https URL, trimmed, of at most `max` characters. `missing` answers a value that
 * is not a string and, with `nonEmpty`, an empty one too.
 */
export function absoluteHttpUrl(missing: string, { nonEmpty = false, max = 2048 }: { nonEmpty?: boolean; max?: number } = {}) {
  const trimmed = z.string({ error: missing }).trim();
  return (nonEmpty ? trimmed.min(1, missing) : trimmed)
    .max(max, `expected at most ${max} characters`)
    .refine((value) => /^https?:\/\//i.test(value) && URL.canParse(value), 'expected an absolute http or https URL');
}

/**
 * A superRefine for two fields of which exactly one is sent: `what` says what either of them gives
 * (`images or urls is required: what to filter`).
 */
export function exactlyOneOf<K extends string>(first: K, second: K, what: string) {
  return (params: Partial<Record<K, unknown>>, ctx: z.RefinementCtx) => {
    if (params[first] === undefined && params[second] === undefined) ctx.addIssue({ code: 'custom', path: [first], message: `${first} or ${second} is required: ${what}` });
    if (params[first] !== undefined && params[second] !== undefined) ctx.addIssue({ code: 'custom', path: [second], message: `send either ${first} or ${second}, not both` });
  };
}

/** Minor units in one coin or one credit (the ledger's 0.0001): an amount of money has at most 4 decimals. */
export const UNITS_PER_WHOLE = 10_000;
/** Decimals a whole-unit amount may have. */
export const DECIMALS = 4;

/**
 * Coins or credits as minor units; undefined when the value has more than 4 decimals or is too
 * large. The one statement of the 4-decimal rule: the ledger, the inputs and the settings ask it.
 */
export function toMinor(value: number): number | undefined {
  const scaled = value * UNITS_PER_WHOLE;
  const minor = Math.round(scaled);
  if (!Number.isSafeInteger(minor) || Math.abs(scaled - minor) > 1e-6 * Math.max(1, Math.abs(scaled))) return undefined;
  return minor;
}

/** Whether a number of coins or credits has at most 4 decimals (a whole number of minor units). */
export function hasAtMost4Decimals(value: number): boolean {
  return toMinor(value) !== undefined;
}

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

/**
 * The deepest nesting taken in any input: JSON bodies, GraphQL documents and variables, multipart
 * fields that carry JSON, graphql-ws messages. Deeper input is refused with a 400 that says so
 * before a parser or anything recursive (zod, GraphQL's coercion, the text checks above) walks it,
 * so a small body nested 100,000 levels deep cannot exhaust the stack. Real inputs nest a few levels.
 */
export const MAX_NESTING_DEPTH = 64;

/** The 400 for input nested too deep; `where` is the field, `query`, `variables` or `request body`. */
export function tooDeeplyNested(where: string): InvalidInput {
  return new InvalidInput(`${where}: nested deeper than ${MAX_NESTING_DEPTH} levels`, where === 'request body' ? undefined : where);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b, 0x28]); // [ { (
const CLOSERS = new Set([0x5d, 0x7d, 0x29]); // ] } )

/**
 * Whether JSON text nests arrays and objects deeper than MAX_NESTING_DEPTH: one pass over the text,
 * counting [ and { outside strings. Malformed text is left to the parser to refuse. Latin-1 text of
 * UTF-8 bytes works as well (multi-byte characters never hold these ASCII bytes).
 */
export function jsonNestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_NESTING_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Whether a GraphQL document nests selections, lists, objects and arguments ({ [ () deeper than
 * MAX_NESTING_DEPTH: one pass, skipping strings, block strings and comments.
 */
export function graphqlNestsTooDeep(source: string): boolean {
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x23) {
      // A comment runs to the end of the line.
      while (i + 1 < source.length && source.charCodeAt(i + 1) !== 0x0a && source.charCodeAt(i + 1) !== 0x0d) i++;
    } else if (c === QUOTE && source.startsWith('"""', i)) {
      i += 3;
      while (i < source.length && !source.startsWith('"""', i)) i += source.startsWith('\\"""', i) ? 4 : 1;
      i += 2;
    } else if (c === QUOTE) {
      i++;
      while (i < source.length && source.charCodeAt(i) !== QUOTE && source.charCodeAt(i) !== 0x0a) i += source.charCodeAt(i) === BACKSLASH ? 2 : 1;
    } else if (OPENERS.has(c)) {
      if (++depth > MAX_NESTING_DEPTH) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

/**
 * The same limit for a value already parsed (V8's JSON.parse is not recursive, but what walks its
 * result usually is): an explicit stack, never recursion.
 */
export function valueNestsTooDeep(value: unknown): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    if (next.value === null || typeof next.value !== 'object') continue;
    if (next.depth >= MAX_NESTING_DEPTH) return true;
    for (const item of Object.values(next.value)) if (item !== null && typeof item === 'object') stack.push({ value: item, depth: next.depth + 1 });
  }
  return false;
}

/**
 * A number from a form field or query string: text that reads as a finite decimal number (`12`,
 * `-0.5`) becomes that number; anything else (`NaN`, `Infinity`, `1e400`, `abc`, '') is left as it
 * came, for the field's own schema to refuse in its words. Never NaN, never infinite.
 */
export function numberFromText(value: unknown): unknown {
  // Decimal text as people and forms write it ("5", "-0.5", ".5", "1e3"); not hex, not "Infinity".
  if (typeof value !== 'string' || !/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value.trim())) return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/**
 * A numeric field that may arrive as a number (JSON, GraphQL) or as text (a form field): a finite
 * number, or the issue `expected` (NaN, infinities, 1e400 and text that is no number are refused).
 */
export function finiteNumber(expected: string) {
  return z.union([z.number(), z.string()], { error: expected }).transform((value, ctx) => {
    const number = numberFromText(value);
    if (typeof number === 'number' && Number.isFinite(number)) return number;
    ctx.addIssue({ code: 'custom', message: expected });
    return z.NEVER;
  });
}

/**
 * A form field (text on the wire) checked by its module's schema, which takes a number or its text:
 * documented as the text it is, refused in the module's words (NaN, Infinity, 1e400, abc included).
 */
export const formText = <S extends z.ZodType<unknown, string | number>>(schema: S) =>
  // Text is one of the inputs the schema takes; zod's pipe wants it to be the only one.
  z.string().pipe(schema as unknown as z.ZodType<z.output<S>, string>);

/**
 * A yes/no that REST's query writes 0 or 1 (`verified=1`), a Boolean in GraphQL: a codec, so the
 * argument is typed by its Boolean side and a REST row decodes the text (src/graphql/operation-args.ts).
 */
export const zeroOrOne = z.codec(z.enum(['0', '1'], { error: 'expected 0 or 1' }), z.boolean(), {
  decode: (text) => text === '1',
  encode: (yes) => (yes ? '1' : '0'),
});
