// GraphQL types of the community library, and the fields no declaration fits: the public search
// (no key) and mobile ingest (form text typed as the spec types it). The other operations are declared
// in community.operations.ts; the rules live in community.service.ts and claims.service.ts.
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import type { Context } from '../../graphql/context.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { fromMinor } from '../ledger/index.js';
import { ImageObjectRef } from '../image-objects/image-objects.schema.js';
import { communityItemPolicy, ownershipClaimPolicy, visibleCoordinate } from './community.access.js';
import { CLAIM_KINDS, CLAIM_STATUSES, COMMUNITY_TAG_ACTIONS, LEADERBOARD_PERIODS } from './community.input.js';
import type { CommunityItem, ContributionResult, LeaderboardEntry, Portfolio, TagResult, UnlockResult } from './community.service.js';
import type { OwnershipClaim } from './claims.service.js';

const actor = (ctx: Context) => ctx.actor!;
/** An uploaded file as the service takes it. */
export const uploadOf = async (file: File) => ({ body: Buffer.from(await file.arrayBuffer()), filename: file.name });

export const TagActionEnum = builder.enumType('CommunityTagAction', { values: COMMUNITY_TAG_ACTIONS });
export const PeriodEnum = builder.enumType('LeaderboardPeriod', { values: LEADERBOARD_PERIODS });
export const ClaimKindEnum = builder.enumType('OwnershipClaimKind', { values: CLAIM_KINDS });
export const ClaimStatusEnum = builder.enumType('OwnershipClaimStatus', { values: CLAIM_STATUSES });
export const ClaimDecisionEnum = builder.enumType('OwnershipClaimDecision', { values: ['approved', 'rejected'] as const });

export const CommunityItemRef = builder.prismaNode('CommunityItem', {
  id: { field: 'id' },
  nullable: true,
  // No type-level key rule: the public search answers without a key. The node lookup uses the policy (any key).
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: communityItemPolicy.nodeWhere(ctx) }),
  description: 'An image given to the community library',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer item id of the REST API' }),
    imageObjectId: t.exposeInt('objectId', { description: 'The image object this picture is (the same across resized and recompressed copies)' }),
    imageObject: t.field({ type: ImageObjectRef, nullable: true, resolve: (item, _a, ctx) => ctx.services.imageObjects.byId(item.objectId) }),
    contributor: t.loadable({
      type: 'String',
      nullable: true,
      description: "The contributor's handle",
      load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids),
      resolve: (item) => item.accountId,
    }),
    origin: t.exposeString('origin', { description: 'contribute or ingest' }),
    name: t.exposeString('name', { nullable: true }),
    tags: t.exposeStringList('tags'),
    verified: t.exposeBoolean('verified', { description: 'AI-verified: vision confirmed at least one of its current tags' }),
    caption: t.exposeString('caption', { nullable: true }),
    labels: t.exposeStringList('labels'),
    url: t.string({ description: 'The public file (metadata stripped), a signed link that needs no key', resolve: (item, _a, ctx) => ctx.baseUrl + ctx.services.community.fileUrl(item, 'public') }),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    mime: t.exposeString('mime'),
    sourceProvider: t.exposeString('sourceProvider', { nullable: true }),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    attributionHandle: t.exposeString('attributionHandle', { nullable: true }),
    unlockPrice: t.float({ description: 'Coins to unlock the full-resolution original; 0 is free', resolve: (item) => fromMinor(item.unlockPrice) }),
    hasOriginal: t.boolean({ description: 'A full-resolution original is kept (ingest)', resolve: (item) => item.originalKey !== null }),
    originalUrl: t.loadable({
      type: 'String',
      nullable: true,
      description: 'A signed link to the original for 15 minutes: for the contributor, buyers who unlocked it, and any key when it is free',
      load: async (ids: number[], ctx) => {
        const readable = await ctx.services.community.readableOriginals(ctx.actor, ids);
        return ids.map((id) => {
          const item = readable.get(id);
          return item ? ctx.baseUrl + ctx.services.community.fileUrl(item, 'original') : null;
        });
      },
      resolve: (item) => item.id,
    }),
    latitude: t.float({ nullable: true, resolve: (item, _a, ctx) => visibleCoordinate(item.latitude, ctx.actor, [item.accountId]) }),
    longitude: t.float({ nullable: true, resolve: (item, _a, ctx) => visibleCoordinate(item.longitude, ctx.actor, [item.accountId]) }),
    public: t.exposeBoolean('public', { description: 'Listed by the public search' }),
    removed: t.boolean({ description: 'An approved removal claim took it down (only its contributor still sees it)', resolve: (item) => item.removedAt !== null }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const OwnershipClaimRef = builder.prismaNode('OwnershipClaim', {
  id: { field: 'id' },
  nullable: true,
  authScopes: { ...ownershipClaimPolicy.authScopes, admin: true },
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: ctx.admin && !ctx.actor ? {} : ownershipClaimPolicy.where(ctx.actor) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    itemId: t.exposeInt('itemId'),
    claimant: t.loadable({ type: 'String', nullable: true, load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids), resolve: (c) => c.accountId }),
    kind: t.field({ type: ClaimKindEnum, resolve: (c) => c.kind as (typeof CLAIM_KINDS)[number] }),
    royaltyCoins: t.float({ nullable: true, description: 'royalty: coins per use', resolve: (c) => (c.royalty === null ? null : fromMinor(c.royalty)) }),
    reason: t.exposeString('reason'),
    status: t.field({ type: ClaimStatusEnum, resolve: (c) => c.status as (typeof CLAIM_STATUSES)[number] }),
    reviewedAt: t.expose('reviewedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const CommunityPageRef = builder.objectRef<{ items: CommunityItem[]; total: number; limit: number; offset: number; balance?: number; held?: number }>('CommunityPage').implement({
  fields: (t) => ({
    items: t.field({ type: [CommunityItemRef], resolve: (p) => p.items }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    balance: t.float({ nullable: true, description: "The caller's spendable coins, held coins not included (myCommunity only)", resolve: (p) => p.balance ?? null }),
    held: t.float({ nullable: true, description: "The caller's coins held by pending transfers, beside balance (myCommunity only)", resolve: (p) => p.held ?? null }),
  }),
});

export const ContributionRef = builder.objectRef<ContributionResult>('CommunityContribution').implement({
  fields: (t) => ({
    item: t.field({ type: CommunityItemRef, resolve: (r) => r.item }),
    coinsEarned: t.exposeFloat('coinsEarned'),
    ...balanceFields(t),
    duplicate: t.exposeBoolean('duplicate', { description: 'The caller had contributed this image object before: nothing earned' }),
    message: t.exposeString('message', { nullable: true, description: 'Why nothing was earned' }),
  }),
});

export const TagResultRef = builder.objectRef<TagResult>('CommunityTagResult').implement({
  fields: (t) => ({
    item: t.field({ type: CommunityItemRef, resolve: (r) => r.item }),
    coinsEarned: t.exposeFloat('coinsEarned'),
    verified: t.exposeBoolean('verified', { description: 'Vision confirmed a tag of this set' }),
    matched: t.exposeStringList('matched', { description: 'Tags of the set that vision confirmed' }),
    ...balanceFields(t),
    message: t.exposeString('message', { nullable: true }),
  }),
});

export const UnlockRef = builder.objectRef<UnlockResult>('CommunityUnlock').implement({
  fields: (t) => ({
    item: t.field({ type: CommunityItemRef, resolve: (r) => r.item }),
    charged: t.exposeFloat('charged', { description: 'Coins paid by this call' }),
    alreadyUnlocked: t.exposeBoolean('alreadyUnlocked'),
    uploaderEarned: t.exposeFloat('uploaderEarned'),
    ...balanceFields(t),
    originalUrl: t.string({
      nullable: true,
      description: 'A signed link to the original for 15 minutes (null when the item keeps no original)',
      resolve: (r, _a, ctx) => (r.item.originalKey ? ctx.baseUrl + ctx.services.community.fileUrl(r.item, 'original') : null),
    }),
  }),
});

const LeaderboardEntryRef = builder.objectRef<LeaderboardEntry>('LeaderboardEntry').implement({
  fields: (t) => ({
    rank: t.exposeInt('rank'),
    handle: t.exposeString('handle'),
    contributions: t.exposeInt('contributions'),
    verified: t.exposeInt('verified'),
    coinsEarned: t.exposeFloat('coinsEarned', { description: 'Community rewards (uploads, tags, bonuses) in the period' }),
  }),
});

export const LeaderboardRef = builder.objectRef<{ period: (typeof LEADERBOARD_PERIODS)[number]; since: Date | null; entries: LeaderboardEntry[] }>('Leaderboard').implement({
  fields: (t) => ({
    period: t.field({ type: PeriodEnum, resolve: (l) => l.period }),
    since: t.expose('since', { type: 'DateTime', nullable: true }),
    entries: t.field({ type: [LeaderboardEntryRef], resolve: (l) => l.entries }),
  }),
});

const PortfolioOwnRef = builder.objectRef<NonNullable<Portfolio['own']>>('PortfolioPrivate').implement({
  fields: (t) => ({
    ...balanceFields(t, "The owner's"),
    unlisted: t.exposeInt('unlisted'),
    removed: t.exposeInt('removed'),
    coinsEarned: t.exposeFloat('coinsEarned'),
    unlockSales: t.exposeInt('unlockSales'),
    unlockEarnings: t.exposeFloat('unlockEarnings'),
  }),
});

export const PortfolioRef = builder.objectRef<Portfolio>('Portfolio').implement({
  fields: (t) => ({
    handle: t.exposeString('handle'),
    attribution: t.exposeString('attribution'),
    memberSince: t.expose('memberSince', { type: 'DateTime' }),
    contributions: t.exposeInt('contributions'),
    verified: t.exposeInt('verified'),
    recent: t.field({ type: [CommunityItemRef], resolve: (p) => p.recent }),
    own: t.field({ type: PortfolioOwnRef, nullable: true, resolve: (p) => p.own }),
  }),
});

export const ClaimPageRef = builder.objectRef<{ claims: OwnershipClaim[]; total: number; limit: number; offset: number }>('OwnershipClaimPage').implement({
  fields: (t) => ({
    claims: t.field({ type: [OwnershipClaimRef], resolve: (p) => p.claims }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

builder.queryFields((t) => ({
  communitySearch: t.field({
    type: CommunityPageRef,
    description: 'Public community items, newest first (no key needed)',
    errors: {},
    args: { tag: t.arg.string(), verified: t.arg.boolean(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.community.search({ tag: a.tag ?? undefined, verified: a.verified ?? undefined, limit: a.limit ?? undefined, offset: a.offset ?? undefined }),
  }),
}));

builder.mutationFields((t) => ({
  ingestCommunity: t.field({
    type: ContributionRef,
    authScopes: authScopesOf(SCOPE.media),
    errors: {},
    description: "A phone's photo: position from the arguments or EXIF GPS, vision caption and labels, an optional paywall on the original",
    args: {
      file: t.arg({ type: 'File', required: true }),
      latitude: t.arg.string(),
      longitude: t.arg.string(),
      attributionHandle: t.arg.string(),
      unlockPrice: t.arg.float(),
      name: t.arg.string(),
      tags: t.arg.stringList(),
    },
    resolve: async (_r, a, ctx) =>
      ctx.services.community.ingest(
        actor(ctx),
        await uploadOf(a.file),
        {
          latitude: a.latitude ?? undefined,
          longitude: a.longitude ?? undefined,
          attribution_handle: a.attributionHandle ?? undefined,
          unlock_price: a.unlockPrice ?? undefined,
          name: a.name ?? undefined,
          tags: a.tags ?? undefined,
        },
      ),
  }),
}));
