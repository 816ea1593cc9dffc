// Spec "Wiki": subjects (the list needs no key), subject detail, the paid query, proposing a subject,
// contributing a photo, the verify queue and votes; ours: the operator's review of subjects and the
// signed file links. Shapes the spec leaves "not shown" are ours (README "Wiki"). The rows are declared
// in src/modules/wiki/wiki.operations.ts but the signed file links (mounted).
import { z } from 'zod';
import { signedFileRoute } from '../signed-file-route.js';
import { restRoutesOf } from '../derive.js';
import { id } from '../schemas.js';
import { wikiOperations } from '../../src/modules/wiki/wiki.operations.js';
import { WIKI_FILE_KINDS } from '../../src/modules/wiki/index.js';

// The declarations' order is the table's: the README's.
export const wikiRoutes = [
  ...restRoutesOf(wikiOperations),
  signedFileRoute({
    path: '/wiki/:kind/:id',
    summary: "A wiki photo's file or a subject's featured image by its signed URL",
    params: z.object({ kind: z.enum(WIKI_FILE_KINDS), id: id.describe('the photo or subject id') }),
  }),
];
