// The ledger (src/modules/ledger) against the database: double entry, idempotent transfer ids,
// pending transfers posted or voided, linked batches all or nothing, wallets the database keeps from
// going below zero, history, transfers inside a caller's transaction, and the invariants after
// 500 concurrent transfers and spends.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { InsufficientFunds, type LedgerActionName, type TransferRequest } from '../../src/modules/ledger/index.js';
import { expectLedgerInvariants, openLedgerTestDb, type LedgerTestDb } from './ledger-db.js';

let t: LedgerTestDb;
beforeAll(async () => {
  t = await openLedgerTestDb();
});
afterAll(() => t?.close());

const C = 10_000; // minor units per credit or coin
let unique = 0;
const id = (what: string) => `${what}-${++unique}`;
/** The ledger stores any well-formed action; these tests use names of their own, outside the service's table. */
const adHoc = (name: string) => name as LedgerActionName;

const grant = (account: number, amount: number, currency: 'coins' | 'credits' = 'credits') =>
  t.ledger.transfer({ id: id('grant'), currency, from: { system: 'grants' }, to: { account }, amount, action: 'grant' });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('transfers', () => {
  it('moves money between a system account and wallets; balances and history follow', async () => {
    const [alice, bob] = await t.accounts(2);
    const first = await grant(alice!, 10 * C);
    expect(first.transfer).toMatchObject({ kind: 'single', currency: 'credits', amount: 10 * C, replayed: false });
    expect(first.wallets).toEqual([{ accountId: alice, currency: 'credits', balance: 10 * C, reserved: 0 }]);
    await t.ledger.transfer({ id: id('pay'), currency: 'credits', from: { account: alice! }, to: { account: bob! }, amount: 2.5 * C, action: adHoc('gift'), reference: 'birthday' });
    await t.ledger.transfer({ id: id('fee'), currency: 'credits', from: { account: alice! }, to: { system: 'fees' }, amount: 1 * C, action: 'vision' });

    expect(await t.ledger.wallet(alice!, 'credits')).toEqual({ accountId: alice, currency: 'credits', balance: 6.5 * C, reserved: 0, available: 6.5 * C, totalCredited: 10 * C, totalDebited: 3.5 * C });
    expect((await t.ledger.wallet(bob!, 'credits')).balance).toBe(2.5 * C);
    expect((await t.ledger.wallet(bob!, 'coins')).balance).toBe(0);

    const history = await t.ledger.history(alice!, 'credits');
    expect(history.total).toBe(3);
    expect(history.entries.map((e) => [e.action, e.amount])).toEqual([['vision', -1 * C], ['gift', -2.5 * C], ['grant', 10 * C]]);
    expect(history.entries[1]!.reference).toBe('birthday');
    expect(history.entries[0]!.createdAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const page = await t.ledger.history(alice!, 'credits', { limit: 1, offset: 1 });
    expect([page.total, page.entries.map((e) => e.action)]).toEqual([3, ['gift']]);
    await expectLedgerInvariants(t);
  });

  it('applies a replayed id once and answers the first result; the same id with other fields is a 409', async () => {
    const [account] = await t.accounts(1);
    const request: TransferRequest = { id: id('once'), currency: 'coins', from: { system: 'rewards' }, to: { account: account! }, amount: 5000, action: 'reward:tagging' };
    const first = await t.ledger.transfer(request);
    const again = await t.ledger.transfer(request);
    expect(again.transfer).toEqual({ ...first.transfer, replayed: true });
    expect((await t.ledger.wallet(account!, 'coins')).balance).toBe(5000);
    const conflict = await refusal(t.ledger.transfer({ ...request, amount: 6000 }));
    expect([conflict.status, conflict.message]).toEqual([409, `transfer ${request.id} exists already with other fields`]);
    expect((await t.ledger.wallet(account!, 'coins')).balance).toBe(5000);
  });

  it('refuses to spend more than a wallet holds (402), writing nothing', async () => {
    const [account] = await t.accounts(1);
    await grant(account!, 3 * C);
    const error = await refusal(t.ledger.transfer({ id: id('big'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 4 * C, action: 'generate' }));
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect([error.status, error.code, error.message]).toEqual([402, 'INSUFFICIENT_CREDITS', 'this needs 4 credits and the account has 3 credits available']);
    expect((await t.ledger.history(account!, 'credits')).total).toBe(1);
    // A wallet never used is empty: spending from it is the same refusal.
    const [fresh] = await t.accounts(1);
    expect((await refusal(t.ledger.transfer({ id: id('none'), currency: 'coins', from: { account: fresh! }, to: { system: 'bridge' }, amount: 1, action: adHoc('convert') }))).code).toBe('INSUFFICIENT_COINS');
  });

  it('refuses bad requests with 400s naming the field, and unknown accounts with 404', async () => {
    const [account] = await t.accounts(1);
    const base: TransferRequest = { id: id('bad'), currency: 'credits', from: { system: 'grants' }, to: { account: account! }, amount: 1, action: 'grant' };
    const cases: Array<[Partial<TransferRequest>, string]> = [
      [{ amount: 0 }, 'amount: expected a positive amount'],
      [{ amount: 1.5 }, 'amount: expected whole minor units'],
      [{ id: 'has space' }, 'id: expected 1 to 200 printable characters without spaces'],
      [{ action: adHoc('Grant!') }, 'action: expected 1 to 64 of a-z, 0-9, _ . : -'],
      [{ to: { system: 'grants' } }, 'to: from and to are the same account'],
    ];
    for (const [change, message] of cases) {
      const error = await refusal(t.ledger.transfer({ ...base, ...change }));
      expect([error.status, error.message]).toEqual([400, message]);
    }
    expect((await refusal(t.ledger.transfer({ ...base, to: { account: 987_654 } }))).status).toBe(404);
  });

  it('is refused by the database when SQL would take a user wallet below zero (CHECK), not by JavaScript', async () => {
    const [account] = await t.accounts(1);
    await grant(account!, 2 * C);
    await t.ledger.transfer({ id: id('spent'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 1, action: adHoc('x') });
    const statements = [
      `UPDATE "LedgerAccount" SET "debitsPosted" = "creditsPosted" + 1 WHERE "ownerId" = $1`,
      `UPDATE "LedgerAccount" SET "debitsPending" = "creditsPosted" + 1 WHERE "ownerId" = $1`,
      `UPDATE "LedgerAccount" SET "creditsPosted" = 0 WHERE "ownerId" = $1`,
    ];
    for (const sql of statements) await expect(t.db.query(sql, [account])).rejects.toThrow(/LedgerAccount_wallet_not_negative/);
    expect((await t.ledger.wallet(account!, 'credits')).balance).toBe(2 * C - 1);
    // System accounts may go negative: the rewards account is minus all it issued.
    expect(await t.ledger.systemBalance('grants', 'credits')).toBeLessThan(0);
  });
});

describe('pending transfers', () => {
  it('reserve the debit side until posted; the reserved funds cannot be spent twice', async () => {
    const [buyer, seller] = await t.accounts(2);
    await grant(buyer!, 10 * C, 'coins');
    const pending = await t.ledger.transfer({ id: id('escrow'), currency: 'coins', from: { account: buyer! }, to: { account: seller! }, amount: 7 * C, action: adHoc('bounty'), pending: { expiresInMs: 60_000 } });
    expect(pending.transfer).toMatchObject({ kind: 'pending', replayed: false });
    expect(pending.transfer.expiresAt!.getTime()).toBeGreaterThan(Date.now());
    expect(await t.ledger.wallet(buyer!, 'coins')).toMatchObject({ balance: 10 * C, reserved: 7 * C, available: 3 * C });
    // What the owner is shown: the spendable coins, and the reserved ones beside them.
    expect(await t.ledger.balance(buyer!, 'coins')).toEqual({ balance: 3, held: 7 });
    expect((await t.ledger.wallet(seller!, 'coins')).balance).toBe(0);
    // Only 3 are spendable now.
    const spend = await refusal(t.ledger.transfer({ id: id('spend'), currency: 'coins', from: { account: buyer! }, to: { system: 'fees' }, amount: 4 * C, action: adHoc('unlock') }));
    expect(spend.message).toBe('this needs 4 coins and the account has 3 coins available');

    const posted = await t.ledger.post(pending.transfer.id);
    expect(posted.transfer).toMatchObject({ id: `${pending.transfer.id}:post`, kind: 'post', pendingId: pending.transfer.id, amount: 7 * C, replayed: false });
    expect(await t.ledger.post(pending.transfer.id)).toMatchObject({ transfer: { ...posted.transfer, replayed: true } });
    expect(await t.ledger.wallet(buyer!, 'coins')).toMatchObject({ balance: 3 * C, reserved: 0, available: 3 * C });
    expect((await t.ledger.wallet(seller!, 'coins')).balance).toBe(7 * C);
    const voidAfterPost = await refusal(t.ledger.void(pending.transfer.id));
    expect([voidAfterPost.status, voidAfterPost.message]).toEqual([409, `pending transfer ${pending.transfer.id} was posted already`]);
    // The history shows the post (when the money moved), not the reservation.
    expect((await t.ledger.history(seller!, 'coins')).entries.map((e) => [e.kind, e.amount])).toEqual([['post', 7 * C]]);
    await expectLedgerInvariants(t);
  });

  it('release their reservation when voided (idempotently); unknown ids are 404', async () => {
    const [account] = await t.accounts(1);
    await grant(account!, 5 * C);
    const hold = await t.ledger.transfer({ id: id('hold'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 5 * C, action: 'vision', pending: { expiresInMs: 60_000 } });
    expect((await t.ledger.wallet(account!, 'credits')).available).toBe(0);
    const voided = await t.ledger.void(hold.transfer.id);
    expect(voided.transfer).toMatchObject({ kind: 'void', replayed: false });
    expect((await t.ledger.void(hold.transfer.id)).transfer.replayed).toBe(true);
    expect(await t.ledger.wallet(account!, 'credits')).toMatchObject({ balance: 5 * C, reserved: 0, available: 5 * C });
    expect((await refusal(t.ledger.post(hold.transfer.id))).status).toBe(409);
    expect((await refusal(t.ledger.post('no-such-transfer'))).status).toBe(404);
    // A transfer that is not pending cannot be posted either.
    const single = await grant(account!, 1);
    expect((await refusal(t.ledger.post(single.transfer.id))).status).toBe(404);
  });

  it('are voided by the sweep once expired', async () => {
    const [account] = await t.accounts(1);
    await grant(account!, 2 * C);
    const hold = await t.ledger.transfer({ id: id('expiring'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 2 * C, action: 'vision', pending: { expiresInMs: 1 } });
    await new Promise((r) => setTimeout(r, 20));
    expect(await t.ledger.voidExpired()).toBeGreaterThanOrEqual(1);
    expect((await t.ledger.wallet(account!, 'credits')).available).toBe(2 * C);
    expect((await t.ledger.void(hold.transfer.id)).transfer.replayed).toBe(true);
  });

  it('post and void racing on one pending transfer: exactly one wins', async () => {
    const [a, b] = await t.accounts(2);
    await grant(a!, 1 * C);
    const hold = await t.ledger.transfer({ id: id('race'), currency: 'credits', from: { account: a! }, to: { account: b! }, amount: 1 * C, action: adHoc('x'), pending: { expiresInMs: 60_000 } });
    const outcomes = await Promise.allSettled([t.ledger.post(hold.transfer.id), t.ledger.void(hold.transfer.id), t.ledger.post(hold.transfer.id), t.ledger.void(hold.transfer.id)]);
    const fresh = outcomes.filter((o) => o.status === 'fulfilled' && !o.value.transfer.replayed);
    expect(fresh).toHaveLength(1);
    await expectLedgerInvariants(t);
  });
});

describe('linked transfers', () => {
  it('commit together', async () => {
    const [earner, referrer] = await t.accounts(2);
    const { transfers, wallets } = await t.ledger.transferLinked([
      { id: id('reward'), currency: 'coins', from: { system: 'rewards' }, to: { account: earner! }, amount: 2500, action: 'reward:tag_verified_bonus' },
      { id: id('commission'), currency: 'coins', from: { system: 'rewards' }, to: { account: referrer! }, amount: 250, action: 'referral_commission' },
    ]);
    expect(transfers.map((x) => x.amount)).toEqual([2500, 250]);
    expect(wallets.map((w) => [w.accountId, w.balance]).sort()).toEqual([[earner, 2500], [referrer, 250]].sort());
  });

  it('roll back every leg when one fails (insufficient funds, or an id reused with other fields)', async () => {
    const [a, b, c] = await t.accounts(3);
    await grant(a!, 5 * C);
    const before = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "LedgerTransfer"`);
    const legs: TransferRequest[] = [
      { id: id('leg1'), currency: 'credits', from: { account: a! }, to: { account: b! }, amount: 3 * C, action: adHoc('split') },
      { id: id('leg2'), currency: 'credits', from: { system: 'grants' }, to: { account: c! }, amount: 1 * C, action: adHoc('split') },
      { id: id('leg3'), currency: 'credits', from: { account: b! }, to: { account: c! }, amount: 4 * C, action: adHoc('split') },
    ];
    const error = await refusal(t.ledger.transferLinked(legs));
    expect(error.status).toBe(402);
    expect((await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "LedgerTransfer"`))[0]!.n).toBe(before[0]!.n);
    expect([(await t.ledger.wallet(a!, 'credits')).balance, (await t.ledger.wallet(b!, 'credits')).balance, (await t.ledger.wallet(c!, 'credits')).balance]).toEqual([5 * C, 0, 0]);

    // The batch is checked as a whole: b receives 3 and pays on 3 in the same commit.
    await t.ledger.transferLinked([legs[0]!, legs[1]!, { ...legs[2]!, amount: 3 * C }]);
    expect((await t.ledger.wallet(c!, 'credits')).balance).toBe(4 * C);

    const reused = await refusal(t.ledger.transferLinked([{ ...legs[1]!, id: id('fresh') }, { ...legs[1]!, amount: 2 * C }]));
    expect(reused.status).toBe(409);
    expect((await t.ledger.wallet(c!, 'credits')).balance).toBe(4 * C);
    await expectLedgerInvariants(t);
  });
});

describe("inside the caller's transaction", () => {
  it("commits the charge with the caller's own rows, and rolls both back together", async () => {
    const [account] = await t.accounts(1);
    await grant(account!, 3 * C);
    const charge = (tx: Parameters<typeof t.ledger.transfer>[1] extends infer O ? O : never) =>
      t.ledger.transfer({ id: id('paid-op'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 1 * C, action: adHoc('wiki_query') }, tx);
    await t.db.prisma.$transaction(async (tx) => {
      await tx.account.update({ where: { id: account! }, data: { email: `paid-${account}@example.org` } });
      await charge({ tx });
    });
    expect((await t.ledger.wallet(account!, 'credits')).balance).toBe(2 * C);

    await expect(
      t.db.prisma.$transaction(async (tx) => {
        await tx.account.update({ where: { id: account! }, data: { email: null } });
        await charge({ tx });
        throw new Error('the operation failed after charging');
      }),
    ).rejects.toThrow('the operation failed after charging');
    expect((await t.ledger.wallet(account!, 'credits')).balance).toBe(2 * C);
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: account! } })).email).toBe(`paid-${account}@example.org`);

    // Too few credits inside the transaction: the 402 reaches the caller and nothing commits.
    await expect(
      t.db.prisma.$transaction(async (tx) => {
        await tx.account.update({ where: { id: account! }, data: { email: null } });
        await t.ledger.transfer({ id: id('too-much'), currency: 'credits', from: { account: account! }, to: { system: 'fees' }, amount: 9 * C, action: adHoc('x') }, { tx });
      }),
    ).rejects.toMatchObject({ status: 402 });
    expect((await t.db.prisma.account.findUniqueOrThrow({ where: { id: account! } })).email).toBe(`paid-${account}@example.org`);
  });
});

/** A small deterministic generator (mulberry32), so a failing run can be repeated. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

describe('under concurrency', () => {
  it('500 concurrent transfers, spends, holds and replays leave no wallet negative, every balance equal to its entries and each currency summing to zero', { timeout: 120_000 }, async () => {
    const wallets = await t.accounts(20, 'busy');
    for (const account of wallets) {
      await grant(account, 5 * C, 'credits');
      await grant(account, 5 * C, 'coins');
    }
    const next = random(42);
    const pick = () => wallets[Math.floor(next() * wallets.length)]!;
    const replays: TransferRequest[] = [];
    const operations: Array<() => Promise<unknown>> = [];
    for (let i = 0; i < 500; i++) {
      const currency = next() < 0.5 ? 'credits' : 'coins';
      const amount = 1 + Math.floor(next() * 3 * C);
      const from = pick();
      let to = pick();
      if (to === from) to = wallets[(wallets.indexOf(from) + 1) % wallets.length]!;
      const kind = next();
      if (kind < 0.4) {
        const request: TransferRequest = { id: `busy-move-${i}`, currency, from: { account: from }, to: { account: to }, amount, action: adHoc('move') };
        if (i % 10 === 0) replays.push(request);
        operations.push(() => t.ledger.transfer(request));
      } else if (kind < 0.7) {
        operations.push(() => t.ledger.transfer({ id: `busy-spend-${i}`, currency, from: { account: from }, to: { system: 'fees' }, amount, action: adHoc('spend') }));
      } else if (kind < 0.85) {
        operations.push(async () => {
          const hold = await t.ledger.transfer({ id: `busy-hold-${i}`, currency, from: { account: from }, to: { account: to }, amount, action: adHoc('hold'), pending: { expiresInMs: 60_000 } });
          return next() < 0.5 ? t.ledger.post(hold.transfer.id) : t.ledger.void(hold.transfer.id);
        });
      } else {
        operations.push(() =>
          t.ledger.transferLinked([
            { id: `busy-reward-${i}`, currency: 'coins', from: { system: 'rewards' }, to: { account: from }, amount: 5000, action: adHoc('reward') },
            { id: `busy-commission-${i}`, currency: 'coins', from: { system: 'rewards' }, to: { account: to }, amount: 500, action: 'referral_commission' },
          ]),
        );
      }
    }
    // The replays run alongside their originals.
    for (const request of replays) operations.push(() => t.ledger.transfer(request));
    const outcomes = await Promise.allSettled(operations.map((op) => op()));
    const unexpected = outcomes.filter((o) => o.status === 'rejected' && !(o.reason instanceof InsufficientFunds));
    expect(unexpected.map((o) => (o as PromiseRejectedResult).reason)).toEqual([]);
    const refused = outcomes.filter((o) => o.status === 'rejected').length;
    expect(refused).toBeGreaterThan(0); // the load did press wallets against zero
    expect(refused).toBeLessThan(outcomes.length);

    await expectLedgerInvariants(t);
    // Each replayed id was applied once.
    const ids = replays.map((r) => r.id);
    const rows = await t.db.query<{ id: string }>(`SELECT "id" FROM "LedgerTransfer" WHERE "id" = ANY($1::text[])`, [ids]);
    expect(rows.length).toBeLessThanOrEqual(ids.length);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });
});
