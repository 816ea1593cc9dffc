// A REST list over a relay connection, declared once (docs/architecture.md "Connection lists"): the
// connection's GraphQL field stays where its type is (`Account.subKeys`, `Webhook.deliveries`); the
// declaration names its path from Query, the page sizes, the filters, the items key and one node's
// answer. rest-shim/derive-list.ts makes the REST row from it: `limit` and `cursor` become `first`
// and `after`, the document selects the node's answer fields, and the answer is
// `{ <parent fields>, <items>: [...], total, next_cursor }` (`total: false` leaves total out).
import type { z } from 'zod';
import type { KeyRule } from '../modules/access/index.js';
import type { ArgOverrides } from './operation-args.js';
import type { PageSizes } from './connection-cursor.js';
import type { RestBinding } from './operation.js';

export interface ConnectionListDeclaration {
  /** The document's operation name (the typed client's `<name>Document`, `<name>Query`). */
  name: string;
  key: KeyRule;
  /** The connection field's path from Query: `viewer.subKeys`, `webhook.deliveries`. */
  connection: string;
  /** Integer ids passed to the path's first field (REST path parameters), by argument name, with the noun messages use. */
  ids?: Record<string, string>;
  /** The connection's page sizes: REST `limit` (GraphQL `first`) and `cursor` (`after`). */
  page: PageSizes;
  /** Further arguments of the connection field (filters), in REST names; REST takes them in the query. */
  filters?: z.ZodObject;
  /** GraphQL types of filters the zod schema cannot name (enums). */
  args?: ArgOverrides;
  /** The answer's key for the listed nodes (`sub_keys`) and one node's answer (answerFrom sources; `.meta({ id })` makes its fragment). */
  items: string;
  node: z.ZodObject;
  /** Answer fields read from the object that holds the connection, before the items (`webhook_id` of `webhook`). */
  parent?: z.ZodObject;
  /** false: the answer has no `total` (one object with its items page, as a collection's). */
  total?: false;
  rest: Pick<RestBinding, 'summary' | 'description' | 'errors' | 'params' | 'paramDescriptions' | 'shape'> & {
    /** A list is read: `'GET /api/platform/sub-keys'`. */
    route: `GET /${string}`;
    /**
     * The shim may answer the list again while the account's data of this domain is unchanged
     * (rest-shim/answer-cache.ts); `changesAt` names a node's time field (`expires_at`) at which a
     * listed item changes with time alone, so the kept answer lasts until the earliest one to come.
     */
    cache?: { domain: NonNullable<RestBinding['cache']>['domain']; changesAt?: string };
  };
}

export type ConnectionList = ConnectionListDeclaration & { kind: 'connection' };

const declared: ConnectionList[] = [];

/** Every connection list declared so far (their documents go to rest-shim/operations/declared.graphql). */
export function declaredConnectionLists(): readonly ConnectionList[] {
  return declared;
}

/** Declares a REST list over an existing connection field; it adds nothing to the GraphQL schema. */
export function defineConnectionList(declaration: ConnectionListDeclaration): ConnectionList {
  const list = { ...declaration, kind: 'connection' as const };
  declared.push(list);
  return list;
}
