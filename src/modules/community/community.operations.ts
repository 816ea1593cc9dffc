// The community operations, each declared once (docs/architecture.md). Spec "Community":
// contributions, tags, the caller's items, the leaderboard, portfolios, item detail, ownership claims;
// ours: unlocking an original, the operator's review of claims. Shapes the spec leaves "not shown" are
// ours (README "Community"). The answers and their GraphQL types are in community.schema.ts. The
// rules live in community.service.ts and claims.service.ts.
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { decisionEnum, reviewDecision, reviewRows } from '../../graphql/review-rows.js';
import { ADMIN_TOKEN, ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, balance, count, held, id } from '../../platform/wire.js';
import { communityItemPolicy } from './community.access.js';
import {
  ClaimKindEnum,
  ClaimPageRef,
  ClaimStatusEnum,
  communityItem,
  CommunityItemRef,
  CommunityPageRef,
  ContributionRef,
  LeaderboardRef,
  ownershipClaim,
  OwnershipClaimRef,
  PeriodEnum,
  PortfolioRef,
  TagActionEnum,
  TagResultRef,
  UnlockRef,
  uploadOf,
} from './community.schema.js';
import { claimListSchema, claimSchema, contributeSchema, ingestFormSchema, leaderboardSchema, myPageSchema, searchSchema, tagSchema } from './community.input.js';

/** The community item a path's id names. */
const item = { ids: { id: 'community item' } } as const;
/** Paths that name the item `:id` and its argument `itemId`. */
const itemPath = { ids: { itemId: 'community item' } } as const;

/** Ingest's answer: the contribution renamed (the spec's names), caption and handle '' when absent. */
const ingestAnswer = answerFrom(
  z.object({
    intel_id: id.describe('the community item id'),
    image_object_id: id,
    stored_url: z.string().describe('the public file'),
    coins_harvested: z.number(),
    balance,
    ai_summary: z.string().describe("vision's caption ('' when no vision provider could answer)"),
    ai_labels: z.array(z.string()),
    attribution_handle: z.string(),
    unlock_price: z.number(),
    held,
    latitude: z.number().nullable(),
    longitude: z.number().nullable(),
    duplicate: z.boolean(),
    message: z.string().nullable(),
  }),
  {
    intel_id: 'item.databaseId',
    image_object_id: 'item.imageObjectId',
    stored_url: 'item.url',
    coins_harvested: 'coinsEarned',
    ai_summary: 'item.caption',
    ai_labels: 'item.labels',
    attribution_handle: 'item.attributionHandle',
    unlock_price: 'item.unlockPrice',
    latitude: 'item.latitude',
    longitude: 'item.longitude',
  },
);

export const communityOperations = defineOperations({
  communitySearch: defineQuery({
    description: 'Public community items, newest first (no key needed)',
    key: null,
    input: searchSchema,
    output: CommunityPageRef,
    run: ({ ctx, input }) => ctx.services.community.search(input),
    rest: {
      route: 'GET /api/community/search',
      summary: 'Public community items, newest first: tag, verified (0 or 1: only AI-verified), limit (default 20, max 100), offset',
    },
  }),
  contributeCommunity: defineMutation({
    description: 'Gives an image (a file or an image URL) to the community library; pays the community upload rate for a new image object',
    key: SCOPE.media,
    input: contributeSchema.extend({ file: z.file({ error: 'file: expected an image file' }).optional() }),
    output: ContributionRef,
    run: async ({ ctx, actor, input: { file, ...fields } }) => ctx.services.community.contribute(actor, file ? await uploadOf(file) : {}, fields),
    rest: {
      route: 'POST /api/community/contribute',
      fragment: 'CommunityContribution',
      form: { files: ['file'] },
      summary: 'Give an image to the community (multipart: file, or image_url; name, tags as a JSON array, source_provider, public): 2 coins for an image the caller had not given',
      description:
        'A JSON body with image_url works too. The same image again (or a resized, recompressed or lightly cropped copy of it) answers the first item with `duplicate: true` and earns nothing.',
      errors: { 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
    },
  }),
  ingestCommunity: defineMutation({
    description: "A phone's photo: position from the arguments or EXIF GPS, vision caption and labels, an optional paywall on the original",
    key: SCOPE.media,
    input: ingestFormSchema,
    // Form text on REST (the spec's type), a number in GraphQL: the row reads the text as the Float.
    args: { unlock_price: 'Float' },
    output: ContributionRef,
    run: async ({ ctx, actor, input: { file, ...fields } }) => ctx.services.community.ingest(actor, await uploadOf(file), fields),
    rest: {
      route: 'POST /api/community/ingest',
      form: { files: ['file'] },
      summary: 'A phone photo (multipart: file; latitude, longitude, attribution_handle, unlock_price, name, tags): captioned and labelled, original kept private behind unlock_price',
      description: 'HEIC/HEIF is accepted. Without latitude and longitude the EXIF GPS position is used. The public file is at most 1280 px and carries no metadata.',
      response: ingestAnswer,
      shape: (answer) => ({ ...answer, ai_summary: answer.ai_summary ?? '', attribution_handle: answer.attribution_handle ?? '' }),
      errors: { 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
    },
  }),
  myCommunity: defineQuery({
    key: ANY_KEY,
    input: myPageSchema,
    output: CommunityPageRef,
    run: ({ ctx, actor, input }) => ctx.services.community.my(actor, input),
    rest: {
      route: 'GET /api/community/my',
      fragment: 'CommunityPage',
      summary: "The caller's community items, newest first (unlisted and removed ones too): limit (default 50, max 200), offset",
      response: answerFrom(z.object({ balance, contributions: z.array(communityItem), total_contributed: count, held, limit: count, offset: count }), {
        contributions: 'items',
        total_contributed: 'total',
      }),
    },
  }),
  communityLeaderboard: defineQuery({
    key: ANY_KEY,
    input: leaderboardSchema,
    args: { period: PeriodEnum },
    output: LeaderboardRef,
    run: ({ ctx, input }) => ctx.services.community.leaderboard(input),
    rest: {
      route: 'GET /api/community/leaderboard',
      summary:
        'Top contributors of a period (day, week, month: the last 24 hours, 7 or 30 days; all), by listed contributions: period (default week), limit (default 10, max 100)',
    },
  }),
  communityPortfolio: defineQuery({
    description: "A contributor's public portfolio by handle (any valid key); without a handle, the caller's own with its private figures",
    key: ANY_KEY,
    input: z.object({ handle: z.string().max(65, 'expected a handle').describe("the contributor's handle").optional() }),
    output: PortfolioRef,
    run: ({ ctx, actor, input: { handle } }) =>
      ctx.services.community.portfolio(handle ? { handle } : { actor: communityItemPolicy.checkKey(actor) }),
    rest: [
      {
        route: 'GET /api/community/portfolio',
        answerFragment: true,
        fixed: { handle: undefined },
        summary: "The caller's own portfolio, with its private figures (balance, unlisted and removed items, community earnings, unlock sales)",
      },
      {
        route: 'GET /api/community/portfolio/:code',
        pathFields: ['handle'],
        params: { code: 'handle' },
        summary: "A contributor's public portfolio; code is the contributor's handle (with or without @)",
      },
    ],
  }),
  communityItem: defineQuery({
    key: ANY_KEY,
    ...item,
    output: CommunityItemRef,
    run: ({ ctx, actor, id }) => ctx.services.community.get(actor, id),
    rest: {
      route: 'GET /api/community/:id',
      summary: 'One community item: listed ones for any key, the caller’s own always',
    },
  }),
  tagCommunityItem: defineMutation({
    key: SCOPE.media,
    ...item,
    input: tagSchema,
    args: { action: TagActionEnum },
    output: TagResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.community.tag(actor, id, input),
    rest: {
      route: 'POST /api/community/:item_id/tag',
      params: { item_id: 'id' },
      summary:
        "Tag an item (tags; action add, or replace for its contributor): 0.5 coins once per item and tagger when the set adds a tag, +0.25 once when vision newly confirms a tag the tagger added; one's own items earn nothing",
      errors: { 403: "action replace on someone else's item" },
    },
  }),
  unlockCommunityItem: defineMutation({
    key: MASTER_KEY,
    ...item,
    output: UnlockRef,
    run: ({ ctx, actor, id }) => ctx.services.community.unlock(actor, id),
    rest: {
      route: 'POST /api/community/:id/unlock',
      summary: "Unlock an item's full-resolution original: the buyer pays unlock_price once, the uploader gets 80% at once; again, free or one's own costs nothing",
      errors: { 402: 'too few coins' },
    },
  }),
  communityClaims: defineQuery({
    description: "Claims on an item: the caller's own, or all of them when the caller contributed it",
    key: ANY_KEY,
    ...itemPath,
    output: [OwnershipClaimRef],
    run: ({ ctx, actor, itemId }) => ctx.services.claims.forItem(actor, itemId),
    rest: {
      route: 'GET /api/community/:id/claim',
      params: { id: 'itemId' },
      summary: "Ownership claims on an item: the caller's own, or every claim when the caller contributed it",
      response: answerFrom(z.object({ claims: z.array(ownershipClaim) }), { claims: '' }),
    },
  }),
  claimCommunityItem: defineMutation({
    key: MASTER_KEY,
    ...itemPath,
    input: claimSchema,
    args: { kind: ClaimKindEnum },
    output: OwnershipClaimRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.claims.submit(actor, itemId, input),
    rest: {
      route: 'POST /api/community/:id/claim',
      params: { id: 'itemId' },
      summary: 'Claim ownership of an item (kind removal or royalty; royalty_coins 0.1 to 10 per use; reason): the operator reviews it',
      errors: { 403: 'the caller contributed the item', 409: 'the caller already made a claim of this kind on the item' },
      successStatus: 201,
    },
  }),
  adminOwnershipClaims: defineQuery({
    key: ADMIN_TOKEN,
    input: claimListSchema,
    args: { status: ClaimStatusEnum },
    output: ClaimPageRef,
    run: ({ ctx, input }) => ctx.services.claims.list(input),
    rest: {
      route: 'GET /api/admin/claims',
      summary: 'Ownership claims, newest first: status (pending, approved, rejected), limit, offset',
    },
  }),
  adminReviewOwnershipClaim: defineMutation({
    key: ADMIN_TOKEN,
    ids: { id: 'ownership claim' },
    input: z.object({ decision: reviewDecision }),
    args: { decision: decisionEnum('OwnershipClaimDecision') },
    output: OwnershipClaimRef,
    run: ({ ctx, id, input }) => ctx.services.claims.review(id, input.decision),
    rest: reviewRows(
      '/api/admin/claims/:id',
      { approve: 'Approve a pending claim: a removal takes the item down, a royalty is paid on each unlock from now on', reject: 'Reject a pending claim' },
      { errors: { 409: 'the claim was already reviewed' } },
    ),
  }),
});
