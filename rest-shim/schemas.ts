// Building blocks of the route table's documented requests and answers (RouteRequest and `response`
// in rest-shim/route.ts): REST names and the wire's types (integer ids, ISO 8601 UTC times). Input
// rules stay in the modules' zod schemas; these only say what the REST surface adds around them.
import { z } from 'zod';
import { objectId } from '../src/platform/validation.js';

/** An instant on the wire: ISO 8601 in UTC (`2026-11-22T04:14:52.738Z`). */
export const timestamp = z.iso.datetime();
export const id = z.int().positive();
export const count = z.int().min(0);

/**
 * An account's coins in every answer that shows them (README "Balances"): `balance` is what it may
 * spend now, `held` what pending transfers reserve beside it (balance + held: the posted total).
 */
export const balance = z.number().describe('spendable now (held amounts not included)');
export const held = z.number().describe('held by pending transfers (an escrowed bounty, a conversion waiting for the credit partner), beside balance');

/** `:id` in a path: an integer id of the thing named. */
export const idParams = (what: string) => z.object({ id: objectId.describe(`the ${what} id`) });

export const nextCursor = z.string().nullable().describe('pass as cursor for the next page; null on the last page');

/**
 * A form field (text on the wire) checked by its module's schema, which takes a number or its text:
 * documented as the text it is, refused in the module's words (NaN, Infinity, 1e400, abc included).
 */
export const formText = <S extends z.ZodType<unknown, string | number>>(schema: S) =>
  // Text is one of the inputs the schema takes; zod's pipe wants it to be the only one.
  z.string().pipe(schema as unknown as z.ZodType<z.output<S>, string>);
