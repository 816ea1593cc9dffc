// The sub-key list's page read on the driver (SubKeysService.page) answers what Prisma's findMany
// answered when the list was Pothos' relatedConnection: the same rows in the same order for every
// cursor, take and skip (the cursor's own row, another account's key, a master key, a key that does
// not exist), and the account's count; through GraphQL, every page walked forwards and backwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatPrismaCursor } from '@pothos/plugin-prisma';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ runWorkers: false });
});
afterAll(() => t.stop());

describe('SubKeysService.page', () => {
  it("gives Prisma's rows and count for every cursor, take and skip", async () => {
    const owner = await t.createAccount('subkeypage');
    const other = await t.createAccount('subkeypage-other');
    const actor = await t.app.services.auth.authenticate(owner.key);
    const otherActor = await t.app.services.auth.authenticate(other.key);
    const { subKeys, db } = t.app.services;
    // Interleaved with the other account's, so the ids of one account are not consecutive.
    const mine: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < 6; i++) {
      mine.push((await subKeys.create(actor, { label: `k${i}`, scopes: i % 2 ? 'media' : undefined, expires_days: i === 2 ? 3 : undefined })).subKey.id);
      theirs.push((await subKeys.create(otherActor, { label: `o${i}` })).subKey.id);
    }
    await subKeys.revoke(actor, (await db.prisma.apiKey.findUniqueOrThrow({ where: { id: mine[1]! } })).prefix);
    const master = await db.prisma.apiKey.findFirstOrThrow({ where: { accountId: owner.id, kind: 'master' } });
    const missing = Math.max(...mine, ...theirs) + 1000;

    const cursors: Array<number | undefined> = [undefined, mine[0], mine[3], mine[5], theirs[2], master.id, missing];
    const where = { accountId: owner.id, kind: 'sub' as const };
    const total = await db.prisma.apiKey.count({ where });
    expect(total).toBe(6);
    for (const cursor of cursors) {
      for (const take of [1, 3, 7, -1, -3, -7]) {
        for (const skip of cursor === undefined ? [0] : [0, 1]) {
          const expected = await db.prisma.apiKey.findMany({ where, orderBy: { id: 'desc' }, take, skip, ...(cursor !== undefined && { cursor: { id: cursor } }) });
          const page = await subKeys.page(actor, owner.id, { take, skip, ...(cursor !== undefined && { cursor: { id: cursor } }) });
          expect({ cursor, take, skip, rows: page.rows }).toEqual({ cursor, take, skip, rows: expected });
          expect(page.total).toBe(total);
        }
      }
    }
    // Another account's list through this actor is empty, and counts nothing.
    expect(await subKeys.page(actor, other.id, { take: 10, skip: 0 })).toEqual({ rows: [], total: 0 });
  });

  it('walks the list through GraphQL, forwards and backwards, with the cursors Prisma connections give', async () => {
    const owner = await t.createAccount('subkeywalk');
    const actor = await t.app.services.auth.authenticate(owner.key);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.app.services.subKeys.create(actor, { label: `w${i}` })).subKey.id);
    const newestFirst = [...ids].reverse();
    const query = `query($first: Int, $after: String, $last: Int, $before: String) { viewer { subKeys(first: $first, after: $after, last: $last, before: $before) {
      totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { databaseId label } } } } }`;
    const page = async (variables: Record<string, unknown>) => {
      const answer = (await t.graphql(query, variables, { key: owner.key })).body;
      expect(answer.errors).toBeUndefined();
      return answer.data.viewer.subKeys as {
        totalCount: number;
        pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
        edges: Array<{ cursor: string; node: { databaseId: number; label: string } }>;
      };
    };
    const seen: number[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await page({ first: 2, after });
      expect(p.totalCount).toBe(5);
      for (const edge of p.edges) expect(edge.cursor).toBe(formatPrismaCursor({ id: edge.node.databaseId }, 'id'));
      seen.push(...p.edges.map((e) => e.node.databaseId));
      if (!p.pageInfo.hasNextPage) break;
      after = p.pageInfo.endCursor!;
    }
    expect(seen).toEqual(newestFirst);
    const back: number[] = [];
    let before: string | undefined;
    for (;;) {
      const p = await page({ last: 2, before });
      back.unshift(...p.edges.map((e) => e.node.databaseId));
      if (!p.pageInfo.hasPreviousPage) break;
      before = p.pageInfo.startCursor!;
    }
    expect(back).toEqual(newestFirst);
    // A cursor that is not one: refused naming it, as Pothos' connections refuse it.
    const bad = (await t.graphql(query, { first: 2, after: 'not-a-cursor' }, { key: owner.key })).body;
    expect(bad.errors?.[0]?.message).toMatch(/cursor/i);
  });
});
