// The driver read of a model (src/platform/database/model-rows.ts) answers what Prisma's findMany
// answers: every scalar field in schema order, nulls, text arrays, floats and dates to the millisecond.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { photo } from '../helpers/images.js';
import { modelRows } from '../../src/platform/database/model-rows.js';
import type { MediaItem } from '../../src/generated/prisma/client.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ runWorkers: false });
});
afterAll(() => t.stop());

describe('modelRows', () => {
  it("reads MediaItem rows as Prisma's client does", async () => {
    const account = await t.createAccount('modelrows');
    const actor = await t.app.services.auth.authenticate(account.key);
    for (let seed = 0; seed < 3; seed++) {
      await t.app.services.media.ingest(actor, { body: await photo('#336699', { seed, width: 64, height: 48 }), filename: `m${seed}.jpg` }, { tags: ['a', `t${seed}`] });
    }
    const prisma = t.app.services.db.prisma;
    const first = await prisma.mediaItem.findFirstOrThrow({ where: { accountId: actor.accountId }, orderBy: { id: 'asc' } });
    // A trashed item (a date that is not null), and one with its optional text cleared.
    await prisma.mediaItem.update({ where: { id: first.id }, data: { trashedAt: new Date('2026-01-02T03:04:05.678Z'), caption: null, group: 'g' } });
    const expected = await prisma.mediaItem.findMany({ where: { accountId: actor.accountId }, orderBy: { id: 'asc' } });
    const rows = modelRows<MediaItem>('MediaItem');
    const raw = await t.app.services.db.query(`SELECT ${rows.columns} FROM "MediaItem" WHERE "accountId" = $1 ORDER BY "id"`, [actor.accountId]);
    const actual = raw.map(rows.row);
    expect(actual).toEqual(expected);
    expect(actual.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)));
    expect(actual[0]!.trashedAt).toEqual(new Date('2026-01-02T03:04:05.678Z'));
    expect(actual[1]!.createdAt).toBeInstanceOf(Date);
  });

  it('refuses a model with a field whose driver value is not Prisma’s', () => {
    expect(() => modelRows('BotLink')).toThrow(/BotLink.telegramUserId: a BigInt/);
    expect(() => modelRows('NoSuchModel')).toThrow(/no model NoSuchModel/);
  });
});
