// The shim gives a request a router of only the rows it can match (rowsByPrefix in rest-shim/shim.ts).
// Built from the route table: for every row, paths it answers (as written, in other letter case, with
// a trailing slash) and near misses; the narrowed rows must hold every row of the whole table that
// matches such a path, in the same order, so the same row answers as with the router of all rows.
import { describe, expect, it } from 'vitest';
import { match } from 'path-to-regexp';
import { routes } from '../../rest-shim/routes.js';
import { bySpecificity, requestPrefix, rowsByPrefix } from '../../rest-shim/shim.js';

const table = bySpecificity(routes.filter((route) => route.kind !== 'mounted'));
// As Express's router matches: case-insensitive, a trailing slash allowed.
const matchers = new Map(table.map((route) => [route, match(route.path, { sensitive: false, trailing: true, decode: false })]));
const matching = (rows: typeof table, method: string, path: string) => rows.filter((route) => route.method === method && matchers.get(route)!(path) !== false);

function samplePaths(path: string): string[] {
  const filled = path.replace(/:[A-Za-z_]+/g, (name) => `${name.slice(1)}-1`);
  return [filled, filled.toUpperCase(), `${filled}/`, `${filled}x`, filled.replace(/\/[^/]*$/, '/other')];
}

describe('rows narrowed by method and path prefix', () => {
  const narrowed = rowsByPrefix(table, (route) => route);

  it('hold, for every path of every row, each row of the whole table that matches it, in the same order', () => {
    let checked = 0;
    for (const route of table) {
      for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', route.method]) {
        for (const path of samplePaths(route.path)) {
          const rows = narrowed.get(requestPrefix(method, path)) ?? table;
          expect(matching(rows, method, path), `${method} ${path}`).toEqual(matching(table, method, path));
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(table.length * 25);
  });

  it('leave odd paths to the same rows as the whole table: empty segments, dots, encoded and bare prefixes', () => {
    const odd = ['/', '//', '/api', '/api/', '//api/economy/styles/x/unlock', '/api//economy/styles/x/unlock', '/api/economy/../media/list', '/api/%65conomy/styles/x/unlock', '/api/economy%2Fstyles/x/unlock', '/api/economy/styles/%E2%82%AC/unlock', '/API/ECONOMY/STYLES/X/UNLOCK/'];
    for (const method of ['GET', 'POST', 'DELETE']) {
      for (const path of odd) {
        const rows = narrowed.get(requestPrefix(method, path)) ?? table;
        expect(matching(rows, method, path), `${method} ${path}`).toEqual(matching(table, method, path));
      }
    }
  });

  it('narrow: no request is given more than the rows of its area', () => {
    const largest = Math.max(...[...narrowed.values()].map((rows) => rows.length));
    expect(largest).toBeLessThan(table.length / 4);
    expect(narrowed.get(requestPrefix('POST', '/api/economy/styles/x/unlock'))!.map((route) => `${route.method} ${route.path}`).filter((row) => !row.startsWith('POST /api/economy/'))).toEqual([]);
  });
});
