// The shim runs each row's GraphQL document without validating it per request; it validates it on
// the row's first request (not at start, which that made about a CPU second slower). This is where a
// document that no longer fits the schema is caught before it ships: every row of the table.
import { parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graphql/schema.js';
import { routes } from '../../rest-shim/routes.js';
import { checkedOperation } from '../../rest-shim/shim.js';
import type { RouteDefinition } from '../../rest-shim/route.js';

const graphqlRows = routes.filter((route): route is RouteDefinition => route.kind !== 'stream' && route.kind !== 'mounted');

describe('REST rows run through GraphQL', () => {
  it('have documents valid against the schema, every one of them', () => {
    expect(graphqlRows.length).toBeGreaterThan(100);
    const invalid = graphqlRows.flatMap((route) => {
      try {
        checkedOperation(schema, route);
        return [];
      } catch (error) {
        return [(error as Error).message];
      }
    });
    expect(invalid).toEqual([]);
  });

  it('compile with graphql-jit, every one of them (the shim runs them compiled; one that did not would fall back to graphql-js)', () => {
    const uncompiled = graphqlRows.flatMap((route) => {
      const compiled = compileQuery(schema, checkedOperation(schema, route));
      return isCompiledQuery(compiled) ? [] : [`${route.method} ${route.path}: ${JSON.stringify(compiled.errors?.map((e) => e.message))}`];
    });
    expect(uncompiled).toEqual([]);
  });

  it('refuse a document that does not fit the schema, naming the row and the problem', () => {
    const stale = { ...graphqlRows[0]!, method: 'GET', path: '/api/stale', operation: parse('query { noSuchField }') } as RouteDefinition;
    expect(() => checkedOperation(schema, stale)).toThrow(/^REST route GET \/api\/stale: its operation is invalid: Cannot query field "noSuchField"/);
  });
});
