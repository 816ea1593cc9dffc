// Spec "Community": the public search and mobile ingest are written here because no declaration fits
// them (a keyless field with verified 0 or 1 on the wire; form text typed as the spec types it, an
// answer renamed and defaulted field by field), and the signed file links (mounted). The other rows
// are declared in src/modules/community/community.operations.ts.
// Shapes the spec leaves "not shown" are ours (README "Community").
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { answerAs, restRoutesOf } from '../derive.js';
import {
  CommunitySearchDocument,
  IngestCommunityDocument,
} from '../generated/operations.js';
import { balance, formText, id, idParams, held } from '../schemas.js';
import { numberFromText } from '../../src/platform/validation.js';
import { communityPageSchema, ingestSchema } from '../../src/modules/community/community.input.js';
import { COMMUNITY_VARIANTS } from '../../src/modules/community/index.js';
import { communityOperations } from '../../src/modules/community/community.operations.js';
import { communityPage as page } from '../../src/modules/community/community.schema.js';

/** The REST row of a declared operation, in its place in the table (Express matches in order: /my before /:id). */
const declared = (name: keyof typeof communityOperations) => restRoutesOf({ [name]: communityOperations[name] });

const communityParams = idParams('community item');

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
  ...declared('contributeCommunity'),
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
  ...declared('myCommunity'),
  ...declared('communityLeaderboard'),
  ...declared('communityPortfolio'),
  ...declared('communityItem'),
  ...declared('tagCommunityItem'),
  ...declared('unlockCommunityItem'),
  ...declared('communityClaims'),
  ...declared('claimCommunityItem'),
  ...declared('adminOwnershipClaims'),
  ...declared('adminReviewOwnershipClaim'),
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
