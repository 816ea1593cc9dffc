// A page of a list and the count of everything the list holds, in one statement: the count rides on
// the page's rows as an uncorrelated subquery, which PostgreSQL runs once (an InitPlan). A list's
// first answer after a change then costs one round trip to the database instead of two, and one
// pooled connection instead of two (bench/RESULTS.md, lists with nothing kept). Only a page past the
// end (no rows, after a cursor or offset above 0) asks for the count on its own.
import type { Database } from './database.js';

/** The column the count comes back in; taken off every row before the rows are answered. */
const TOTAL = '__list_total';

export interface ListQuery {
  /** The columns of a row (a model's driver columns, modelRows().columns). */
  select: string;
  /** The table, with its alias if `where` uses one. */
  from: string;
  /** The list's filter, with $1 ... $n for `params`. */
  where: string;
  orderBy: string;
  params: unknown[];
  limit: number;
  offset: number;
  /**
   * A further filter of the page's rows that the count leaves out (a cursor's position), with its
   * own parameters, numbered after `params` ($n+1 ...).
   */
  after?: { where: string; params: unknown[] };
}

export async function pageAndTotal<R extends Record<string, unknown>>(db: Pick<Database, 'query'>, list: ListQuery): Promise<{ rows: R[]; total: number }> {
  const params = [...list.params, ...(list.after?.params ?? [])];
  const n = params.length;
  const count = `SELECT count(*)::int AS total FROM ${list.from} WHERE ${list.where}`;
  const where = list.after ? `(${list.where}) AND (${list.after.where})` : list.where;
  const rows = await db.query<Record<string, unknown>>(
    `SELECT ${list.select}, (${count}) AS "${TOTAL}" FROM ${list.from} WHERE ${where} ORDER BY ${list.orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
    [...params, list.limit, list.offset],
  );
  if (rows.length === 0) {
    // The first page of the whole list is empty only when the list is.
    if (list.offset === 0 && !list.after) return { rows: [], total: 0 };
    const [row] = await db.query<{ total: number }>(count, list.params);
    return { rows: [], total: row?.total ?? 0 };
  }
  const total = Number(rows[0]![TOTAL]);
  // The last column of each row: deleting it gives the row back the shape it has without it.
  for (const row of rows) delete row[TOTAL];
  return { rows: rows as R[], total };
}
