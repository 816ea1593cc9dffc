// Pothos hands a prismaField wrapped by the errors plugin `{ select: {} }` when the caller asked for
// nothing but __typename, and Prisma refuses an empty select (a 500). Such a selection reads the row
// plainly instead. Found by test/fuzz/hostile-input.test.ts.
export function prismaSelection<Query extends { select?: object | null; include?: object | null }>(query: Query): Query {
  if (query.select && Object.keys(query.select).length === 0) {
    const { select: _empty, ...rest } = query;
    return rest as Query;
  }
  return query;
}
