// Spec "Community": every row is declared in src/modules/community/community.operations.ts but the
// signed file links (mounted). Shapes the spec leaves "not shown" are ours (README "Community").
import { z } from 'zod';
import { signedFileRoute } from '../signed-file-route.js';
import { restRoutesOf } from '../derive.js';
import { idParams } from '../schemas.js';
import { COMMUNITY_VARIANTS } from '../../src/modules/community/index.js';
import { communityOperations } from '../../src/modules/community/community.operations.js';

// The declarations' order is the table's (Express matches in order: /my before /:id).
export const communityRoutes = [
  ...restRoutesOf(communityOperations),
  signedFileRoute({
    path: '/community/:id/:variant',
    summary: "A community file by its signed URL (an item's url or original_url)",
    params: idParams('community item').extend({ variant: z.enum(COMMUNITY_VARIANTS) }),
    query: { exp: z.string().optional().describe('original: expiry (Unix seconds)') },
    forbidden: 'a missing or wrong signature, an expired link, or a link to an earlier file',
  }),
];
