// Spec "Community": the public search, contributions, mobile ingest, tags, the caller's items, the
// leaderboard, item detail, ownership claims, portfolios, and ours: unlocking an original and the
// operator's claim review. Shapes the spec leaves "not shown" are ours (README "Community").
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import {
  AdminOwnershipClaimsDocument,
  AdminReviewOwnershipClaimDocument,
  ClaimCommunityItemDocument,
  CommunityClaimsDocument,
  CommunityItemDocument,
  CommunityLeaderboardDocument,
  CommunityPortfolioDocument,
  CommunitySearchDocument,
  ContributeCommunityDocument,
  IngestCommunityDocument,
  MyCommunityDocument,
  TagCommunityItemDocument,
  UnlockCommunityItemDocument,
  type CommunityContributionFieldsFragment,
  type CommunityItemFieldsFragment,
  type OwnershipClaimFieldsFragment,
  type PortfolioFieldsFragment,
} from '../generated/operations.js';
import { balance, count, formText, id, idParams, timestamp, held } from '../schemas.js';
import { numberFromText, objectId } from '../../src/platform/validation.js';
import {
  CLAIM_KINDS,
  CLAIM_STATUSES,
  claimListSchema,
  claimSchema,
  communityPageSchema,
  contributeSchema,
  ingestSchema,
  LEADERBOARD_PERIODS,
  leaderboardSchema,
  myPageSchema,
  tagSchema,
} from '../../src/modules/community/community.input.js';
import { COMMUNITY_VARIANTS } from '../../src/modules/community/index.js';

const item = z
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
  .meta({ id: 'CommunityItem', description: 'An image of the community library' });
/** A community item as the routes answer it (image intel's resolution answers it too). */
export const communityItemSchema = item;

const claim = z
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
  .meta({ id: 'OwnershipClaim', description: 'An ownership claim on a community item' });

const contribution = {
  id,
  url: z.string(),
  coins_earned: z.number(),
  balance: balance.describe("the caller's spendable coins after the award (held coins not included)"),
  held,
  duplicate: z.boolean().describe('the caller had contributed this image object before: nothing earned'),
  message: z.string().nullable().describe('why nothing was earned'),
  item,
};

const portfolio = z
  .object({
    handle: z.string(),
    attribution: z.string(),
    member_since: timestamp,
    contributions: count.describe('listed items'),
    verified: count,
    recent: z.array(item).describe('the 12 newest listed items'),
    private: z
      .object({ balance, held, unlisted: count, removed: count, coins_earned: z.number(), unlock_sales: count, unlock_earnings: z.number() })
      .nullable()
      .describe('the caller’s own portfolio only'),
  })
  .meta({ id: 'Portfolio', description: "A contributor's portfolio" });

export function communityItemJson(i: CommunityItemFieldsFragment): z.input<typeof item> {
  return {
    id: i.databaseId,
    image_object_id: i.imageObjectId,
    contributor: i.contributor ?? null,
    origin: i.origin as 'contribute' | 'ingest',
    name: i.name,
    tags: i.tags,
    verified: i.verified,
    caption: i.caption,
    labels: i.labels,
    url: i.url,
    width: i.width,
    height: i.height,
    mime: i.mime,
    source_provider: i.sourceProvider,
    source_url: i.sourceUrl,
    attribution_handle: i.attributionHandle,
    unlock_price: i.unlockPrice,
    has_original: i.hasOriginal,
    original_url: i.originalUrl ?? null,
    latitude: i.latitude ?? null,
    longitude: i.longitude ?? null,
    public: i.public,
    removed: i.removed,
    created_at: i.createdAt,
  };
}

const claimJson = (c: OwnershipClaimFieldsFragment): z.input<typeof claim> => ({
  id: c.databaseId,
  item_id: c.itemId,
  claimant: c.claimant ?? null,
  kind: c.kind,
  royalty_coins: c.royaltyCoins ?? null,
  reason: c.reason,
  status: c.status,
  reviewed_at: c.reviewedAt ?? null,
  created_at: c.createdAt,
});

const contributionJson = (c: CommunityContributionFieldsFragment) => ({
  id: c.item.databaseId,
  url: c.item.url,
  coins_earned: c.coinsEarned,
  balance: c.balance,
  held: c.held,
  duplicate: c.duplicate,
  message: c.message ?? null,
  item: communityItemJson(c.item),
});

const portfolioJson = (p: PortfolioFieldsFragment): z.input<typeof portfolio> => ({
  handle: p.handle,
  attribution: p.attribution,
  member_since: p.memberSince,
  contributions: p.contributions,
  verified: p.verified,
  recent: p.recent.map(communityItemJson),
  private: p.own ? { balance: p.own.balance, held: p.own.held, unlisted: p.own.unlisted, removed: p.own.removed, coins_earned: p.own.coinsEarned, unlock_sales: p.own.unlockSales, unlock_earnings: p.own.unlockEarnings } : null,
});

const itemParams = z.object({ item_id: objectId.describe('the community item id') });
const communityParams = idParams('community item');
const claimParams = idParams('ownership claim');
const file = z.file({ error: 'file: expected an image file' });

export const communityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/community/search',
    auth: 'none',
    summary: 'Public community items, newest first: tag, verified (0 or 1: only AI-verified), limit (default 20, max 100), offset',
    operation: CommunitySearchDocument,
    request: { query: communityPageSchema.extend({ tag: z.string().optional(), verified: z.enum(['0', '1'], { error: 'expected 0 or 1' }).optional() }) },
    response: z.object({ items: z.array(item), total: count, limit: count, offset: count }),
    variables: ({ query }) => ({ tag: query.tag, verified: query.verified === undefined ? undefined : query.verified === '1', limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const page = unwrap(data.communitySearch);
      return { items: page.items.map(communityItemJson), total: page.total, limit: page.limit, offset: page.offset };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/contribute',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Give an image to the community (multipart: file, or image_url; name, tags as a JSON array, source_provider, public): 2 coins for an image the caller had not given',
    description: 'A JSON body with image_url works too. The same image again (or a resized, recompressed or lightly cropped copy of it) answers the first item with `duplicate: true` and earns nothing.',
    multipart: { files: ['file'] },
    operation: ContributeCommunityDocument,
    request: { form: contributeSchema.extend({ file: file.optional() }) },
    response: z.object(contribution),
    errors: { 413: 'the file is larger than UPLOAD_MAX_BYTES' },
    variables: ({ body }) => ({ file: body.file, imageUrl: body.image_url, name: body.name, tags: body.tags, sourceProvider: body.source_provider, public: body.public }),
    successStatus: 201,
    shape: (data) => contributionJson(unwrap(data.contributeCommunity)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/ingest',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A phone photo (multipart: file; latitude, longitude, attribution_handle, unlock_price, name, tags): captioned and labelled, original kept private behind unlock_price',
    description: 'HEIC/HEIF is accepted. Without latitude and longitude the EXIF GPS position is used. The public file is at most 1280 px and carries no metadata.',
    multipart: { files: ['file'] },
    operation: IngestCommunityDocument,
    // Form fields are text: the position and price as the specification types them (the module checks their values and pairing).
    request: {
      form: z.object({
        ...ingestSchema.shape,
        file: z.file({ error: 'file is required: send the photo as the multipart field "file"' }),
        latitude: formText(ingestSchema.shape.latitude.unwrap()).optional().describe('-90 to 90; with longitude'),
        longitude: formText(ingestSchema.shape.longitude.unwrap()).optional().describe('-180 to 180; with latitude'),
        unlock_price: formText(ingestSchema.shape.unlock_price.unwrap()).optional().describe('coins, 0 (default) to 100000, at most 4 decimals'),
      }),
    },
    response: z.object({
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
    errors: { 413: 'the file is larger than UPLOAD_MAX_BYTES' },
    variables: ({ body }) => ({
      file: body.file,
      latitude: body.latitude,
      longitude: body.longitude,
      attributionHandle: body.attribution_handle,
      // Checked by the module's schema above: a finite number (form text or JSON).
      unlockPrice: numberFromText(body.unlock_price) as number | undefined,
      name: body.name,
      tags: body.tags,
    }),
    successStatus: 201,
    shape: (data) => {
      const c = unwrap(data.ingestCommunity);
      return {
        intel_id: c.item.databaseId,
        image_object_id: c.item.imageObjectId,
        stored_url: c.item.url,
        coins_harvested: c.coinsEarned,
        balance: c.balance,
        ai_summary: c.item.caption ?? '',
        ai_labels: c.item.labels,
        attribution_handle: c.item.attributionHandle ?? '',
        unlock_price: c.item.unlockPrice,
        held: c.held,
        latitude: c.item.latitude ?? null,
        longitude: c.item.longitude ?? null,
        duplicate: c.duplicate,
        message: c.message ?? null,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/my',
    auth: 'key',
    key: ANY_KEY,
    summary: "The caller's community items, newest first (unlisted and removed ones too): limit (default 50, max 200), offset",
    operation: MyCommunityDocument,
    request: { query: myPageSchema },
    response: z.object({ balance, contributions: z.array(item), total_contributed: count, held, limit: count, offset: count }),
    variables: ({ query }) => ({ limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const page = unwrap(data.myCommunity);
      return { balance: page.balance ?? 0, contributions: page.items.map(communityItemJson), total_contributed: page.total, held: page.held ?? 0, limit: page.limit, offset: page.offset };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/leaderboard',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Top contributors of a period (day, week, month: the last 24 hours, 7 or 30 days; all), by listed contributions: period (default week), limit (default 10, max 100)',
    operation: CommunityLeaderboardDocument,
    request: { query: leaderboardSchema },
    response: z.object({
      period: z.enum(LEADERBOARD_PERIODS),
      since: timestamp.nullable(),
      entries: z.array(z.object({ rank: count, handle: z.string(), contributions: count, verified: count, coins_earned: z.number() }).meta({ id: 'LeaderboardEntry' })),
    }),
    variables: ({ query }) => ({ period: query.period, limit: query.limit }),
    shape: (data) => {
      const board = unwrap(data.communityLeaderboard);
      return { period: board.period, since: board.since ?? null, entries: board.entries.map((e) => ({ rank: e.rank, handle: e.handle, contributions: e.contributions, verified: e.verified, coins_earned: e.coinsEarned })) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/portfolio',
    auth: 'key',
    key: ANY_KEY,
    summary: "The caller's own portfolio, with its private figures (balance, unlisted and removed items, community earnings, unlock sales)",
    operation: CommunityPortfolioDocument,
    response: portfolio,
    variables: () => ({}),
    shape: (data) => portfolioJson(unwrap(data.communityPortfolio)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/portfolio/:code',
    auth: 'key',
    key: ANY_KEY,
    summary: "A contributor's public portfolio; code is the contributor's handle (with or without @)",
    operation: CommunityPortfolioDocument,
    request: { params: z.object({ code: z.string().max(65, 'expected a handle').describe("the contributor's handle") }) },
    response: portfolio,
    variables: ({ params }) => ({ handle: params.code! }),
    shape: (data) => portfolioJson(unwrap(data.communityPortfolio)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/:id',
    auth: 'key',
    key: ANY_KEY,
    summary: 'One community item: listed ones for any key, the caller’s own always',
    operation: CommunityItemDocument,
    request: { params: communityParams },
    response: item,
    variables: ({ params }) => ({ id: pathId(params, 'community item') }),
    shape: (data) => communityItemJson(unwrap(data.communityItem)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/:item_id/tag',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Tag an item (tags; action add, or replace for its contributor): 0.5 coins once per item and tagger when the set adds a tag, +0.25 once when vision newly confirms a tag the tagger added; one\'s own items earn nothing',
    operation: TagCommunityItemDocument,
    request: { params: itemParams, body: tagSchema },
    response: z.object({ coins_earned: z.number(), verified: z.boolean().describe('vision confirmed a tag of this set'), balance, held, matched: z.array(z.string()), message: z.string().nullable(), item }),
    errors: { 403: "action replace on someone else's item" },
    variables: ({ params, body }) => ({ id: pathId(params, 'community item', 'item_id'), tags: body.tags, action: body.action }),
    shape: (data) => {
      const r = unwrap(data.tagCommunityItem);
      return { coins_earned: r.coinsEarned, verified: r.verified, balance: r.balance, held: r.held, matched: r.matched, message: r.message ?? null, item: communityItemJson(r.item) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/:id/unlock',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Unlock an item's full-resolution original: the buyer pays unlock_price once, the uploader gets 80% at once; again, free or one's own costs nothing",
    operation: UnlockCommunityItemDocument,
    request: { params: communityParams },
    response: z.object({
      item_id: id,
      charged: z.number().describe('coins paid by this call'),
      already_unlocked: z.boolean(),
      uploader_earned: z.number(),
      balance,
      held,
      original_url: z.string().nullable().describe('a 15-minute signed link to the original (null when none is kept)'),
    }),
    errors: { 402: 'too few coins' },
    variables: ({ params }) => ({ id: pathId(params, 'community item') }),
    shape: (data) => {
      const r = unwrap(data.unlockCommunityItem);
      return { item_id: r.item.databaseId, charged: r.charged, already_unlocked: r.alreadyUnlocked, uploader_earned: r.uploaderEarned, balance: r.balance, held: r.held, original_url: r.originalUrl ?? null };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/:id/claim',
    auth: 'key',
    key: ANY_KEY,
    summary: "Ownership claims on an item: the caller's own, or every claim when the caller contributed it",
    operation: CommunityClaimsDocument,
    request: { params: communityParams },
    response: z.object({ claims: z.array(claim) }),
    variables: ({ params }) => ({ itemId: pathId(params, 'community item') }),
    shape: (data) => ({ claims: unwrap(data.communityClaims).map(claimJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/:id/claim',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Claim ownership of an item (kind removal or royalty; royalty_coins 0.1 to 10 per use; reason): the operator reviews it',
    operation: ClaimCommunityItemDocument,
    request: { params: communityParams, body: claimSchema },
    response: claim,
    errors: { 403: "the caller contributed the item", 409: 'the caller already made a claim of this kind on the item' },
    variables: ({ params, body }) => ({ itemId: pathId(params, 'community item'), kind: body.kind, royaltyCoins: body.royalty_coins, reason: body.reason }),
    successStatus: 201,
    shape: (data) => claimJson(unwrap(data.claimCommunityItem)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/admin/claims',
    auth: 'admin',
    summary: 'Ownership claims, newest first: status (pending, approved, rejected), limit, offset',
    operation: AdminOwnershipClaimsDocument,
    request: { query: claimListSchema },
    response: z.object({ claims: z.array(claim), total: count, limit: count, offset: count }),
    variables: ({ query }) => ({ status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const page = unwrap(data.adminOwnershipClaims);
      return { claims: page.claims.map(claimJson), total: page.total, limit: page.limit, offset: page.offset };
    },
  }),
  ...(['approve', 'reject'] as const).map((decision) =>
    defineRoute({
      method: 'POST',
      path: `/api/admin/claims/:id/${decision}`,
      auth: 'admin',
      summary: decision === 'approve' ? 'Approve a pending claim: a removal takes the item down, a royalty is paid on each unlock from now on' : 'Reject a pending claim',
      operation: AdminReviewOwnershipClaimDocument,
      request: { params: claimParams },
      response: claim,
      errors: { 409: 'the claim was already reviewed' },
      variables: ({ params }) => ({ id: pathId(params, 'ownership claim'), decision: decision === 'approve' ? ('approved' as const) : ('rejected' as const) }),
      shape: (data) => claimJson(unwrap(data.adminReviewOwnershipClaim)),
    }),
  ),
  defineMountedRoute({
    method: 'GET',
    path: '/community/:id/:variant',
    auth: 'none',
    summary: "A community file by its signed URL (an item's url or original_url): no key, the signature is the permission",
    request: {
      params: communityParams.extend({ variant: z.enum(COMMUNITY_VARIANTS) }),
      query: z.object({ v: z.string().describe('version'), sig: z.string().describe('signature'), exp: z.string().optional().describe('original: expiry (Unix seconds)') }),
    },
    produces: [{ status: 200, description: 'The file', contentTypes: ['image/*'], headers: { ETag: 'strong entity tag' } }],
    errors: { 403: 'a missing or wrong signature, an expired link, or a link to an earlier file', 404: 'no such file' },
  }),
];
