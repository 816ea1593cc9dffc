// Image intel as callers see it, stated once: each answer object (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (src/graphql/answer-object.ts). The operations on them are
// declared in intel.operations.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { policyNode } from '../../graphql/owned-rows.js';
import { answerEnum, answerFields, answerObject, handleOf } from '../../graphql/answer-object.js';
import { answerFrom, balance, held, id, pageCounts, timestamp } from '../../platform/wire.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { CommunityItemRef } from '../community/community.schema.js';
import { communityItem } from '../community/community.schema.js';
import { visibleCoordinate } from '../community/index.js';
import { intelPostPolicy } from './intel.access.js';
import { INTEL_ACTIONS, INTEL_KINDS, INTEL_POLICIES, INTEL_STATUSES, PROPOSAL_STATUSES, type IntelChanges, type IntelPolicy } from './intel.input.js';
import type { IntelPost } from '../../generated/prisma/client.js';
import { changesOf, type IntelPage, type IntelPostResult, type IntelResolution } from './intel.service.js';

export const PolicyEnum = answerEnum('IntelPolicy', { values: INTEL_POLICIES, description: 'open: posts are comments, published at once; restricted: posts are proposals the owner resolves; locked: no posts' });
answerEnum('IntelPostKind', { values: INTEL_KINDS });
answerEnum('IntelPostStatus', { values: INTEL_STATUSES });
export const ProposalStatusEnum = builder.enumType('IntelProposalStatus', { values: PROPOSAL_STATUSES });
export const ActionEnum = builder.enumType('IntelResolveAction', { values: INTEL_ACTIONS });

const intelChanges = z.object({
  caption: z.string().nullable(),
  tags: z.array(z.string()).nullable().describe('the whole tag set after a merge'),
  name: z.string().nullable(),
  latitude: z.number().nullable().describe('exact for the author and the image owner; 2 decimals for others'),
  longitude: z.number().nullable(),
});
answerObject<IntelChanges>('IntelChanges', intelChanges, {
  description: 'Proposed values of a community item (null: not proposed); tags is the whole set after a merge',
});

export const ChangesInput = builder.inputType('IntelChangesInput', {
  description: 'Proposed values: each one given is the value after a merge (tags: the whole set); latitude and longitude go together',
  fields: (t) => ({ caption: t.string(), tags: t.stringList(), name: t.string(), latitude: t.float(), longitude: t.float() }),
});

export const intelPost = answerFrom(
  z
    .object({
      id,
      item_id: id.describe('the community item (image)'),
      author: z.string().nullable().describe("the author's handle"),
      mine: z.boolean().describe('the caller wrote it'),
      kind: z.enum(INTEL_KINDS),
      text: z.string().nullable(),
      changes: intelChanges.nullable().describe('proposal: the proposed values (null: not proposed)'),
      status: z.enum(INTEL_STATUSES).describe('comment: approved; proposal: pending, merged or rejected'),
      resolved_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'IntelPost', description: 'Image intel: a comment, or a proposal of changes to the image metadata' }),
  { id: 'databaseId' },
);

/** A post as its resolvers read it (`changes` selects its image's owner). */
type Post = IntelPost & { item: { accountId: number } };

export const IntelPostRef = builder.prismaNode('IntelPost', {
  ...policyNode(intelPostPolicy),
  description: 'Image intel: a comment on a community item, or a proposal of changes to its metadata',
  fields: (t) =>
    answerFields<Post, typeof intelPost>(t, intelPost, {
      author: handleOf((p: Post) => p.accountId),
      mine: { resolve: (p: Post, _a, ctx) => p.accountId === ctx.actor?.accountId },
      changes: {
        select: { changes: true, accountId: true, item: { select: { accountId: true } } },
        resolve: (p: Post, _a, ctx) => {
          const changes = changesOf(p);
          if (!changes) return changes;
          const owners = [p.accountId, p.item.accountId];
          return { ...changes, latitude: visibleCoordinate(changes.latitude, ctx.actor, owners), longitude: visibleCoordinate(changes.longitude, ctx.actor, owners) };
        },
      },
    }),
});

builder.prismaObjectField(CommunityItemRef, 'intelPolicy', (t) =>
  t.field({ type: PolicyEnum, description: 'Image intel policy, set by the contributor', resolve: (item) => item.intelPolicy as IntelPolicy }),
);

export const intelPostResult = answerFrom(
  z.object({
    id,
    kind: z.enum(INTEL_KINDS),
    status: z.enum(INTEL_STATUSES),
    coins_earned: z.number(),
    balance,
    held,
    message: z.string().nullable().describe('why nothing was earned'),
    post: intelPost,
  }),
  { id: 'post.databaseId', kind: 'post.kind', status: 'post.status' },
);
export const PostResultRef = answerObject<IntelPostResult>('IntelPostResult', intelPostResult, { fields: (t) => balanceFields(t, "The author's") });

export const intelResolution = answerFrom(
  z.object({
    id,
    status: z.enum(INTEL_STATUSES),
    proposer_paid: z.number().describe('coins paid to the proposer by this merge'),
    message: z.string().nullable().describe('why a merge paid nothing'),
    post: intelPost,
    item: communityItem,
  }),
  { id: 'post.databaseId', status: 'post.status' },
);
export const ResolutionRef = answerObject<IntelResolution>('IntelResolution', intelResolution, {
  fields: () => ({ item: { type: CommunityItemRef, description: 'The image after the resolution' } }),
});

export const pageFields = { item_id: id, policy: z.enum(INTEL_POLICIES).describe("the image's intel policy") };
export const intelPage = z.object({ ...pageFields, posts: z.array(intelPost), ...pageCounts });
export const PageRef = answerObject<IntelPage>('IntelPage', intelPage, {
  fields: () => ({ item_id: { resolve: (p) => p.item.id }, policy: { resolve: (p) => p.item.intelPolicy } }),
});
