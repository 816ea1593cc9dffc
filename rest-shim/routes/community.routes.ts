// Spec "Community": every row is declared in src/modules/community/community.operations.ts but the
// signed file links (mounted). Shapes the spec leaves "not shown" are ours (README "Community").
import { z } from 'zod';
import { defineMountedRoute } from '../route.js';
import { restRoutesOf } from '../derive.js';
import { idParams } from '../schemas.js';
import { COMMUNITY_VARIANTS } from '../../src/modules/community/index.js';
import { communityOperations } from '../../src/modules/community/community.operations.js';

const communityParams = idParams('community item');

// The declarations' order is the table's (Express matches in order: /my before /:id).
export const communityRoutes = [
  ...restRoutesOf(communityOperations),
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
