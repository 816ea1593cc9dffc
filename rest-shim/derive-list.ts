// REST rows made from connection list declarations (src/graphql/connection-list.ts): a GET whose
// query is the page (`limit`, `cursor`) and the filters, whose document reads one page of a relay
// connection, and whose answer is `{ <parent fields>, <items>: [nodes], total, next_cursor }` (total unless
// the declaration leaves it out).
import { z } from 'zod';
import { parse, print, type DocumentNode } from 'graphql';
import type { ConnectionList } from '../src/graphql/connection-list.js';
import { cursorPageSchema } from '../src/graphql/connection-cursor.js';
import { routeParts, type Operation } from '../src/graphql/operation.js';
import { graphqlArgs } from '../src/graphql/operation-args.js';
import { count, nextCursor } from '../src/platform/wire.js';
import { objectId } from '../src/platform/validation.js';
import { answerOf, selectionOf, typeText } from './derive.js';
import { pathId } from './input.js';
import { earliestFuture } from './answer-cache.js';
import type { RestInput, RouteDefinition } from './route.js';

interface Connection {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  edges: Array<{ node: unknown }>;
}

/** The filters as a stand-in operation, so they become GraphQL arguments the way a declaration's input does. */
const filterArgs = (list: ConnectionList) => (list.filters ? graphqlArgs({ name: list.name, input: list.filters, args: list.args } as Operation) : []);

/** The REST name of an id argument (its path parameter). */
const paramOf = (list: ConnectionList, arg: string) => Object.entries(list.rest.params ?? {}).find(([, to]) => to === arg)?.[0] ?? arg;

/** The list's GraphQL document (fragments it spreads go into `fragments`, by name). */
export function connectionListText(list: ConnectionList, fragments = new Map<string, string>()): string {
  const [root, ...path] = list.connection.split('.');
  const field = path.pop()!;
  const ids = Object.keys(list.ids ?? {});
  const filters = filterArgs(list);
  const variables = [...ids.map((arg) => `$${arg}: Int!`), '$first: Int', '$after: String', ...filters.map((arg) => `$${arg.name}: ${typeText(arg)}`)];
  const passes = (names: string[]) => names.map((name) => `${name}: $${name}`).join(', ');
  const parentFields = list.parent ? selectionOf(list.parent, fragments).slice(1, -1) : '';
  const page = `${field}(${passes(['first', 'after', ...filters.map((arg) => arg.name)])}) { ${list.total === false ? '' : 'totalCount '}pageInfo { hasNextPage endCursor } edges ${selectionOf(z.object({ node: list.node }), fragments)} }`;
  const inner = path.reduceRight((selection, segment) => `${segment} { ${selection} }`, `${parentFields} ${page}`);
  return print(parse(`query ${list.name}(${variables.join(', ')}) { ${root}${ids.length ? `(${passes(ids)})` : ''} { ${inner} } }`));
}

/** The object that holds the connection field, from the result's data. */
function parentOf(list: ConnectionList, data: unknown): Record<string, unknown> {
  const path = list.connection.split('.').slice(0, -1);
  return path.reduce((at, segment) => at[segment] as Record<string, unknown>, data as Record<string, unknown>);
}

export function connectionListRoute(list: ConnectionList): RouteDefinition {
  const { rest } = list;
  const field = list.connection.split('.').at(-1)!;
  const ids = Object.entries(list.ids ?? {});
  const params = ids.length ? z.object(Object.fromEntries(ids.map(([arg, noun]) => [paramOf(list, arg), objectId.describe(rest.paramDescriptions?.[paramOf(list, arg)] ?? `the ${noun} id`)]))) : undefined;
  const page = cursorPageSchema(list.page);
  const query = list.filters ? page.extend(list.filters.shape) : page;
  const filters = filterArgs(list);
  const total = list.total === false ? {} : { total: count };
  const response = z.object({ ...list.parent?.shape, [list.items]: z.array(list.node), ...total, next_cursor: nextCursor });
  /** The answer read from the result, before the declaration's `shape`. */
  const listAnswer = (data: unknown): Record<string, unknown> => {
    const parent = parentOf(list, data);
    const connection = parent[field] as Connection;
    return {
      ...(list.parent ? answerOf(list.parent, parent) : {}),
      [list.items]: connection.edges.map((edge) => answerOf(list.node, edge.node)),
      ...(list.total === false ? {} : { total: connection.totalCount }),
      next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
    };
  };
  const itemsOf = (answer: Record<string, unknown>) => answer[list.items] as Array<Record<string, unknown>>;
  let document: DocumentNode | undefined;
  return {
    kind: 'graphql',
    ...routeParts(rest.route),
    auth: 'key',
    key: list.key,
    cache: rest.cache && {
      domain: rest.cache.domain,
      validUntil: rest.cache.changesAt ? (data: unknown) => earliestFuture(itemsOf(listAnswer(data)).map((item) => item[rest.cache!.changesAt!] as string | null)) : undefined,
    },
    summary: rest.summary,
    description: rest.description,
    errors: rest.errors,
    request: { ...(params ? { params } : {}), query },
    response,
    get operation() {
      if (!document) {
        const fragments = new Map<string, string>();
        const text = connectionListText(list, fragments);
        document = parse([text, ...fragments.values()].join('\n'));
      }
      return document;
    },
    variables: (input: RestInput) => {
      const variables: Record<string, unknown> = Object.fromEntries(ids.map(([arg, noun]) => [arg, pathId(input.params, noun, paramOf(list, arg))]));
      Object.assign(variables, { first: input.query.limit, after: input.query.cursor });
      for (const arg of filters) variables[arg.name] = input.query[arg.field!];
      return variables;
    },
    shape: (data: unknown, input: RestInput) => (rest.shape ? rest.shape(listAnswer(data), data, input) : listAnswer(data)),
  } as RouteDefinition;
}
