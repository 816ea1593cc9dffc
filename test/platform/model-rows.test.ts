// The driver read of a model (src/platform/database/model-rows.ts) answers what Prisma's findMany
// answers: every scalar field in schema order, nulls, text arrays, floats, dates to the millisecond,
// BigInt past 2^53 and fields kept in a column of another name (@map); Account as the viewer reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { photo } from '../helpers/images.js';
import { modelRows } from '../../src/platform/database/model-rows.js';
import type { Account, ApiKey, Bounty, CommunityItem, MediaItem } from '../../src/generated/prisma/client.js';

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
    const rows = modelRows<MediaItem>(prisma, 'MediaItem');
    const raw = await t.app.services.db.query(`SELECT ${rows.columns} FROM "MediaItem" WHERE "accountId" = $1 ORDER BY "id"`, [actor.accountId]);
    const actual = raw.map(rows.row);
    expect(actual).toEqual(expected);
    expect(actual.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)));
    expect(actual[0]!.trashedAt).toEqual(new Date('2026-01-02T03:04:05.678Z'));
    expect(actual[1]!.createdAt).toBeInstanceOf(Date);
  });

  it('reads a field kept in a column of another name (ApiKey.requestBudget, @map creditLimit)', async () => {
    const account = await t.createAccount('modelrowsmap');
    const prisma = t.app.services.db.prisma;
    await prisma.apiKey.create({ data: { accountId: account.id, kind: 'sub', prefix: 'sk_modelrows1', secretHash: 'x', scopes: ['media', 'jobs'], requestBudget: 1234, expiresAt: new Date('2030-05-06T07:08:09.010Z') } });
    await prisma.apiKey.create({ data: { accountId: account.id, kind: 'sub', prefix: 'sk_modelrows2', secretHash: 'y', label: 'second', scopes: [] } });
    const expected = await prisma.apiKey.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
    const rows = modelRows<ApiKey>(prisma, 'ApiKey');
    expect(rows.columns).toContain('"creditLimit" AS "requestBudget"');
    const actual = (await t.app.services.db.query(`SELECT ${rows.columns} FROM "ApiKey" WHERE "accountId" = $1 ORDER BY "id"`, [account.id])).map(rows.row);
    expect(actual).toEqual(expected);
    expect(actual.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)));
    expect(actual.find((k) => k.prefix === 'sk_modelrows1')!.requestBudget).toBe(1234);
  });

  it('reads Account rows as Prisma does (what the viewer reads on the driver)', async () => {
    const referrer = await t.createAccount('modelrowsref');
    const account = await t.createAccount('modelrowsacct');
    const prisma = t.app.services.db.prisma;
    await prisma.account.update({ where: { id: account.id }, data: { referredById: referrer.id, email: 'rows@example.test', status: 'suspended' } });
    const expected = await prisma.account.findMany({ where: { id: { in: [referrer.id, account.id] } }, orderBy: { id: 'asc' } });
    const rows = modelRows<Account>(prisma, 'Account');
    const actual = (await t.app.services.db.query(`SELECT ${rows.columns} FROM "Account" WHERE "id" = ANY($1::int[]) ORDER BY "id"`, [[referrer.id, account.id]])).map(rows.row);
    expect(actual).toEqual(expected);
    expect(actual.map((r) => Object.keys(r))).toEqual(expected.map((r) => Object.keys(r)));
  });

  it('reads BigInt columns as bigint, past 2^53 (Bounty, CommunityItem)', async () => {
    const account = await t.createAccount('modelrowsbig');
    const prisma = t.app.services.db.prisma;
    const big = 2n ** 60n + 7n;
    await prisma.bounty.create({ data: { accountId: account.id, subjectSlug: 'gull', subjectName: 'Gull', rewardPerPhoto: big, photosNeeded: 2, expiresAt: new Date('2031-01-01T00:00:00.001Z') } });
    await prisma.bounty.create({ data: { accountId: account.id, subjectSlug: 'tern', subjectName: 'Tern', description: 'terns', rewardPerPhoto: 5n, photosNeeded: 1, expiresAt: new Date('2031-01-02T00:00:00Z'), closedAt: new Date('2030-12-31T23:59:59.999Z') } });
    const bounties = modelRows<Bounty>(prisma, 'Bounty');
    const expectedBounties = await prisma.bounty.findMany({ where: { accountId: account.id }, orderBy: { id: 'asc' } });
    const actualBounties = (await t.app.services.db.query(`SELECT ${bounties.columns} FROM "Bounty" WHERE "accountId" = $1 ORDER BY "id"`, [account.id])).map(bounties.row);
    expect(actualBounties).toEqual(expectedBounties);
    expect(actualBounties[0]!.rewardPerPhoto).toBe(big);

    const object = await prisma.imageObject.create({ data: { sha256: 'f'.repeat(64), phash: '0'.repeat(16), blockhash: '0'.repeat(64), bytes: 10, format: 'jpeg', width: 2, height: 2 } });
    await prisma.communityItem.create({ data: { accountId: account.id, objectId: object.id, name: 'item', tags: ['a', 'b c'], storageKey: 'k', mime: 'image/jpeg', width: 2, height: 2, latitude: 51.5, unlockPrice: big, words: [] } });
    const items = modelRows<CommunityItem>(prisma, 'CommunityItem');
    const expectedItems = await prisma.communityItem.findMany({ where: { accountId: account.id } });
    const actualItems = (await t.app.services.db.query(`SELECT ${items.columns} FROM "CommunityItem" WHERE "accountId" = $1`, [account.id])).map(items.row);
    expect(actualItems).toEqual(expectedItems);
    expect(actualItems.map((r) => Object.keys(r))).toEqual(expectedItems.map((r) => Object.keys(r)));
  });

  it('refuses a model with a field whose driver value is not Prisma’s', () => {
    const prisma = t.app.services.db.prisma;
    expect(() => modelRows(prisma, 'Job')).toThrow(/Job.input: a Json/);
    expect(() => modelRows(prisma, 'NoSuchModel' as 'Job')).toThrow(/no model NoSuchModel/);
  });
});
