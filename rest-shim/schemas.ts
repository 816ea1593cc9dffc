// Building blocks of the route table's documented requests and answers (RouteRequest and `response`
// in rest-shim/route.ts): REST names and the wire's types (integer ids, ISO 8601 UTC times). Input
// rules stay in the modules' zod schemas; these only say what the REST surface adds around them.
import { z } from 'zod';
import { objectId } from '../src/platform/validation.js';

export { timestamp, id, count, balance, held, nextCursor } from '../src/platform/wire.js';

/** `:id` in a path: an integer id of the thing named. */
export const idParams = (what: string) => z.object({ id: objectId.describe(`the ${what} id`) });
