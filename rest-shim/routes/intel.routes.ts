// Spec "Wiki": image intel, POST /api/wiki/image/{id}/intel and POST /api/wiki/image/intel/{id}/resolve
// (shapes not shown by the spec: ours), and ours: an image's intel policy, its published intel and
// its proposals (README "Wiki: image intel"). The image is a community item (the ingest's intel_id).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import {
  ImageIntelDocument,
  IntelProposalsDocument,
  PostIntelDocument,
  ResolveIntelDocument,
  SetIntelPolicyDocument,
  type IntelPageFieldsFragment,
  type IntelPostFieldsFragment,
} from '../generated/operations.js';
import { balance, count, id, idParams, timestamp, held } from '../schemas.js';
import { INTEL_KINDS, INTEL_POLICIES, INTEL_STATUSES, intelPageSchema, policySchema, postSchema, proposalsSchema, resolveSchema } from '../../src/modules/intel/intel.input.js';
import { communityItemJson, communityItemSchema } from './community.routes.js';

const post = z
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
  .meta({ id: 'IntelPost', description: 'Image intel: a comment, or a proposal of changes to the image metadata' });

const postJson = (p: IntelPostFieldsFragment): z.input<typeof post> => ({
  id: p.databaseId,
  item_id: p.itemId,
  author: p.author ?? null,
  mine: p.mine,
  kind: p.kind,
  text: p.text ?? null,
  changes: p.changes
    ? { caption: p.changes.caption ?? null, tags: p.changes.tags ?? null, name: p.changes.name ?? null, latitude: p.changes.latitude ?? null, longitude: p.changes.longitude ?? null }
    : null,
  status: p.status,
  resolved_at: p.resolvedAt ?? null,
  created_at: p.createdAt,
});

const pageFields = { item_id: id, policy: z.enum(INTEL_POLICIES).describe("the image's intel policy") };
const paging = { total: count, limit: count, offset: count };

const pageJson = (p: IntelPageFieldsFragment) => ({ item_id: p.itemId, policy: p.policy, posts: p.posts.map(postJson), total: p.total, limit: p.limit, offset: p.offset });

const imageParams = idParams('community item (image)');

export const intelRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/wiki/image/:id/intel',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Intel on an image (text, changes {caption, tags, name, latitude, longitude}): a comment (open policy, 0.1 coins) or a proposal (restricted policy, or any post with changes: 0.1 coins, 0.5 more when merged)',
    description:
      "Open images publish text at once (status approved); a post with changes, and every post on a restricted image, is a proposal pending the owner's resolution. The owner's own posts are published (merged) at once and earn nothing. Each post is paid once, under the daily caps of the rewards; the same text and changes again on the same image is a 409.",
    operation: PostIntelDocument,
    request: { params: imageParams, body: postSchema },
    response: z.object({ id, kind: z.enum(INTEL_KINDS), status: z.enum(INTEL_STATUSES), coins_earned: z.number(), balance, held, message: z.string().nullable().describe('why nothing was earned'), post }),
    errors: { 409: 'the image is locked or was taken down, or the caller posted the same intel on it before' },
    variables: ({ params, body }) => ({ itemId: pathId(params, 'community item'), text: body.text, changes: body.changes }),
    successStatus: 201,
    shape: (data) => {
      const r = unwrap(data.postIntel);
      return { id: r.post.databaseId, kind: r.post.kind, status: r.post.status, coins_earned: r.coinsEarned, balance: r.balance, held: r.held, message: r.message ?? null, post: postJson(r.post) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/wiki/image/intel/:id/resolve',
    auth: 'key',
    key: MASTER_KEY,
    summary: "The image owner's decision on a pending proposal (action approve or reject): approve merges it into the image and pays the proposer 0.5 coins, once",
    operation: ResolveIntelDocument,
    request: { params: idParams('intel proposal'), body: resolveSchema },
    response: z.object({
      id,
      status: z.enum(INTEL_STATUSES),
      proposer_paid: z.number().describe('coins paid to the proposer by this merge'),
      message: z.string().nullable().describe('why a merge paid nothing'),
      post,
      item: communityItemSchema,
    }),
    errors: { 404: "no such proposal, or the caller does not own its image", 409: 'the proposal was already resolved, it is a comment, or (approve) its image was taken down' },
    variables: ({ params, body }) => ({ id: pathId(params, 'intel proposal'), action: body.action }),
    shape: (data) => {
      const r = unwrap(data.resolveIntel);
      return { id: r.post.databaseId, status: r.post.status, proposer_paid: r.proposerPaid, message: r.message ?? null, post: postJson(r.post), item: communityItemJson(r.item) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/wiki/image/:id/policy',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Set an image's intel policy (policy open, restricted or locked): its contributor only",
    operation: SetIntelPolicyDocument,
    request: { params: imageParams, body: policySchema },
    response: z.object({ item_id: id, policy: z.enum(INTEL_POLICIES) }),
    errors: { 403: 'the caller did not contribute the image' },
    variables: ({ params, body }) => ({ itemId: pathId(params, 'community item'), policy: body.policy }),
    shape: (data) => {
      const item = unwrap(data.setIntelPolicy);
      return { item_id: item.databaseId, policy: item.intelPolicy };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/image/:id/intel',
    auth: 'key',
    key: ANY_KEY,
    summary: "An image's published intel (approved comments and merged proposals), newest first: limit (default 20, max 100), offset",
    operation: ImageIntelDocument,
    request: { params: imageParams, query: intelPageSchema },
    response: z.object({ ...pageFields, posts: z.array(post), ...paging }),
    variables: ({ params, query }) => ({ itemId: pathId(params, 'community item'), limit: query.limit, offset: query.offset }),
    shape: (data) => pageJson(unwrap(data.imageIntel)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/image/:id/proposals',
    auth: 'key',
    key: ANY_KEY,
    summary: "An image's proposals, oldest first: status (pending by default, merged, rejected), limit, offset; all of them for its owner, the caller's own (and merged ones) for others",
    operation: IntelProposalsDocument,
    request: { params: imageParams, query: proposalsSchema },
    response: z.object({ ...pageFields, proposals: z.array(post), ...paging }),
    variables: ({ params, query }) => ({ itemId: pathId(params, 'community item'), status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const { posts, ...rest } = pageJson(unwrap(data.intelProposals));
      return { item_id: rest.item_id, policy: rest.policy, proposals: posts, total: rest.total, limit: rest.limit, offset: rest.offset };
    },
  }),
];
