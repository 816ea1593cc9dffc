// No N+1: listing media with their folders costs the same number of statements for 3 items as for 30.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { usePostgres } from '../helpers/database.js';
import { photo } from '../helpers/images.js';

let t: TestApp;
beforeAll(async () => {
  // No workers: their polling (jobs, webhooks, schedules) would add statements to the count.
  t = await startTestApp({ runWorkers: false });
});
afterAll(() => t.stop());

const QUERY = `{ mediaList(limit: 100) { ... on QueryMediaListSuccess { data { total items { name tags url thumbnailUrl folder { name itemCount } } } } } }`;

async function statementsFor(key: string): Promise<number> {
  const before = t.app.services.db.statementCount()!;
  const res = await t.graphql(QUERY, {}, { key });
  expect(res.body.errors).toBeUndefined();
  return t.app.services.db.statementCount()! - before;
}

describe.skipIf(usePostgres)('statements per GraphQL request', () => {
  it('does not grow with the number of items listed', async () => {
    const account = await t.createAccount('nplusone');
    const actor = await t.app.services.auth.authenticate(account.key);
    const folders = [await t.app.services.folders.create(actor, { name: 'one' }), await t.app.services.folders.create(actor, { name: 'two' })];
    const add = async (from: number, to: number) => {
      for (let seed = from; seed < to; seed++) {
        await t.app.services.media.ingest(actor, { body: await photo('#808080', { seed, width: 64, height: 48 }), filename: `p${seed}.jpg` }, { folder_id: folders[seed % 2]!.id });
      }
    };
    await add(0, 3);
    const few = await statementsFor(account.key);
    await add(3, 30);
    const many = await statementsFor(account.key);
    expect(many).toBe(few);
    expect(few).toBeLessThanOrEqual(8);
  });
});
