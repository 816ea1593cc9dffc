// The community operations, each declared once (docs/architecture.md), and the community item as
// REST answers it (image intel's resolution answers it too). Spec "Community": contributions, tags,
// the caller's items, the leaderboard, portfolios, item detail, ownership claims; ours: unlocking an
// original, the operator's review of claims. Shapes the spec leaves "not shown" are ours (README
// "Community"). Rows that do not fit a declaration stay in rest-shim/routes/community.routes.ts (the
// public search, ingest). The rules live in community.service.ts and claims.service.ts.
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { ADMIN_TOKEN, ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { communityItemPolicy } from './community.access.js';
import {
  ClaimDecisionEnum,
  ClaimKindEnum,
  ClaimPageRef,
  ClaimStatusEnum,
  CommunityItemRef,
  CommunityPageRef,
  ContributionRef,
  LeaderboardRef,
  OwnershipClaimRef,
  PeriodEnum,
  PortfolioRef,
  TagActionEnum,
  TagResultRef,
  UnlockRef,
  uploadOf,
} from './community.schema.js';
import { CLAIM_KINDS, CLAIM_STATUSES, claimListSchema, claimSchema, contributeSchema, LEADERBOARD_PERIODS, leaderboardSchema, myPageSchema, tagSchema } from './community.input.js';

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

/** An ownership claim as REST answers it (the claim rows written by hand answer it too). */
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

/** A contributor's portfolio as REST answers it. */
const portfolio = answerFrom(
  z
    .object({
      handle: z.string(),
      attribution: z.string(),
      member_since: timestamp,
      contributions: count.describe('listed items'),
      verified: count,
      recent: z.array(communityItem).describe('the 12 newest listed items'),
      private: z
        .object({ balance, held, unlisted: count, removed: count, coins_earned: z.number(), unlock_sales: count, unlock_earnings: z.number() })
        .nullable()
        .describe('the caller’s own portfolio only'),
    })
    .meta({ id: 'Portfolio', description: "A contributor's portfolio" }),
  { private: 'own' },
);

/** The operator's review: a path per decision (`/approve`, `/reject`), the decision its GraphQL argument. */
const reviewDecisions = [
  ['approve', 'approved'],
  ['reject', 'rejected'],
] as const;

/** The community item a path's id names. */
const item = { ids: { id: 'community item' } } as const;
/** Paths that name the item `:id` and its argument `itemId`. */
const itemPath = { ids: { itemId: 'community item' } } as const;

export const communityOperations = defineOperations({
  contributeCommunity: defineOperation({
    kind: 'mutation',
    description: 'Gives an image (a file or an image URL) to the community library; pays the community upload rate for a new image object',
    key: SCOPE.media,
    input: contributeSchema.extend({ file: z.file({ error: 'file: expected an image file' }).optional() }),
    output: ContributionRef,
    run: async ({ ctx, actor, input: { file, ...fields } }) => ctx.services.community.contribute(actor, file ? await uploadOf(file) : {}, fields),
    rest: {
      method: 'POST',
      path: '/api/community/contribute',
      form: { files: ['file'] },
      summary: 'Give an image to the community (multipart: file, or image_url; name, tags as a JSON array, source_provider, public): 2 coins for an image the caller had not given',
      description:
        'A JSON body with image_url works too. The same image again (or a resized, recompressed or lightly cropped copy of it) answers the first item with `duplicate: true` and earns nothing.',
      response: answerFrom(
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
      ),
      errors: { 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
    },
  }),
  myCommunity: defineOperation({
    kind: 'query',
    key: ANY_KEY,
    input: myPageSchema,
    output: CommunityPageRef,
    run: ({ ctx, actor, input }) => ctx.services.community.my(actor, input),
    rest: {
      method: 'GET',
      path: '/api/community/my',
      summary: "The caller's community items, newest first (unlisted and removed ones too): limit (default 50, max 200), offset",
      response: answerFrom(z.object({ balance, contributions: z.array(communityItem), total_contributed: count, held, limit: count, offset: count }), {
        contributions: 'items',
        total_contributed: 'total',
      }),
    },
  }),
  communityLeaderboard: defineOperation({
    kind: 'query',
    key: ANY_KEY,
    input: leaderboardSchema,
    args: { period: PeriodEnum },
    output: LeaderboardRef,
    run: ({ ctx, input }) => ctx.services.community.leaderboard(input),
    rest: {
      method: 'GET',
      path: '/api/community/leaderboard',
      summary:
        'Top contributors of a period (day, week, month: the last 24 hours, 7 or 30 days; all), by listed contributions: period (default week), limit (default 10, max 100)',
      response: z.object({
        period: z.enum(LEADERBOARD_PERIODS),
        since: timestamp.nullable(),
        entries: z.array(z.object({ rank: count, handle: z.string(), contributions: count, verified: count, coins_earned: z.number() }).meta({ id: 'LeaderboardEntry' })),
      }),
    },
  }),
  communityPortfolio: defineOperation({
    kind: 'query',
    description: "A contributor's public portfolio by handle (any valid key); without a handle, the caller's own with its private figures",
    key: ANY_KEY,
    input: z.object({ handle: z.string().max(65, 'expected a handle').describe("the contributor's handle").optional() }),
    output: PortfolioRef,
    run: ({ ctx, actor, input: { handle } }) =>
      ctx.services.community.portfolio(handle ? { handle } : { actor: communityItemPolicy.checkKey(actor) }),
    rest: [
      {
        method: 'GET',
        path: '/api/community/portfolio',
        fixed: { handle: undefined },
        summary: "The caller's own portfolio, with its private figures (balance, unlisted and removed items, community earnings, unlock sales)",
        response: portfolio,
      },
      {
        method: 'GET',
        path: '/api/community/portfolio/:code',
        pathFields: ['handle'],
        params: { code: 'handle' },
        summary: "A contributor's public portfolio; code is the contributor's handle (with or without @)",
        response: portfolio,
      },
    ],
  }),
  communityItem: defineOperation({
    kind: 'query',
    key: ANY_KEY,
    ...item,
    output: CommunityItemRef,
    run: ({ ctx, actor, id }) => ctx.services.community.get(actor, id),
    rest: {
      method: 'GET',
      path: '/api/community/:id',
      summary: 'One community item: listed ones for any key, the caller’s own always',
      response: communityItem,
    },
  }),
  tagCommunityItem: defineOperation({
    kind: 'mutation',
    key: SCOPE.media,
    ...item,
    input: tagSchema,
    args: { action: TagActionEnum },
    output: TagResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.community.tag(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/community/:item_id/tag',
      params: { item_id: 'id' },
      summary:
        "Tag an item (tags; action add, or replace for its contributor): 0.5 coins once per item and tagger when the set adds a tag, +0.25 once when vision newly confirms a tag the tagger added; one's own items earn nothing",
      response: z.object({
        coins_earned: z.number(),
        verified: z.boolean().describe('vision confirmed a tag of this set'),
        balance,
        held,
        matched: z.array(z.string()),
        message: z.string().nullable(),
        item: communityItem,
      }),
      errors: { 403: "action replace on someone else's item" },
    },
  }),
  unlockCommunityItem: defineOperation({
    kind: 'mutation',
    key: MASTER_KEY,
    ...item,
    output: UnlockRef,
    run: ({ ctx, actor, id }) => ctx.services.community.unlock(actor, id),
    rest: {
      method: 'POST',
      path: '/api/community/:id/unlock',
      summary: "Unlock an item's full-resolution original: the buyer pays unlock_price once, the uploader gets 80% at once; again, free or one's own costs nothing",
      response: answerFrom(
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
      ),
      errors: { 402: 'too few coins' },
    },
  }),
  communityClaims: defineOperation({
    kind: 'query',
    description: "Claims on an item: the caller's own, or all of them when the caller contributed it",
    key: ANY_KEY,
    ...itemPath,
    output: [OwnershipClaimRef],
    run: ({ ctx, actor, itemId }) => ctx.services.claims.forItem(actor, itemId),
    rest: {
      method: 'GET',
      path: '/api/community/:id/claim',
      params: { id: 'itemId' },
      summary: "Ownership claims on an item: the caller's own, or every claim when the caller contributed it",
      response: answerFrom(z.object({ claims: z.array(ownershipClaim) }), { claims: '' }),
    },
  }),
  claimCommunityItem: defineOperation({
    kind: 'mutation',
    key: MASTER_KEY,
    ...itemPath,
    input: claimSchema,
    args: { kind: ClaimKindEnum },
    output: OwnershipClaimRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.claims.submit(actor, itemId, input),
    rest: {
      method: 'POST',
      path: '/api/community/:id/claim',
      params: { id: 'itemId' },
      summary: 'Claim ownership of an item (kind removal or royalty; royalty_coins 0.1 to 10 per use; reason): the operator reviews it',
      response: ownershipClaim,
      errors: { 403: 'the caller contributed the item', 409: 'the caller already made a claim of this kind on the item' },
      successStatus: 201,
    },
  }),
  adminOwnershipClaims: defineOperation({
    kind: 'query',
    key: ADMIN_TOKEN,
    input: claimListSchema,
    args: { status: ClaimStatusEnum },
    output: ClaimPageRef,
    run: ({ ctx, input }) => ctx.services.claims.list(input),
    rest: {
      method: 'GET',
      path: '/api/admin/claims',
      summary: 'Ownership claims, newest first: status (pending, approved, rejected), limit, offset',
      response: z.object({ claims: z.array(ownershipClaim), total: count, limit: count, offset: count }),
    },
  }),
  adminReviewOwnershipClaim: defineOperation({
    kind: 'mutation',
    key: ADMIN_TOKEN,
    ids: { id: 'ownership claim' },
    input: z.object({ decision: z.enum(reviewDecisions.map(([, decision]) => decision)) }),
    args: { decision: ClaimDecisionEnum },
    output: OwnershipClaimRef,
    run: ({ ctx, id, input }) => ctx.services.claims.review(id, input.decision),
    rest: reviewDecisions.map(([verb, decision]) => ({
      method: 'POST' as const,
      path: `/api/admin/claims/:id/${verb}`,
      fixed: { decision },
      summary: verb === 'approve' ? 'Approve a pending claim: a removal takes the item down, a royalty is paid on each unlock from now on' : 'Reject a pending claim',
      response: ownershipClaim,
      errors: { 409: 'the claim was already reviewed' },
    })),
  }),
});
