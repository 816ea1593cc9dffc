// GraphQL surface of bounties: the list (any key), posting one and cancelling it (master key: they
// move the poster's coins), and claiming one with an upload (media scope, like contributing).
// Thin: the rules live in bounties.service.ts.
import { builder } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf, MASTER_KEY, SCOPE } from '../access/index.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import type { Context } from '../../graphql/context.js';
import { fromMinor } from '../ledger/index.js';
import { BOUNTY_STATUSES, type BountyStatus } from './bounties.input.js';
import { BountiesService, type Bounty, type BountyClaimResult } from './bounties.service.js';

const actor = (ctx: Context) => ctx.actor!;
const BountyStatusEnum = builder.enumType('BountyStatus', { values: BOUNTY_STATUSES });

const BountyRef = builder.prismaObject('Bounty', {
  description: 'Coins offered for photos of a subject, escrowed when posted',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    poster: t.loadable({ type: 'String', nullable: true, load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids), resolve: (b) => b.accountId }),
    subjectSlug: t.exposeString('subjectSlug'),
    subjectName: t.exposeString('subjectName'),
    description: t.exposeString('description', { nullable: true }),
    rewardPerPhoto: t.float({ resolve: (b) => fromMinor(b.rewardPerPhoto) }),
    photosNeeded: t.exposeInt('photosNeeded'),
    photosClaimed: t.exposeInt('photosClaimed'),
    escrowRemaining: t.float({ description: 'Coins still escrowed (0 once filled, expired or cancelled)', resolve: (b) => (b.status === 'open' ? BountiesService.remaining(b) : 0) }),
    status: t.field({ type: BountyStatusEnum, resolve: (b) => b.status as BountyStatus }),
    mine: t.boolean({ description: 'The caller posted it', resolve: (b, _a, ctx) => b.accountId === ctx.actor?.accountId }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
    closedAt: t.expose('closedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const BountyPageRef = builder.objectRef<{ bounties: Bounty[]; total: number; limit: number; offset: number }>('BountyPage').implement({
  fields: (t) => ({
    bounties: t.field({ type: [BountyRef], resolve: (p) => p.bounties }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

const BountyClaimRef = builder.objectRef<BountyClaimResult>('BountyClaimResult').implement({
  fields: (t) => ({
    bounty: t.field({ type: BountyRef, resolve: (r) => r.bounty }),
    itemId: t.exposeInt('itemId'),
    paid: t.exposeFloat('paid', { description: 'Coins paid to the claimant' }),
    ...balanceFields(t),
  }),
});

builder.queryFields((t) => ({
  bounties: t.field({
    type: BountyPageRef,
    authScopes: authScopesOf(ANY_KEY),
    errors: {},
    args: { status: t.arg({ type: BountyStatusEnum }), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.bounties.list(actor(ctx), { status: a.status ?? undefined, limit: a.limit ?? undefined, offset: a.offset ?? undefined }),
  }),
}));

builder.mutationFields((t) => ({
  createBounty: t.field({
    type: BountyRef,
    authScopes: authScopesOf(MASTER_KEY),
    errors: {},
    args: {
      subjectSlug: t.arg.string(),
      subjectName: t.arg.string(),
      rewardPerPhoto: t.arg.float({ required: true }),
      photosNeeded: t.arg.int({ required: true }),
      description: t.arg.string(),
      expiresDays: t.arg.int(),
    },
    resolve: (_r, a, ctx) =>
      ctx.services.bounties.create(actor(ctx), {
        subject_slug: a.subjectSlug ?? undefined,
        subject_name: a.subjectName ?? undefined,
        reward_per_photo: a.rewardPerPhoto,
        photos_needed: a.photosNeeded,
        description: a.description ?? undefined,
        expires_days: a.expiresDays ?? undefined,
      }),
  }),
  claimBounty: t.field({
    type: BountyClaimRef,
    authScopes: authScopesOf(SCOPE.media),
    errors: {},
    args: { id: t.arg.int({ required: true }), crowdsourceId: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.bounties.claim(actor(ctx), a.id, { crowdsource_id: a.crowdsourceId }),
  }),
  cancelBounty: t.field({
    type: BountyRef,
    authScopes: authScopesOf(MASTER_KEY),
    errors: {},
    args: { id: t.arg.int({ required: true }) },
    resolve: (_r, a, ctx) => ctx.services.bounties.cancel(actor(ctx), a.id),
  }),
}));
