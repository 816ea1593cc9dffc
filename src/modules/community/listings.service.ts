// Reading the library: search (public, listed items), the caller's own items, one item as its
// policy allows, the leaderboard and contributor portfolios (with the coins they earned here).
import type { z } from 'zod';
import type { CommunityItem } from '../../generated/prisma/client.js';
import { modelRows, type ModelRows } from '../../platform/database/model-rows.js';
import { pageAndTotal } from '../../platform/database/page-and-total.js';
import { NotFound } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { fromMinor, LedgerAction, rewardLedgerAction, type Balance } from '../ledger/index.js';
import { communityItemPolicy } from './community.access.js';
import type { CommunityDeps } from './community.deps.js';
import { leaderboardSchema, myPageSchema, searchSchema, type LeaderboardPeriod } from './community.input.js';

/** Public items a portfolio shows. */
const PORTFOLIO_ITEMS = 12;

/** The rewards a contributor's community earnings count (leaderboard, portfolio). */
const COMMUNITY_REWARDS = (['community_upload', 'tagging', 'tag_verified_bonus'] as const).map(rewardLedgerAction);

export interface LeaderboardEntry {
  rank: number;
  handle: string;
  contributions: number;
  verified: number;
  coinsEarned: number;
}

export interface Portfolio {
  handle: string;
  attribution: string;
  memberSince: Date;
  contributions: number;
  verified: number;
  recent: CommunityItem[];
  /** The owner's own view only. */
  own: (Balance & { unlisted: number; removed: number; coinsEarned: number; unlockSales: number; unlockEarnings: number }) | null;
}

export class CommunityListings {
  constructor(private readonly deps: CommunityDeps) {
    this.rows = modelRows<CommunityItem>(deps.db.prisma, 'CommunityItem');
  }

  private readonly rows: ModelRows<CommunityItem>;

  /** GET /api/community/search (no key): public, listed items, newest first. */
  async search(input: z.input<typeof searchSchema>): Promise<{ items: CommunityItem[]; total: number; limit: number; offset: number }> {
    const { tag, verified, limit, offset } = parseInput(searchSchema, input);
    // The page and its count in one statement on the driver: Prisma's compile of the same findMany, and
    // a count through Prisma, cost several times their SQL (bench/RESULTS.md).
    const where = ['"public"', '"removedAt" IS NULL', ...(tag ? ['"tags" @> ARRAY[$1]::text[]'] : []), ...(verified ? ['"verified"'] : [])].join(' AND ');
    const { rows, total } = await pageAndTotal(this.deps.db, { select: this.rows.columns, from: '"CommunityItem"', where, orderBy: '"id" DESC', params: tag ? [tag] : [], limit, offset });
    return { items: rows.map(this.rows.row), total, limit, offset };
  }

  /** GET /api/community/my: every item the caller contributed (unlisted and removed ones too), newest first. */
  async my(actor: Actor, input: z.input<typeof myPageSchema>): Promise<{ items: CommunityItem[]; total: number; limit: number; offset: number } & Balance> {
    const { limit, offset } = parseInput(myPageSchema, input);
    const where = { accountId: actor.accountId };
    const [items, total, balance] = await Promise.all([
      this.deps.db.prisma.communityItem.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      this.deps.db.prisma.communityItem.count({ where }),
      this.deps.ledger.balance(actor.accountId, 'coins'),
    ]);
    return { items, total, limit, offset, ...balance };
  }

  /** One item: public ones for every key, the caller's own always; removed ones only to their contributor. */
  async get(actor: Actor | null, id: number): Promise<CommunityItem> {
    return communityItemPolicy.findOne(actor, id, (where) => this.deps.db.prisma.communityItem.findFirst({ where }));
  }

  /** GET /api/community/leaderboard: contributors ranked by their listed (public, not removed) contributions in the period (rolling: 24 h, 7 d, 30 d, all). */
  async leaderboard(input: z.input<typeof leaderboardSchema>): Promise<{ period: LeaderboardPeriod; since: Date | null; entries: LeaderboardEntry[] }> {
    const { period, limit } = parseInput(leaderboardSchema, input);
    const days = { day: 1, week: 7, month: 30, all: null }[period];
    const since = days === null ? null : new Date(Date.now() - days * 86_400_000);
    const rows = await this.deps.db.query<{ handle: string; account_id: number; contributions: number; verified: number; coins: string }>(
      `WITH ranked AS (
         SELECT i."accountId" AS account_id, count(*)::int AS contributions, count(*) FILTER (WHERE i."verified")::int AS verified
         FROM "CommunityItem" i
         WHERE i."public" AND i."removedAt" IS NULL AND ($1::timestamp IS NULL OR i."createdAt" >= $1::timestamp)
         GROUP BY i."accountId"
         ORDER BY contributions DESC, verified DESC, account_id
         LIMIT $2)
       SELECT a."handle", r.account_id, r.contributions, r.verified,
              coalesce((SELECT sum(t."amount") FROM "LedgerAccount" w JOIN "LedgerTransfer" t ON t."creditAccountId" = w."id"
                        WHERE w."ownerId" = r.account_id AND w."currency" = 'coins' AND t."kind" IN ('single', 'post')
                          AND t."action" = ANY($3::text[]) AND ($1::timestamp IS NULL OR t."createdAt" >= $1::timestamp)), 0)::text AS coins
       FROM ranked r JOIN "Account" a ON a."id" = r.account_id
       ORDER BY r.contributions DESC, r.verified DESC, r.account_id`,
      [since?.toISOString() ?? null, limit, COMMUNITY_REWARDS],
    );
    return {
      period,
      since,
      entries: rows.map((r, index) => ({ rank: index + 1, handle: r.handle, contributions: r.contributions, verified: r.verified, coinsEarned: fromMinor(Number(r.coins)) })),
    };
  }

  /** A contributor's portfolio: public (by handle, no key) or the caller's own (with private figures). */
  async portfolio(target: { handle: string } | { actor: Actor }): Promise<Portfolio> {
    const account =
      'actor' in target
        ? await this.deps.db.prisma.account.findUnique({ where: { id: target.actor.accountId } })
        : await this.deps.db.prisma.account.findFirst({ where: { handle: { equals: target.handle.replace(/^@/, ''), mode: 'insensitive' }, status: 'active' } });
    if (!account) throw new NotFound(`no contributor ${'actor' in target ? target.actor.handle : target.handle}`);
    const listed = { accountId: account.id, public: true, removedAt: null };
    const [contributions, verified, recent] = await Promise.all([
      this.deps.db.prisma.communityItem.count({ where: listed }),
      this.deps.db.prisma.communityItem.count({ where: { ...listed, verified: true } }),
      this.deps.db.prisma.communityItem.findMany({ where: listed, orderBy: { id: 'desc' }, take: PORTFOLIO_ITEMS }),
    ]);
    let own: Portfolio['own'] = null;
    if ('actor' in target) {
      const [balance, unlisted, removed, [earned]] = await Promise.all([
        this.deps.ledger.balance(account.id, 'coins'),
        this.deps.db.prisma.communityItem.count({ where: { accountId: account.id, public: false, removedAt: null } }),
        this.deps.db.prisma.communityItem.count({ where: { accountId: account.id, removedAt: { not: null } } }),
        this.deps.db.query<{ rewards: string; sales: number; proceeds: string }>(
          `SELECT coalesce(sum(t."amount") FILTER (WHERE t."action" = ANY($2::text[])), 0)::text AS rewards,
                  count(*) FILTER (WHERE t."action" = $3)::int AS sales,
                  coalesce(sum(t."amount") FILTER (WHERE t."action" = $3), 0)::text AS proceeds
           FROM "LedgerAccount" w JOIN "LedgerTransfer" t ON t."creditAccountId" = w."id"
           WHERE w."ownerId" = $1 AND w."currency" = 'coins' AND t."kind" IN ('single', 'post')`,
          [account.id, COMMUNITY_REWARDS, LedgerAction.CommunityUnlock],
        ),
      ]);
      own = {
        ...balance,
        unlisted,
        removed,
        coinsEarned: fromMinor(Number(earned?.rewards ?? 0)),
        unlockSales: earned?.sales ?? 0,
        unlockEarnings: fromMinor(Number(earned?.proceeds ?? 0)),
      };
    }
    return { handle: account.handle, attribution: `@${account.handle}`, memberSince: account.createdAt, contributions, verified, recent, own };
  }
}
