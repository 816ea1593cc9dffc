// The image intel operations, each declared once (docs/architecture.md): posts on community items
// (comments and proposals), the owner's resolution of proposals and the item's intel policy, the
// published intel and the proposals of an item. Spec "Wiki": posting and resolving (shapes not shown
// by the spec: ours); ours: the policy, the published intel, the proposals (README "Wiki: image
// intel"). The image is a community item (the ingest's intel_id). The rules live in intel.service.ts.
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { CommunityItemRef } from '../community/community.schema.js';
import { communityItem } from '../community/community.operations.js';
import { ActionEnum, ChangesInput, IntelPostRef, PageRef, PolicyEnum, PostResultRef, ProposalStatusEnum, ResolutionRef } from './intel.schema.js';
import { INTEL_KINDS, INTEL_POLICIES, INTEL_STATUSES, intelPageSchema, policySchema, postSchema, proposalsSchema, resolveSchema, type IntelChanges } from './intel.input.js';

export const intelPost = answerFrom(
  z
    .object({
      id,
      item_id: id.describe('the community item (image)'),
      author: z.string().nullable().describe("the author's handle"),
      mine: z.boolean().describe('the caller wrote it'),
      kind: z.enum(INTEL_KINDS),
      text: z.string().nullable(),
      changes: z
        .object({
          caption: z.string().nullable(),
          tags: z.array(z.string()).nullable().describe('the whole tag set after a merge'),
          name: z.string().nullable(),
          latitude: z.number().nullable().describe('exact for the author and the image owner; 2 decimals for others'),
          longitude: z.number().nullable(),
        })
        .nullable()
        .describe('proposal: the proposed values (null: not proposed)'),
      status: z.enum(INTEL_STATUSES).describe('comment: approved; proposal: pending, merged or rejected'),
      resolved_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'IntelPost', description: 'Image intel: a comment, or a proposal of changes to the image metadata' }),
  { id: 'databaseId' },
);

/** The image (a community item) a path's id names. */
const image = { ids: { itemId: 'community item' } } as const;
const imagePath = { params: { id: 'itemId' }, paramDescriptions: { id: 'the community item (image) id' } };
const pageFields = { item_id: id, policy: z.enum(INTEL_POLICIES).describe("the image's intel policy") };
const paging = { total: count, limit: count, offset: count };

/** GraphQL may send null for a value not proposed; the service takes it as absent. */
const proposed = (changes: IntelChanges | undefined) => changes && (Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== null)) as IntelChanges);

export const intelOperations = {
  intelPost: defineOperation({
    kind: 'query',
    name: 'intelPost',
    key: ANY_KEY,
    ids: { id: 'intel post' },
    output: IntelPostRef,
    run: ({ ctx, actor, id }) => ctx.services.intel.get(actor, id),
  }),
  postIntel: defineOperation({
    kind: 'mutation',
    name: 'postIntel',
    description: 'Intel on an image, as its policy says: a comment (open), a proposal (restricted, or any post with changes), refused when locked',
    key: SCOPE.media,
    ...image,
    input: postSchema,
    args: { changes: ChangesInput },
    output: PostResultRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.post(actor, itemId, { ...input, changes: proposed(input.changes) }),
    rest: {
      method: 'POST',
      path: '/api/wiki/image/:id/intel',
      ...imagePath,
      summary:
        'Intel on an image (text, changes {caption, tags, name, latitude, longitude}): a comment (open policy, 0.1 coins) or a proposal (restricted policy, or any post with changes: 0.1 coins, 0.5 more when merged)',
      description:
        "Open images publish text at once (status approved); a post with changes, and every post on a restricted image, is a proposal pending the owner's resolution. The owner's own posts are published (merged) at once and earn nothing. Each post is paid once, under the daily caps of the rewards; the same text and changes again on the same image is a 409.",
      response: answerFrom(
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
      ),
      errors: { 409: 'the image is locked or was taken down, or the caller posted the same intel on it before' },
      successStatus: 201,
    },
  }),
  resolveIntel: defineOperation({
    kind: 'mutation',
    name: 'resolveIntel',
    description: "The image owner's decision on a pending proposal: approve merges it (the image changes, the proposer is paid), reject closes it",
    key: MASTER_KEY,
    ids: { id: 'intel proposal' },
    input: resolveSchema,
    args: { action: ActionEnum },
    output: ResolutionRef,
    run: ({ ctx, actor, id, input }) => ctx.services.intel.resolve(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/wiki/image/intel/:id/resolve',
      summary: "The image owner's decision on a pending proposal (action approve or reject): approve merges it into the image and pays the proposer 0.5 coins, once",
      response: answerFrom(
        z.object({
          id,
          status: z.enum(INTEL_STATUSES),
          proposer_paid: z.number().describe('coins paid to the proposer by this merge'),
          message: z.string().nullable().describe('why a merge paid nothing'),
          post: intelPost,
          item: communityItem,
        }),
        { id: 'post.databaseId', status: 'post.status' },
      ),
      errors: { 404: 'no such proposal, or the caller does not own its image', 409: 'the proposal was already resolved, it is a comment, or (approve) its image was taken down' },
    },
  }),
  setIntelPolicy: defineOperation({
    kind: 'mutation',
    name: 'setIntelPolicy',
    key: MASTER_KEY,
    ...image,
    input: policySchema,
    args: { policy: PolicyEnum },
    output: CommunityItemRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.setPolicy(actor, itemId, input),
    rest: {
      method: 'POST',
      path: '/api/wiki/image/:id/policy',
      ...imagePath,
      summary: "Set an image's intel policy (policy open, restricted or locked): its contributor only",
      response: answerFrom(z.object({ item_id: id, policy: z.enum(INTEL_POLICIES) }), { item_id: 'databaseId', policy: 'intelPolicy' }),
      errors: { 403: 'the caller did not contribute the image' },
    },
  }),
  imageIntel: defineOperation({
    kind: 'query',
    name: 'imageIntel',
    description: "An image's published intel (approved comments and merged proposals), newest first",
    key: ANY_KEY,
    ...image,
    input: intelPageSchema,
    output: PageRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.published(actor, itemId, input),
    rest: {
      method: 'GET',
      path: '/api/wiki/image/:id/intel',
      ...imagePath,
      summary: "An image's published intel (approved comments and merged proposals), newest first: limit (default 20, max 100), offset",
      response: z.object({ ...pageFields, posts: z.array(intelPost), ...paging }),
    },
  }),
  intelProposals: defineOperation({
    kind: 'query',
    name: 'intelProposals',
    description: "An image's proposals of a status (default pending), oldest first: all of them for its owner, the caller's own (and merged ones) for others",
    key: ANY_KEY,
    ...image,
    input: proposalsSchema,
    args: { status: ProposalStatusEnum },
    output: PageRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.proposals(actor, itemId, input),
    rest: {
      method: 'GET',
      path: '/api/wiki/image/:id/proposals',
      ...imagePath,
      summary:
        "An image's proposals, oldest first: status (pending by default, merged, rejected), limit, offset; all of them for its owner, the caller's own (and merged ones) for others",
      response: answerFrom(z.object({ ...pageFields, proposals: z.array(intelPost), ...paging }), { proposals: 'posts' }),
    },
  }),
};
