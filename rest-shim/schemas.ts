// Building blocks of the route table's documented requests and answers (RouteRequest and `response`
// in rest-shim/route.ts): REST names and the wire's types (integer ids, ISO 8601 UTC times). Input
// rules stay in the modules' zod schemas; these only say what the REST surface adds around them.
import { z } from 'zod';
import { objectId } from '../src/platform/validation.js';

export { timestamp, id, count, balance, held, nextCursor } from '../src/platform/wire.js';

/** `:id` in a path: an integer id of the thing named. */
export const idParams = (what: string) => z.object({ id: objectId.describe(`the ${what} id`) });

/**
 * A form field (text on the wire) checked by its module's schema, which takes a number or its text:
 * documented as the text it is, refused in the module's words (NaN, Infinity, 1e400, abc included).
 */
export const formText = <S extends z.ZodType<unknown, string | number>>(schema: S) =>
  // Text is one of the inputs the schema takes; zod's pipe wants it to be the only one.
  z.string().pipe(schema as unknown as z.ZodType<z.output<S>, string>);
