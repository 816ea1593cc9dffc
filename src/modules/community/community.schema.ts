// The community library as callers see it, stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts). The
// operations on them are declared in community.operations.ts; the rules live in community.service.ts
// and claims.service.ts.
import { z } from 'zod';
import { builder, nodeId } from '../../graphql/builder.js';
import { answerDescription, answeredBy, answerEnum, answerFields, answerObject, handleOf } from '../../graphql/answer-object.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { answerPage } from '../../graphql/common-answers.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { fromMinor } from '../ledger/index.js';
import { ImageObjectRef } from '../image-objects/image-objects.schema.js';
import { communityItemPolicy, ownershipClaimPolicy, visibleCoordinate } from './community.access.js';
import { CLAIM_KINDS, CLAIM_STATUSES, COMMUNITY_TAG_ACTIONS, LEADERBOARD_PERIODS } from './community.input.js';
import type { CommunityItem, ContributionResult, LeaderboardEntry, Portfolio, TagResult, UnlockResult } from './community.service.js';
import type { OwnershipClaim } from './claims.service.js';

/** An uploaded file as the service takes it. */
export const uploadOf = async (file: File) => ({ body: Buffer.from(await file.arrayBuffer()), filename: file.name });

export const TagActionEnum = builder.enumType('CommunityTagAction', { values: COMMUNITY_TAG_ACTIONS });
export const PeriodEnum = answerEnum('LeaderboardPeriod', { values: LEADERBOARD_PERIODS });
export const ClaimKindEnum = answerEnum('OwnershipClaimKind', { values: CLAIM_KINDS });
// Wiki subjects' statuses have the same values: their field names its enum itself (wiki.schema.ts).
export const ClaimStatusEnum = answerEnum('OwnershipClaimStatus', { values: CLAIM_STATUSES });

export const communityItem = answerFrom(
  z
    .object({
      id,
      image_object_id: id.describe('the image object: the same for resized, recompressed or lightly cropped copies'),
      contributor: z.string().nullable().describe("the contributor's handle"),
      origin: z.enum(['contribute', 'ingest']),
      name: z.string().nullable(),
      tags: z.array(z.string()),
      verified: z.boolean().describe('AI-verified: vision confirmed at least one of its current tags'),
      caption: z.string().nullable(),
      labels: z.array(z.string()),
      url: z.string().describe('the public file, metadata stripped: a signed link that needs no key'),
      width: count,
      height: count,
      mime: z.string(),
      source_provider: z.string().nullable(),
      source_url: z.string().nullable(),
      attribution_handle: z.string().nullable(),
      unlock_price: z.number().describe('coins to unlock the full-resolution original; 0 is free'),
      has_original: z.boolean(),
      original_url: z.string().nullable().describe('a 15-minute signed link to the original: for its contributor, buyers, and anyone when free'),
      latitude: z.number().nullable().describe('exact for the contributor; 2 decimals (about 1 km) for others'),
      longitude: z.number().nullable(),
      public: z.boolean().describe('listed by the public search'),
      removed: z.boolean().describe('taken down by an approved removal claim (only its contributor sees it)'),
      created_at: timestamp,
    })
    .meta({ id: 'CommunityItem', description: 'An image of the community library' }),
  { id: 'databaseId' },
);

export const CommunityItemRef = answeredBy(builder.prismaNode('CommunityItem', {
  id: { field: 'id' },
  nullable: true,
  // No type-level key rule: the public search answers without a key. The node lookup uses the policy (any key).
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: communityItemPolicy.nodeWhere(ctx) }),
  description: answerDescription(communityItem),
  fields: (t) => ({
    ...answerFields(t, communityItem, {
      image_object_id: { resolve: (item: CommunityItem) => item.objectId },
      contributor: handleOf((item: CommunityItem) => item.accountId),
      // contribute or ingest: a String in GraphQL.
      origin: t.exposeString('origin', { description: 'contribute or ingest' }),
      url: { resolve: (item, _a, ctx) => ctx.baseUrl + ctx.services.community.fileUrl(item, 'public') },
      unlock_price: { resolve: (item) => fromMinor(item.unlockPrice) },
      has_original: { description: 'A full-resolution original is kept (ingest)', resolve: (item) => item.originalKey !== null },
      original_url: {
        load: async (ids: number[], ctx) => {
          const readable = await ctx.services.community.readableOriginals(ctx.actor, ids);
          return ids.map((id) => {
            const item = readable.get(id);
            return item ? ctx.baseUrl + ctx.services.community.fileUrl(item, 'original') : null;
          });
        },
        resolve: (item: CommunityItem) => item.id,
      },
      latitude: { resolve: (item, _a, ctx) => visibleCoordinate(item.latitude, ctx.actor, [item.accountId]) },
      longitude: { resolve: (item, _a, ctx) => visibleCoordinate(item.longitude, ctx.actor, [item.accountId]) },
      removed: { resolve: (item) => item.removedAt !== null },
    }),
    imageObject: t.field({ type: ImageObjectRef, nullable: true, resolve: (item, _a, ctx) => ctx.services.imageObjects.byId(item.objectId) }),
  }),
}), communityItem);

/** An ownership claim as REST answers it. */
export const ownershipClaim = answerFrom(
  z
    .object({
      id,
      item_id: id,
      claimant: z.string().nullable(),
      kind: z.enum(CLAIM_KINDS),
      royalty_coins: z.number().nullable().describe('royalty: coins per use'),
      reason: z.string(),
      status: z.enum(CLAIM_STATUSES),
      reviewed_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'OwnershipClaim', description: 'An ownership claim on a community item' }),
  { id: 'databaseId' },
);

export const OwnershipClaimRef = answeredBy(builder.prismaNode('OwnershipClaim', {
  id: { field: 'id' },
  nullable: true,
  authScopes: { ...ownershipClaimPolicy.authScopes, admin: true },
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: ctx.admin && !ctx.actor ? {} : ownershipClaimPolicy.where(ctx.actor) }),
  description: answerDescription(ownershipClaim),
  fields: (t) =>
    answerFields(t, ownershipClaim, {
      claimant: handleOf((c: OwnershipClaim) => c.accountId),
      royalty_coins: { resolve: (c: OwnershipClaim) => (c.royalty === null ? null : fromMinor(c.royalty)) },
    }),
}), ownershipClaim);

/** A page of community items (the public search; the caller's own adds their balance). */
export const CommunityPageRef = answerPage<{ balance?: number; held?: number }>('CommunityPage', 'items', communityItem, {
  more: (t) => ({
    balance: t.float({ nullable: true, description: "The caller's spendable coins, held coins not included (myCommunity only)", resolve: (p) => p.balance ?? null }),
    held: t.float({ nullable: true, description: "The caller's coins held by pending transfers, beside balance (myCommunity only)", resolve: (p) => p.held ?? null }),
  }),
});

export const contribution = answerFrom(
  z.object({
    id,
    url: z.string(),
    coins_earned: z.number(),
    balance: balance.describe("the caller's spendable coins after the award (held coins not included)"),
    held,
    duplicate: z.boolean().describe('the caller had contributed this image object before: nothing earned'),
    message: z.string().nullable().describe('why nothing was earned'),
    item: communityItem,
  }),
  { id: 'item.databaseId', url: 'item.url' },
);
export const ContributionRef = answerObject<ContributionResult>('CommunityContribution', contribution, { fields: (t) => balanceFields(t) });

export const tagResult = z.object({
  coins_earned: z.number(),
  verified: z.boolean().describe('vision confirmed a tag of this set'),
  balance,
  held,
  matched: z.array(z.string()),
  message: z.string().nullable(),
  item: communityItem,
});
export const TagResultRef = answerObject<TagResult>('CommunityTagResult', tagResult, {
  fields: (t) => ({ ...balanceFields(t), matched: { description: 'Tags of the set that vision confirmed' } }),
});

export const unlock = answerFrom(
  z.object({
    item_id: id,
    charged: z.number().describe('coins paid by this call'),
    already_unlocked: z.boolean(),
    uploader_earned: z.number(),
    balance,
    held,
    original_url: z.string().nullable().describe('a 15-minute signed link to the original (null when none is kept)'),
  }),
  { item_id: 'item.databaseId' },
);
export const UnlockRef = answerObject<UnlockResult>('CommunityUnlock', unlock, {
  fields: (t) => ({
    ...balanceFields(t),
    original_url: { resolve: (r, _a, ctx) => (r.item.originalKey ? ctx.baseUrl + ctx.services.community.fileUrl(r.item, 'original') : null) },
  }),
  more: (t) => ({ item: t.field({ type: CommunityItemRef, resolve: (r) => r.item }) }),
});

const leaderboardEntry = z
  .object({ rank: count, handle: z.string(), contributions: count, verified: count, coins_earned: z.number() })
  .meta({ id: 'LeaderboardEntry' });
answerObject<LeaderboardEntry>('LeaderboardEntry', leaderboardEntry, {
  fields: () => ({ coins_earned: { description: 'Community rewards (uploads, tags, bonuses) in the period' } }),
});

export const leaderboard = z.object({ period: z.enum(LEADERBOARD_PERIODS), since: timestamp.nullable(), entries: z.array(leaderboardEntry) });
export const LeaderboardRef = answerObject<{ period: (typeof LEADERBOARD_PERIODS)[number]; since: Date | null; entries: LeaderboardEntry[] }>('Leaderboard', leaderboard);

const portfolioPrivate = z.object({ balance, held, unlisted: count, removed: count, coins_earned: z.number(), unlock_sales: count, unlock_earnings: z.number() });
answerObject<NonNullable<Portfolio['own']>>('PortfolioPrivate', portfolioPrivate, { fields: (t) => balanceFields(t, "The owner's") });

/** A contributor's portfolio as REST answers it. */
export const portfolio = answerFrom(
  z
    .object({
      handle: z.string(),
      attribution: z.string(),
      member_since: timestamp,
      contributions: count.describe('listed items'),
      verified: count,
      recent: z.array(communityItem).describe('the 12 newest listed items'),
      private: portfolioPrivate.nullable().describe('the caller’s own portfolio only'),
    })
    .meta({ id: 'Portfolio', description: "A contributor's portfolio" }),
  { private: 'own' },
);
export const PortfolioRef = answerObject<Portfolio>('Portfolio', portfolio);

export const ClaimPageRef = answerPage('OwnershipClaimPage', 'claims', ownershipClaim);
