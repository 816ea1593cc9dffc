// Spec "Community": the public search, mobile ingest, portfolios, the claims of an item, and ours:
// the operator's claim review, written here because no declaration fits them (a keyless field, form
// text typed as the spec types it, a handle in the path, a list answer wrapped in an object, the
// admin token). The other rows are declared in src/modules/community/community.operations.ts.
// Shapes the spec leaves "not shown" are ours (README "Community").
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { ANY_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import { answerAs, restRoutesOf } from '../derive.js';
import {
  AdminOwnershipClaimsDocument,
  AdminReviewOwnershipClaimDocument,
  CommunityClaimsDocument,
  CommunityPortfolioDocument,
  CommunitySearchDocument,
  IngestCommunityDocument,
} from '../generated/operations.js';
import { balance, count, formText, id, idParams, timestamp, held } from '../schemas.js';
import { answerFrom } from '../../src/platform/wire.js';
import { numberFromText } from '../../src/platform/validation.js';
import { claimListSchema, communityPageSchema, ingestSchema } from '../../src/modules/community/community.input.js';
import { COMMUNITY_VARIANTS } from '../../src/modules/community/index.js';
import { communityItem as item, communityOperations, ownershipClaim as claim } from '../../src/modules/community/community.operations.js';

/** The REST row of a declared operation, in its place in the table (Express matches in order: /my before /:id). */
const declared = (name: keyof typeof communityOperations) => restRoutesOf({ [name]: communityOperations[name] })[0]!;

const portfolio = answerFrom(
  z
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
    .meta({ id: 'Portfolio', description: "A contributor's portfolio" }),
  { private: 'own' },
);
const page = z.object({ items: z.array(item), total: count, limit: count, offset: count });
const claims = z.object({ claims: z.array(claim) });
const claimPage = claims.extend({ total: count, limit: count, offset: count });

const communityParams = idParams('community item');
const claimParams = idParams('ownership claim');

export const communityRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/community/search',
    auth: 'none',
    summary: 'Public community items, newest first: tag, verified (0 or 1: only AI-verified), limit (default 20, max 100), offset',
    operation: CommunitySearchDocument,
    request: { query: communityPageSchema.extend({ tag: z.string().optional(), verified: z.enum(['0', '1'], { error: 'expected 0 or 1' }).optional() }) },
    response: page,
    variables: ({ query }) => ({ tag: query.tag, verified: query.verified === undefined ? undefined : query.verified === '1', limit: query.limit, offset: query.offset }),
    shape: (data) => answerAs(page, unwrap(data.communitySearch)),
  }),
  declared('contributeCommunity'),
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
  declared('myCommunity'),
  declared('communityLeaderboard'),
  defineRoute({
    method: 'GET',
    path: '/api/community/portfolio',
    auth: 'key',
    key: ANY_KEY,
    summary: "The caller's own portfolio, with its private figures (balance, unlisted and removed items, community earnings, unlock sales)",
    operation: CommunityPortfolioDocument,
    response: portfolio,
    variables: () => ({}),
    shape: (data) => answerAs(portfolio, unwrap(data.communityPortfolio)),
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
    shape: (data) => answerAs(portfolio, unwrap(data.communityPortfolio)),
  }),
  declared('communityItem'),
  declared('tagCommunityItem'),
  declared('unlockCommunityItem'),
  defineRoute({
    method: 'GET',
    path: '/api/community/:id/claim',
    auth: 'key',
    key: ANY_KEY,
    summary: "Ownership claims on an item: the caller's own, or every claim when the caller contributed it",
    operation: CommunityClaimsDocument,
    request: { params: communityParams },
    response: claims,
    variables: ({ params }) => ({ itemId: pathId(params, 'community item') }),
    shape: (data) => answerAs(claims, { claims: unwrap(data.communityClaims) }),
  }),
  declared('claimCommunityItem'),
  defineRoute({
    method: 'GET',
    path: '/api/admin/claims',
    auth: 'admin',
    summary: 'Ownership claims, newest first: status (pending, approved, rejected), limit, offset',
    operation: AdminOwnershipClaimsDocument,
    request: { query: claimListSchema },
    response: claimPage,
    variables: ({ query }) => ({ status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => answerAs(claimPage, unwrap(data.adminOwnershipClaims)),
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
      shape: (data) => answerAs(claim, unwrap(data.adminReviewOwnershipClaim)),
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
