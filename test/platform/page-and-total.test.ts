// pageAndTotal (src/platform/database/page-and-total.ts): a list's page and the count of everything it
// lists in one statement. The count is right on every page, past the end, after a cursor and for an empty list, no
// row carries the count's column, and the page is one statement (two only past the end).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pageAndTotal, type ListQuery } from '../../src/platform/database/page-and-total.js';

let t: TestApp;
// A table of its own (not a temporary one: on PostgreSQL the pool's connections would not all see it).
const TABLE = 'page_probe';
beforeAll(async () => {
  t = await startTestApp({ runWorkers: false });
  await t.app.services.db.query(`CREATE TABLE ${TABLE} (id int PRIMARY KEY, colour text NOT NULL)`);
  await t.app.services.db.query(`INSERT INTO ${TABLE} SELECT n, CASE WHEN n % 3 = 0 THEN 'red' ELSE 'blue' END FROM generate_series(1, 25) AS n`);
});
afterAll(() => t.stop());

/** Runs the helper with the database's query counted. */
async function counted(list: Partial<ListQuery>): Promise<{ rows: Array<Record<string, unknown>>; total: number; statements: number }> {
  const db = t.app.services.db;
  let statements = 0;
  const counting = { query: (sql: string, params?: unknown[]) => (statements++, db.query(sql, params)) } as Pick<typeof db, 'query'>;
  const result = await pageAndTotal(counting, { select: '"id", "colour"', from: TABLE, where: 'true', orderBy: '"id" DESC', params: [], limit: 10, offset: 0, ...list });
  return { ...result, statements };
}

describe('pageAndTotal', () => {
  it('answers each page with the count of the whole list, in one statement', async () => {
    for (const [offset, first] of [[0, 25], [10, 15], [20, 5]] as const) {
      const page = await counted({ offset });
      expect(page.total).toBe(25);
      expect(page.rows[0]).toEqual({ id: first, colour: first % 3 === 0 ? 'red' : 'blue' });
      expect(page.rows.length).toBe(Math.min(10, 25 - offset));
      expect(page.statements).toBe(1);
      // The count's column is not part of any row.
      for (const row of page.rows) expect(Object.keys(row)).toEqual(['id', 'colour']);
    }
  });

  it('counts with the filter and its parameters', async () => {
    const page = await counted({ where: '"colour" = $1', params: ['red'], limit: 3 });
    expect(page.total).toBe(8);
    expect(page.rows.map((r) => r.id)).toEqual([24, 21, 18]);
  });

  it('past the end: no rows and the count, from a second statement', async () => {
    const page = await counted({ offset: 40 });
    expect(page).toEqual({ rows: [], total: 25, statements: 2 });
  });

  it("narrows the page after a cursor's position without narrowing the count", async () => {
    const page = await counted({ where: '"colour" = $1', params: ['blue'], after: { where: '"id" < $2', params: [10] }, limit: 3 });
    expect(page).toEqual({ rows: [{ id: 8, colour: 'blue' }, { id: 7, colour: 'blue' }, { id: 5, colour: 'blue' }], total: 17, statements: 1 });
    // Nothing after the position: the count is asked on its own, and is the whole list's.
    expect(await counted({ where: '"colour" = $1', params: ['blue'], after: { where: '"id" < $2', params: [1] } })).toEqual({ rows: [], total: 17, statements: 2 });
  });

  it('an empty list: no rows, 0, one statement', async () => {
    const page = await counted({ where: '"colour" = $1', params: ['green'] });
    expect(page).toEqual({ rows: [], total: 0, statements: 1 });
  });
});
