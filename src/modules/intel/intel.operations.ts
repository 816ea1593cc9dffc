// The image intel operations, each declared once (docs/architecture.md): posts on community items
// (comments and proposals), the owner's resolution of proposals and the item's intel policy, the
// published intel and the proposals of an item. Spec "Wiki": posting and resolving (shapes not shown
// by the spec: ours); ours: the policy, the published intel, the proposals (README "Wiki: image
// intel"). The image is a community item (the ingest's intel_id). The rules live in intel.service.ts.
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, id, pageCounts } from '../../platform/wire.js';
import { CommunityItemRef } from '../community/community.schema.js';
import { ActionEnum, ChangesInput, intelPost, IntelPostRef, PageRef, pageFields, PolicyEnum, PostResultRef, ProposalStatusEnum, ResolutionRef } from './intel.schema.js';
import { INTEL_POLICIES, intelPageSchema, policySchema, postSchema, proposalsSchema, resolveSchema, type IntelChanges } from './intel.input.js';

/** The image (a community item) a path's id names. */
const image = { ids: { itemId: 'community item' } } as const;
const imagePath = { params: { id: 'itemId' }, paramDescriptions: { id: 'the community item (image) id' } };

/** GraphQL may send null for a value not proposed; the service takes it as absent. */
const proposed = (changes: IntelChanges | undefined) => changes && (Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== null)) as IntelChanges);

export const intelOperations = defineOperations({
  intelPost: defineQuery({
    key: ANY_KEY,
    ids: { id: 'intel post' },
    output: IntelPostRef,
    run: ({ ctx, actor, id }) => ctx.services.intel.get(actor, id),
  }),
  postIntel: defineMutation({
    description: 'Intel on an image, as its policy says: a comment (open), a proposal (restricted, or any post with changes), refused when locked',
    key: SCOPE.media,
    ...image,
    input: postSchema,
    args: { changes: ChangesInput },
    output: PostResultRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.post(actor, itemId, { ...input, changes: proposed(input.changes) }),
    rest: {
      route: 'POST /api/wiki/image/:id/intel',
      ...imagePath,
      summary:
        'Intel on an image (text, changes {caption, tags, name, latitude, longitude}): a comment (open policy, 0.1 coins) or a proposal (restricted policy, or any post with changes: 0.1 coins, 0.5 more when merged)',
      description:
        "Open images publish text at once (status approved); a post with changes, and every post on a restricted image, is a proposal pending the owner's resolution. The owner's own posts are published (merged) at once and earn nothing. Each post is paid once, under the daily caps of the rewards; the same text and changes again on the same image is a 409.",
      errors: { 409: 'the image is locked or was taken down, or the caller posted the same intel on it before' },
      successStatus: 201,
    },
  }),
  resolveIntel: defineMutation({
    description: "The image owner's decision on a pending proposal: approve merges it (the image changes, the proposer is paid), reject closes it",
    key: MASTER_KEY,
    ids: { id: 'intel proposal' },
    input: resolveSchema,
    args: { action: ActionEnum },
    output: ResolutionRef,
    run: ({ ctx, actor, id, input }) => ctx.services.intel.resolve(actor, id, input),
    rest: {
      route: 'POST /api/wiki/image/intel/:id/resolve',
      summary: "The image owner's decision on a pending proposal (action approve or reject): approve merges it into the image and pays the proposer 0.5 coins, once",
      errors: { 404: 'no such proposal, or the caller does not own its image', 409: 'the proposal was already resolved, it is a comment, or (approve) its image was taken down' },
    },
  }),
  setIntelPolicy: defineMutation({
    key: MASTER_KEY,
    ...image,
    input: policySchema,
    args: { policy: PolicyEnum },
    output: CommunityItemRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.setPolicy(actor, itemId, input),
    rest: {
      route: 'POST /api/wiki/image/:id/policy',
      ...imagePath,
      summary: "Set an image's intel policy (policy open, restricted or locked): its contributor only",
      response: answerFrom(z.object({ item_id: id, policy: z.enum(INTEL_POLICIES) }), { item_id: 'databaseId', policy: 'intelPolicy' }),
      errors: { 403: 'the caller did not contribute the image' },
    },
  }),
  imageIntel: defineQuery({
    description: "An image's published intel (approved comments and merged proposals), newest first",
    key: ANY_KEY,
    ...image,
    input: intelPageSchema,
    output: PageRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.published(actor, itemId, input),
    rest: {
      route: 'GET /api/wiki/image/:id/intel',
      fragment: 'IntelPage',
      ...imagePath,
      summary: "An image's published intel (approved comments and merged proposals), newest first: limit (default 20, max 100), offset",
    },
  }),
  intelProposals: defineQuery({
    description: "An image's proposals of a status (default pending), oldest first: all of them for its owner, the caller's own (and merged ones) for others",
    key: ANY_KEY,
    ...image,
    input: proposalsSchema,
    args: { status: ProposalStatusEnum },
    output: PageRef,
    run: ({ ctx, actor, itemId, input }) => ctx.services.intel.proposals(actor, itemId, input),
    rest: {
      route: 'GET /api/wiki/image/:id/proposals',
      ...imagePath,
      summary:
        "An image's proposals, oldest first: status (pending by default, merged, rejected), limit, offset; all of them for its owner, the caller's own (and merged ones) for others",
      response: answerFrom(z.object({ ...pageFields, proposals: z.array(intelPost), ...pageCounts }), { proposals: 'posts' }),
    },
  }),
});
