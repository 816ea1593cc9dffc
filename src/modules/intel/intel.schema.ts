// GraphQL types of image intel; the operations on them are declared in intel.operations.ts.
import { builder, nodeId } from '../../graphql/builder.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { CommunityItemRef } from '../community/community.schema.js';
import { visibleCoordinate } from '../community/index.js';
import { intelPostPolicy } from './intel.access.js';
import { INTEL_ACTIONS, INTEL_KINDS, INTEL_POLICIES, INTEL_STATUSES, PROPOSAL_STATUSES, type IntelChanges, type IntelKind, type IntelPolicy, type IntelStatus } from './intel.input.js';
import { changesOf, type IntelPage, type IntelPostResult, type IntelResolution } from './intel.service.js';

export const PolicyEnum = builder.enumType('IntelPolicy', { values: INTEL_POLICIES, description: 'open: posts are comments, published at once; restricted: posts are proposals the owner resolves; locked: no posts' });
const KindEnum = builder.enumType('IntelPostKind', { values: INTEL_KINDS });
const StatusEnum = builder.enumType('IntelPostStatus', { values: INTEL_STATUSES });
export const ProposalStatusEnum = builder.enumType('IntelProposalStatus', { values: PROPOSAL_STATUSES });
export const ActionEnum = builder.enumType('IntelResolveAction', { values: INTEL_ACTIONS });

const ChangesRef = builder.objectRef<IntelChanges>('IntelChanges').implement({
  description: 'Proposed values of a community item (null: not proposed); tags is the whole set after a merge',
  fields: (t) => ({
    caption: t.string({ nullable: true, resolve: (c) => c.caption ?? null }),
    tags: t.stringList({ nullable: true, resolve: (c) => c.tags ?? null }),
    name: t.string({ nullable: true, resolve: (c) => c.name ?? null }),
    latitude: t.float({ nullable: true, resolve: (c) => c.latitude ?? null }),
    longitude: t.float({ nullable: true, resolve: (c) => c.longitude ?? null }),
  }),
});

export const ChangesInput = builder.inputType('IntelChangesInput', {
  description: 'Proposed values: each one given is the value after a merge (tags: the whole set); latitude and longitude go together',
  fields: (t) => ({ caption: t.string(), tags: t.stringList(), name: t.string(), latitude: t.float(), longitude: t.float() }),
});

export const IntelPostRef = builder.prismaNode('IntelPost', {
  id: { field: 'id' },
  nullable: true,
  authScopes: intelPostPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: intelPostPolicy.nodeWhere(ctx) }),
  description: 'Image intel: a comment on a community item, or a proposal of changes to its metadata',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id of the REST API' }),
    itemId: t.exposeInt('itemId', { description: 'The community item (image) it is about' }),
    author: t.loadable({
      type: 'String',
      nullable: true,
      description: "The author's handle",
      load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids),
      resolve: (p) => p.accountId,
    }),
    mine: t.boolean({ description: 'The caller wrote it', resolve: (p, _a, ctx) => p.accountId === ctx.actor?.accountId }),
    kind: t.field({ type: KindEnum, resolve: (p) => p.kind as IntelKind }),
    text: t.exposeString('text', { nullable: true }),
    changes: t.field({
      type: ChangesRef,
      nullable: true,
      description: 'proposal: the proposed values (a position to 2 decimals for all but the author and the image owner)',
      select: { changes: true, accountId: true, item: { select: { accountId: true } } },
      resolve: (p, _a, ctx) => {
        const changes = changesOf(p);
        if (!changes) return changes;
        const owners = [p.accountId, p.item.accountId];
        return { ...changes, latitude: visibleCoordinate(changes.latitude, ctx.actor, owners), longitude: visibleCoordinate(changes.longitude, ctx.actor, owners) };
      },
    }),
    status: t.field({ type: StatusEnum, description: 'comment: approved; proposal: pending, merged or rejected', resolve: (p) => p.status as IntelStatus }),
    resolvedAt: t.expose('resolvedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField(CommunityItemRef, 'intelPolicy', (t) =>
  t.field({ type: PolicyEnum, description: 'Image intel policy, set by the contributor', resolve: (item) => item.intelPolicy as IntelPolicy }),
);

export const PostResultRef = builder.objectRef<IntelPostResult>('IntelPostResult').implement({
  fields: (t) => ({
    post: t.field({ type: IntelPostRef, resolve: (r) => r.post }),
    coinsEarned: t.exposeFloat('coinsEarned'),
    ...balanceFields(t, "The author's"),
    message: t.exposeString('message', { nullable: true, description: 'Why nothing was earned' }),
  }),
});

export const ResolutionRef = builder.objectRef<IntelResolution>('IntelResolution').implement({
  fields: (t) => ({
    post: t.field({ type: IntelPostRef, resolve: (r) => r.post }),
    item: t.field({ type: CommunityItemRef, description: 'The image after the resolution', resolve: (r) => r.item }),
    proposerPaid: t.exposeFloat('proposerPaid', { description: 'Coins paid to the proposer by this merge' }),
    message: t.exposeString('message', { nullable: true, description: 'Why a merge paid nothing' }),
  }),
});

export const PageRef = builder.objectRef<IntelPage>('IntelPage').implement({
  fields: (t) => ({
    itemId: t.int({ resolve: (p) => p.item.id }),
    policy: t.field({ type: PolicyEnum, resolve: (p) => p.item.intelPolicy as IntelPolicy }),
    posts: t.field({ type: [IntelPostRef], resolve: (p) => p.posts }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});
