// Spec "Media library": items, their lifecycle, tags, bulk actions, folders, credits.
// Our shapes (the spec leaves them open): one item is `media`, pages are `items` with `total`,
// `limit`, `offset`; a folder is `folder`. See docs/rest-api.md "Media library". Every JSON row is declared
// in src/modules/media/media.operations.ts; written here: the file stream (mounted).
import { z } from 'zod';
import { signedFileRoute } from '../signed-file-route.js';
import { restRoutesOf } from '../derive.js';
import { idParams } from '../schemas.js';
import { mediaOperations } from '../../src/modules/media/media.operations.js';
import { MEDIA_VARIANTS } from '../../src/modules/media/media-urls.js';

export const mediaRoutes = [
  ...restRoutesOf(mediaOperations),
  signedFileRoute({
    path: '/media/:id/:variant',
    summary: "A library file by its signed URL (a media item's url or thumbnail_url)",
    params: idParams('media item').extend({ variant: z.enum(MEDIA_VARIANTS) }),
    version: 'version: changes with the bytes',
    produces: [
      { status: 200, description: 'The file with its own content type (documents as attachments)', contentTypes: ['*/*'], headers: { ETag: 'strong entity tag' } },
      { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
    ],
  }),
];
