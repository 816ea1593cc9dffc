// Spec "Wiki": subjects (the list needs no key), subject detail, the paid query, proposing a subject,
// contributing a photo, the verify queue and votes; ours: the operator's review of subjects and the
// signed file links. Shapes the spec leaves "not shown" are ours (README "Wiki"). Most rows are declared
// in src/modules/wiki/wiki.operations.ts; the rows here do not fit a declaration: the admin rows, the
// subject list (its verified is 0 or 1 on the wire, a Boolean in GraphQL), the verify queue (the answer
// wraps the result's list in items) and the signed file links (mounted).
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { ANY_KEY } from '../../src/modules/access/index.js';
import { restRoutesOf } from '../derive.js';
import { unwrap } from '../result.js';
import {
  AdminReviewWikiSubjectDocument,
  AdminWikiSubjectsDocument,
  WikiSubjectsDocument,
  WikiVerifyQueueDocument,
  type WikiPhotoFieldsFragment,
  type WikiSubjectFieldsFragment,
  type WikiSubjectPageFieldsFragment,
} from '../generated/operations.js';
import { count, id } from '../schemas.js';
import { listSubjectsSchema, queueSchema, reviewListSchema } from '../../src/modules/wiki/wiki.input.js';
import { wikiOperations, wikiPhotoSchema, wikiSubjectSchema } from '../../src/modules/wiki/wiki.operations.js';
import { WIKI_FILE_KINDS } from '../../src/modules/wiki/index.js';

/** A wiki photo as the routes answer it (challenge votes answer it too). */
export { wikiPhotoSchema };
const subjectPage = z.object({ subjects: z.array(wikiSubjectSchema), total: count, limit: count, offset: count });

export const wikiPhotoJson = (p: WikiPhotoFieldsFragment): z.input<typeof wikiPhotoSchema> => ({
  id: p.databaseId,
  subject_slug: p.subjectSlug,
  image_object_id: p.imageObjectId,
  contributor: p.contributor ?? null,
  photo_type: p.photoType,
  context: p.context ?? null,
  url: p.url,
  width: p.width,
  height: p.height,
  mime: p.mime,
  caption: p.caption ?? null,
  labels: p.labels,
  status: p.status,
  confirms: p.confirms,
  rejects: p.rejects,
  confidence: p.confidence ?? null,
  created_at: p.createdAt,
  decided_at: p.decidedAt ?? null,
});

const subjectJson = (s: WikiSubjectFieldsFragment): z.input<typeof wikiSubjectSchema> => ({
  id: s.databaseId,
  slug: s.slug,
  name: s.name,
  category: s.category,
  description: s.description ?? null,
  featured_image_url: s.featuredImageUrl ?? null,
  featured_image_source: s.featuredImageSource ?? null,
  status: s.status,
  creator: s.creator ?? null,
  mine: s.mine,
  verified_count: s.verifiedCount,
  reviewed_at: s.reviewedAt ?? null,
  created_at: s.createdAt,
});

const pageJson = (p: WikiSubjectPageFieldsFragment) => ({ subjects: p.subjects.map(subjectJson), total: p.total, limit: p.limit, offset: p.offset });
const slugParams = z.object({ slug: z.string().max(200, 'expected a subject slug').describe('the subject slug') });

const { createWikiSubject, voteWikiPhoto, wikiQuery, contributeWikiPhoto, wikiSubject, followSubject, unfollowSubject, followedSubjects } = wikiOperations;

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
    shape: (data) => pageJson(unwrap(data.wikiSubjects)),
  }),
  ...restRoutesOf({ createWikiSubject }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/verify-queue',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
    operation: WikiVerifyQueueDocument,
    request: { query: queueSchema },
    response: z.object({ items: z.array(wikiPhotoSchema) }),
    variables: ({ query }) => ({ limit: query.limit }),
    shape: (data) => ({ items: unwrap(data.wikiVerifyQueue).map(wikiPhotoJson) }),
  }),
  ...restRoutesOf({ voteWikiPhoto, wikiQuery, contributeWikiPhoto, wikiSubject }),
  defineRoute({
    method: 'GET',
    path: '/api/admin/wiki/subjects',
    auth: 'admin',
    summary: 'Subjects to review, oldest first: status (pending by default, approved, rejected), limit, offset',
    operation: AdminWikiSubjectsDocument,
    request: { query: reviewListSchema },
    response: subjectPage,
    variables: ({ query }) => ({ status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => pageJson(unwrap(data.adminWikiSubjects)),
  }),
  ...(['approve', 'reject'] as const).map((decision) =>
    defineRoute({
      method: 'POST',
      path: `/api/admin/wiki/subjects/:slug/${decision}`,
      auth: 'admin',
      summary: decision === 'approve' ? 'Approve a pending subject: everyone sees it, and its creator is paid 10 coins' : 'Reject a pending subject',
      operation: AdminReviewWikiSubjectDocument,
      request: { params: slugParams },
      response: wikiSubjectSchema,
      errors: { 409: 'the subject was already reviewed' },
      variables: ({ params }) => ({ slug: params.slug!, decision: decision === 'approve' ? ('approved' as const) : ('rejected' as const) }),
      shape: (data) => subjectJson(unwrap(data.adminReviewWikiSubject)),
    }),
  ),
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
