// Rewards (src/modules/ledger/rewards.service.ts): rates and factors, once per (action, object,
// account), the referral commission as a linked transfer, daily caps counted in the same
// statement, settings shared through the database, and concurrent identical awards paying once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/platform/errors.js';
import { DEFAULT_REWARD_DAILY_CAPS, DEFAULT_REWARD_RATES, RewardsService, awardTransferId, rewardAmount } from '../../src/modules/ledger/index.js';
import { expectLedgerInvariants, openLedgerTestDb, type LedgerTestDb } from './ledger-db.js';

let t: LedgerTestDb;
let rewards: RewardsService;
const defaults = { rates: DEFAULT_REWARD_RATES, dailyCaps: DEFAULT_REWARD_DAILY_CAPS };

beforeAll(async () => {
  t = await openLedgerTestDb();
  rewards = new RewardsService(t.db, t.ledger, defaults, 0);
});
afterAll(() => t?.close());

const coins = async (account: number) => (await t.ledger.wallet(account, 'coins')).balance / 10_000;
const refer = (account: number, referrer: number) => t.db.query(`UPDATE "Account" SET "referredById" = $2 WHERE id = $1`, [account, referrer]);

describe('amounts', () => {
  it('multiply in minor units and round down', () => {
    expect(rewardAmount(0.5, [1])).toBe(5000);
    expect(rewardAmount(0.1, [1.5])).toBe(1500);
    expect(rewardAmount(0.25, [2, 1.5])).toBe(7500);
    expect(rewardAmount(0.0001, [0.5])).toBe(0);
    expect(rewardAmount(0.0003, [0.5])).toBe(1); // 1.5 units, rounded down
  });

  it('derive the transfer id from action, account and object (a digest for long objects)', () => {
    expect(awardTransferId('tagging', 'media:42', 7)).toBe('reward:tagging:7:media:42');
    expect(awardTransferId('tagging', 'x'.repeat(300), 7)).toMatch(/^reward:tagging:7:sha256:[0-9a-f]{64}$/);
    expect(awardTransferId('tagging', 'a b', 7)).not.toBe(awardTransferId('tagging', 'a_b', 7));
  });
});

describe('award', () => {
  it("pays the action's rate once per object; a repeat answers the first payment", async () => {
    const [account] = await t.accounts(1);
    const first = await rewards.award(account!, 'community_upload', 'media:1');
    expect(first).toMatchObject({ status: 'paid', action: 'community_upload', coins: 2, balance: 2, commission: null, today: 1, dailyCap: 100 });
    const again = await rewards.award(account!, 'community_upload', 'media:1');
    expect(again).toMatchObject({ status: 'replayed', coins: 2, balance: 2, transferId: first.transferId, today: 1 });
    expect(await rewards.award(account!, 'community_upload', 'media:2')).toMatchObject({ status: 'paid', balance: 4, today: 2 });
    // Another action on the same object is another award.
    expect(await rewards.award(account!, 'tagging', 'media:1')).toMatchObject({ status: 'paid', coins: 0.5, balance: 4.5 });
    expect((await t.ledger.history(account!, 'coins')).entries.map((e) => e.action)).toEqual(['reward:tagging', 'reward:community_upload', 'reward:community_upload']);
    await expectLedgerInvariants(t);
  });

  it('pays the referrer 10% of the reward in the same commit', async () => {
    const [earner, referrer] = await t.accounts(2);
    await refer(earner!, referrer!);
    const result = await rewards.award(earner!, 'tag_verified_bonus', 'media:9');
    expect(result).toMatchObject({ status: 'paid', coins: 0.25, commission: { accountId: referrer, coins: 0.025 }, balance: 0.25 });
    expect(await coins(referrer!)).toBe(0.025);
    expect((await t.ledger.history(referrer!, 'coins')).entries[0]).toMatchObject({ action: 'referral_commission', transferId: `${result.transferId}:referral`, reference: result.transferId });
    // A repeat pays neither again, and answers both first payments.
    expect(await rewards.award(earner!, 'tag_verified_bonus', 'media:9')).toMatchObject({ status: 'replayed', commission: { accountId: referrer, coins: 0.025 } });
    expect(await coins(referrer!)).toBe(0.025);
    // The rewards account issued both: it is minus everything issued.
    expect(await t.ledger.systemBalance('rewards', 'coins')).toBeLessThanOrEqual(-2750);
    await expectLedgerInvariants(t);
  });

  it('applies coin_multiplier always and challenge_multiplier during challenges', async () => {
    const [account, referrer] = await t.accounts(2);
    await refer(account!, referrer!);
    const boosted = new RewardsService(t.db, t.ledger, { rates: { ...DEFAULT_REWARD_RATES, coin_multiplier: 1.5 }, dailyCaps: DEFAULT_REWARD_DAILY_CAPS }, 0);
    expect(await boosted.award(account!, 'intel_comment', 'comment:1')).toMatchObject({ coins: 0.15, commission: { coins: 0.015 } });
    expect(await boosted.award(account!, 'wiki_vote', 'vote:1', { challenge: true })).toMatchObject({ coins: 1.5, commission: { coins: 0.15 } });
  });

  it('pays nothing at a rate of 0, and says so', async () => {
    const [account] = await t.accounts(1);
    const free = new RewardsService(t.db, t.ledger, { rates: { ...DEFAULT_REWARD_RATES, wiki_vote: 0 }, dailyCaps: DEFAULT_REWARD_DAILY_CAPS }, 0);
    expect(await free.award(account!, 'wiki_vote', 'vote:2')).toMatchObject({ status: 'unpaid', coins: 0, balance: 0, message: 'wiki_vote pays nothing at the current rates' });
  });

  it('refuses unknown actions and missing objects with 400', async () => {
    const [account] = await t.accounts(1);
    for (const [action, object, message] of [
      ['lottery', 'x', 'action: expected one of community_upload, tagging, tag_verified_bonus, wiki_photo, wiki_subject, wiki_vote, intel_comment, intel_proposal, intel_merged, bulk_mirror_match'],
      ['tagging', '', 'object: expected the rewarded object'],
    ] as const) {
      const error = await rewards.award(account!, action as 'tagging', object).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect([(error as AppError).status, (error as AppError).message]).toEqual([400, message]);
    }
  });

  it("rolls back with the caller's transaction", async () => {
    const [account] = await t.accounts(1);
    await expect(
      t.db.prisma.$transaction(async (tx) => {
        await rewards.award(account!, 'wiki_subject', 'subject:eiffel', { tx });
        throw new Error('review failed');
      }),
    ).rejects.toThrow('review failed');
    expect(await coins(account!)).toBe(0);
    // Neither paid nor counted: the next try pays.
    expect(await rewards.award(account!, 'wiki_subject', 'subject:eiffel')).toMatchObject({ status: 'paid', coins: 10, today: 1 });
  });
});

describe('daily caps', () => {
  it('pay nothing over the cap and say so; other actions and accounts are counted apart', async () => {
    const [account, other] = await t.accounts(2);
    const capped = new RewardsService(t.db, t.ledger, { rates: DEFAULT_REWARD_RATES, dailyCaps: { ...DEFAULT_REWARD_DAILY_CAPS, wiki_vote: 2 } }, 0);
    const results = [];
    for (let i = 1; i <= 3; i++) results.push(await capped.award(account!, 'wiki_vote', `vote:${i}`));
    expect(results.map((r) => [r.status, r.coins, r.today])).toEqual([['paid', 0.5, 1], ['paid', 0.5, 2], ['capped', 0, 2]]);
    expect(results[2]!.message).toBe('daily cap reached: 2 paid wiki_vote awards per day');
    expect(results[2]!.balance).toBe(1);
    // A paid award still replays over the cap.
    expect(await capped.award(account!, 'wiki_vote', 'vote:1')).toMatchObject({ status: 'replayed', coins: 0.5 });
    expect(await capped.award(other!, 'wiki_vote', 'vote:1')).toMatchObject({ status: 'paid' });
    expect(await capped.award(account!, 'tagging', 'media:1')).toMatchObject({ status: 'paid' });
  });

  it('hold under concurrency: 30 different awards at a cap of 10 pay exactly 10', async () => {
    const [account] = await t.accounts(1);
    const capped = new RewardsService(t.db, t.ledger, { rates: DEFAULT_REWARD_RATES, dailyCaps: { ...DEFAULT_REWARD_DAILY_CAPS, intel_proposal: 10 } }, 0);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => capped.award(account!, 'intel_proposal', `proposal:${i}`)));
    expect(results.filter((r) => r.status === 'paid')).toHaveLength(10);
    expect(results.filter((r) => r.status === 'capped')).toHaveLength(20);
    expect(await coins(account!)).toBe(1);
  });

  it('50 concurrent identical awards pay once and count once', async () => {
    const [account, referrer] = await t.accounts(2);
    await refer(account!, referrer!);
    const results = await Promise.all(Array.from({ length: 50 }, () => rewards.award(account!, 'wiki_photo', 'photo:77')));
    expect(results.filter((r) => r.status === 'paid')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'replayed')).toHaveLength(49);
    expect(new Set(results.map((r) => r.transferId)).size).toBe(1);
    expect(results.every((r) => r.coins === 5 && r.commission?.coins === 0.5)).toBe(true);
    expect([await coins(account!), await coins(referrer!)]).toEqual([5, 0.5]);
    expect(await rewards.award(account!, 'wiki_photo', 'photo:78')).toMatchObject({ today: 2 });
    await expectLedgerInvariants(t);
  });
});

describe('settings', () => {
  it('are changed for every process through the database, merged over configuration', async () => {
    const elsewhere = new RewardsService(t.db, t.ledger, defaults, 0);
    expect((await rewards.settings()).updatedAt).toBeNull();
    const changed = await rewards.update({ rates: { tagging: 0.75, coin_multiplier: 2 }, daily_caps: { tagging: 3 } });
    expect(changed.rates).toMatchObject({ tagging: 0.75, coin_multiplier: 2, community_upload: 2 });
    expect(changed.dailyCaps).toMatchObject({ tagging: 3, wiki_vote: 200 });
    expect(changed.updatedAt).toBeInstanceOf(Date);
    await rewards.update({ daily_caps: { wiki_vote: null } });
    const seen = await elsewhere.settings();
    expect(seen.rates).toMatchObject({ tagging: 0.75, coin_multiplier: 2 });
    expect(seen.dailyCaps).toMatchObject({ tagging: 3, wiki_vote: null });
    const [account] = await t.accounts(1);
    expect(await elsewhere.award(account!, 'tagging', 'media:5')).toMatchObject({ coins: 1.5, dailyCap: 3 });
    await rewards.update({ rates: { tagging: 0.5, coin_multiplier: 1 }, daily_caps: { tagging: 200, wiki_vote: 200 } });
  });

  it('refuse unknown keys and bad values with 400s naming them', async () => {
    const cases: Array<[Parameters<RewardsService['update']>[0], string]> = [
      [{ rates: { lottery: 1 } }, 'rates.lottery: unknown rate; expected one of community_upload, tagging, tag_verified_bonus, wiki_photo, wiki_subject, wiki_vote, intel_comment, intel_proposal, intel_merged, bulk_mirror_match, coin_multiplier, referral_commission_percent, challenge_multiplier'],
      [{ rates: { tagging: -1 } }, 'rates.tagging: expected 0 to 10000'],
      [{ rates: { tagging: 0.00001 } }, 'rates.tagging: expected at most 4 decimals'],
      [{ rates: { referral_commission_percent: 150 } }, 'rates.referral_commission_percent: expected 0 to 100'],
      [{ rates: { coin_multiplier: '2' as unknown as number } }, 'rates.coin_multiplier: expected a number'],
      [{ daily_caps: { tagging: 0 } }, 'daily_caps.tagging: expected a whole number of awards, 1 or more, or null for no cap'],
      [{ daily_caps: { coin_multiplier: 5 } }, 'daily_caps.coin_multiplier: unknown reward action; expected one of community_upload, tagging, tag_verified_bonus, wiki_photo, wiki_subject, wiki_vote, intel_comment, intel_proposal, intel_merged, bulk_mirror_match'],
      [{}, 'rates or daily_caps is required'],
    ];
    for (const [patch, message] of cases) {
      const error = await rewards.update(patch).catch((e: unknown) => e);
      expect([(error as AppError).status, (error as AppError).message]).toEqual([400, message]);
    }
  });
});
