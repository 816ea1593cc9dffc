// GraphQL types of bounties; the operations on them are declared in bounties.operations.ts.
import { builder } from '../../graphql/builder.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { fromMinor } from '../ledger/index.js';
import { BOUNTY_STATUSES, type BountyStatus } from './bounties.input.js';
import { BountiesService, type Bounty, type BountyClaimResult } from './bounties.service.js';

export const BountyStatusEnum = builder.enumType('BountyStatus', { values: BOUNTY_STATUSES });

export const BountyRef = builder.prismaObject('Bounty', {
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

export const BountyPageRef = builder.objectRef<{ bounties: Bounty[]; total: number; limit: number; offset: number }>('BountyPage').implement({
  fields: (t) => ({
    bounties: t.field({ type: [BountyRef], resolve: (p) => p.bounties }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

export const BountyClaimRef = builder.objectRef<BountyClaimResult>('BountyClaimResult').implement({
  fields: (t) => ({
    bounty: t.field({ type: BountyRef, resolve: (r) => r.bounty }),
    itemId: t.exposeInt('itemId'),
    paid: t.exposeFloat('paid', { description: 'Coins paid to the claimant' }),
    ...balanceFields(t),
  }),
});
