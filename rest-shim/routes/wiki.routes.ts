// Spec "Wiki": subjects (the list needs no key), subject detail, the paid query, proposing a subject,
// contributing a photo, the verify queue and votes; ours: the operator's review of subjects and the
// signed file links. Shapes the spec leaves "not shown" are ours (README "Wiki"). Most rows are declared
// in src/modules/wiki/wiki.operations.ts; the rows here do not fit a declaration: the subject list (no
// key, and its verified is 0 or 1 on the wire, a Boolean in GraphQL) and the signed file links (mounted).
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { answerAs, restRoutesOf } from '../derive.js';
import { unwrap } from '../result.js';
import { WikiSubjectsDocument } from '../generated/operations.js';
import { id } from '../schemas.js';
import { listSubjectsSchema } from '../../src/modules/wiki/wiki.input.js';
import { wikiOperations } from '../../src/modules/wiki/wiki.operations.js';
import { subjectPage, wikiPhotoSchema } from '../../src/modules/wiki/wiki.schema.js';
import { WIKI_FILE_KINDS } from '../../src/modules/wiki/index.js';

/** A wiki photo as the routes answer it (challenge votes answer it too). */
export { wikiPhotoSchema };

const { wikiVerifyQueue, adminWikiSubjects, adminReviewWikiSubject, createWikiSubject, voteWikiPhoto, wikiQuery, contributeWikiPhoto, wikiSubject, followSubject, unfollowSubject, followedSubjects } = wikiOperations;

// In the order the README lists them: declared rows between the hand-written ones.
export const wikiRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/wiki/subjects',
    auth: 'none',
    summary: 'Approved subjects with their verified photo counts: q (full text over name, category, description), category, verified (0 or 1), sort (recent, popular: most verified photos), limit (20, max 100), offset',
    operation: WikiSubjectsDocument,
    request: { query: listSubjectsSchema.extend({ verified: z.enum(['0', '1'], { error: 'expected 0 or 1' }).optional() }) },
    response: subjectPage,
    variables: ({ query }) => ({
      q: query.q,
      category: query.category,
      verified: query.verified === undefined ? undefined : query.verified === '1',
      sort: query.sort,
      limit: query.limit,
      offset: query.offset,
    }),
    shape: (data) => answerAs(subjectPage, unwrap(data.wikiSubjects)),
  }),
  ...restRoutesOf({ createWikiSubject }),
  ...restRoutesOf({ wikiVerifyQueue }),
  ...restRoutesOf({ voteWikiPhoto, wikiQuery, contributeWikiPhoto, wikiSubject }),
  ...restRoutesOf({ adminWikiSubjects }),
  ...restRoutesOf({ adminReviewWikiSubject }),
  ...restRoutesOf({ followSubject, unfollowSubject, followedSubjects }),
  defineMountedRoute({
    method: 'GET',
    path: '/wiki/:kind/:id',
    auth: 'none',
    summary: "A wiki photo's file or a subject's featured image by its signed URL: no key, the signature is the permission",
    request: {
      params: z.object({ kind: z.enum(WIKI_FILE_KINDS), id: id.describe('the photo or subject id') }),
      query: z.object({ v: z.string().describe('version'), sig: z.string().describe('signature') }),
    },
    produces: [{ status: 200, description: 'The file', contentTypes: ['image/*'], headers: { ETag: 'strong entity tag' } }],
    errors: { 403: 'a missing or wrong signature, or a link to an earlier file', 404: 'no such file' },
  }),
];
