// Spec "Wiki": subjects (the list needs no key), subject detail, the paid query, proposing a subject,
// contributing a photo, the verify queue and votes; ours: the operator's review of subjects and the
// signed file links. Shapes the spec leaves "not shown" are ours (README "Wiki").
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { ANY_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import {
  AdminReviewWikiSubjectDocument,
  AdminWikiSubjectsDocument,
  ContributeWikiPhotoDocument,
  CreateWikiSubjectDocument,
  FollowedSubjectsDocument,
  FollowSubjectDocument,
  UnfollowSubjectDocument,
  VoteWikiPhotoDocument,
  WikiQueryDocument,
  WikiSubjectDocument,
  WikiSubjectsDocument,
  WikiVerifyQueueDocument,
  type WikiPhotoFieldsFragment,
  type WikiSubjectFieldsFragment,
  type WikiSubjectPageFieldsFragment,
} from '../generated/operations.js';
import { balance, count, id, idParams, timestamp, held } from '../schemas.js';
import {
  contributeSchema,
  createSubjectSchema,
  followingSchema,
  listSubjectsSchema,
  MEDIA_STATUSES,
  queueSchema,
  querySchema,
  reviewListSchema,
  SUBJECT_STATUSES,
  voteSchema,
} from '../../src/modules/wiki/wiki.input.js';
import { WIKI_FILE_KINDS } from '../../src/modules/wiki/index.js';

const photo = z
  .object({
    id,
    subject_slug: z.string(),
    image_object_id: id,
    contributor: z.string().nullable(),
    photo_type: z.string(),
    context: z.string().nullable(),
    url: z.string().describe('the public file, metadata stripped: a signed link that needs no key'),
    width: count,
    height: count,
    mime: z.string(),
    caption: z.string().nullable().describe("vision's caption"),
    labels: z.array(z.string()).describe("vision's labels"),
    status: z.enum(MEDIA_STATUSES),
    confirms: count,
    rejects: count,
    confidence: z.number().nullable().describe('verified photos: 0 to 1'),
    created_at: timestamp,
    decided_at: timestamp.nullable(),
  })
  .meta({ id: 'WikiPhoto', description: 'A photo of a wiki subject' });
/** A wiki photo as the routes answer it (challenge votes answer it too). */
export const wikiPhotoSchema = photo;

const subjectFields = {
  id,
  slug: z.string(),
  name: z.string(),
  category: z.string(),
  description: z.string().nullable(),
  featured_image_url: z.string().nullable().describe('the featured image as stored here (a signed link)'),
  featured_image_source: z.string().nullable().describe('the URL it was fetched from'),
  status: z.enum(SUBJECT_STATUSES),
  creator: z.string().nullable(),
  mine: z.boolean(),
  verified_count: count,
  reviewed_at: timestamp.nullable(),
  created_at: timestamp,
};
const subject = z.object(subjectFields).meta({ id: 'WikiSubject', description: 'A subject of the image wiki' });
const subjectPage = z.object({ subjects: z.array(subject), total: count, limit: count, offset: count });

export const wikiPhotoJson = (p: WikiPhotoFieldsFragment): z.input<typeof photo> => ({
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

const subjectJson = (s: WikiSubjectFieldsFragment): z.input<typeof subject> => ({
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
const followAnswer = z.object({ subject_slug: z.string(), following: z.boolean(), unchanged: z.boolean().describe('nothing changed: already followed, or not followed') });
const followJson = (r: { subject: { slug: string }; following: boolean; unchanged: boolean }) => ({ subject_slug: r.subject.slug, following: r.following, unchanged: r.unchanged });
const slugParams = z.object({ slug: z.string().max(200, 'expected a subject slug').describe('the subject slug') });

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
  defineRoute({
    method: 'POST',
    path: '/api/wiki/subjects',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Propose a subject (name, category, description, featured_image_url): the operator reviews it; approval pays the creator 10 coins',
    description: 'The slug is made from the name (letters of any script, digits, hyphens; -2, -3 ... when taken). featured_image_url is fetched through the SSRF-safe fetcher and stored. Until approved, only the creator sees the subject.',
    operation: CreateWikiSubjectDocument,
    request: { body: createSubjectSchema },
    response: subject,
    variables: ({ body }) => ({ name: body.name, category: body.category, description: body.description, featuredImageUrl: body.featured_image_url }),
    successStatus: 201,
    shape: (data) => subjectJson(unwrap(data.createWikiSubject)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/verify-queue',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
    operation: WikiVerifyQueueDocument,
    request: { query: queueSchema },
    response: z.object({ items: z.array(photo) }),
    variables: ({ query }) => ({ limit: query.limit }),
    shape: (data) => ({ items: unwrap(data.wikiVerifyQueue).map(wikiPhotoJson) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/wiki/metadata/:id/vote',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Vote on a pending photo (vote: confirm or reject): 0.5 coins, one vote per account and photo, never on your own',
    operation: VoteWikiPhotoDocument,
    request: { params: idParams('wiki photo'), body: voteSchema },
    response: z.object({ coins_earned: z.number(), balance, held, decided: z.boolean().describe('this vote verified or rejected the photo'), photo }),
    errors: { 403: 'the caller contributed the photo', 409: 'the caller voted on it already, or it is decided' },
    variables: ({ params, body }) => ({ id: pathId(params, 'wiki photo'), vote: body.vote }),
    shape: (data) => {
      const r = unwrap(data.voteWikiPhoto);
      return { coins_earned: r.coinsEarned, balance: r.balance, held: r.held, decided: r.decided, photo: wikiPhotoJson(r.photo) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/subjects/:slug/query',
    auth: 'key',
    key: SCOPE.search,
    summary: 'Verified photos of a subject at or above a confidence (type, min_confidence default 0.6, limit default 10, max 50): 1 API credit, taken only when it answers',
    operation: WikiQueryDocument,
    request: { params: slugParams, query: querySchema },
    response: z.object({
      subject_slug: z.string(),
      count: count,
      images: z.array(photo),
      credits_charged: z.number(),
      credits_balance: z.number().describe('credits the caller can spend after the charge'),
    }),
    errors: { 402: 'too few API credits (INSUFFICIENT_CREDITS)' },
    variables: ({ params, query }) => ({ slug: params.slug!, type: query.type, minConfidence: query.min_confidence, limit: query.limit }),
    shape: (data) => {
      const r = unwrap(data.wikiQuery);
      return { subject_slug: r.subject.slug, count: r.photos.length, images: r.photos.map(wikiPhotoJson), credits_charged: r.creditsCharged, credits_balance: r.creditsBalance };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/wiki/subjects/:slug/contribute',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A photo of an approved subject (multipart: file, photo_type default general, context): pending until 3 confirmations, which pay 5 coins',
    description: 'The same image object again for this subject answers that photo with `duplicate: true`. HEIC/HEIF is accepted.',
    multipart: { files: ['file'] },
    operation: ContributeWikiPhotoDocument,
    request: { params: slugParams, form: contributeSchema.extend({ file: z.file({ error: 'file is required: send the photo as the multipart field "file"' }) }) },
    response: z.object({ duplicate: z.boolean(), photo }),
    errors: { 409: 'the subject is not approved yet', 413: 'the file is larger than UPLOAD_MAX_BYTES' },
    variables: ({ params, body }) => ({ slug: params.slug!, file: body.file, photoType: body.photo_type, context: body.context }),
    successStatus: 201,
    shape: (data) => {
      const r = unwrap(data.contributeWikiPhoto);
      return { duplicate: r.duplicate, photo: wikiPhotoJson(r.photo) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/wiki/subjects/:slug',
    auth: 'key',
    key: ANY_KEY,
    summary: 'A subject with all its verified photos (most confident first); a subject not approved yet only for its creator',
    operation: WikiSubjectDocument,
    request: { params: slugParams },
    response: z.object({ ...subjectFields, media: z.array(photo) }),
    variables: ({ params }) => ({ slug: params.slug! }),
    shape: (data) => {
      const s = unwrap(data.wikiSubject);
      return { ...subjectJson(s), media: s.verifiedPhotos.map(wikiPhotoJson) };
    },
  }),
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
      response: subject,
      errors: { 409: 'the subject was already reviewed' },
      variables: ({ params }) => ({ slug: params.slug!, decision: decision === 'approve' ? ('approved' as const) : ('rejected' as const) }),
      shape: (data) => subjectJson(unwrap(data.adminReviewWikiSubject)),
    }),
  ),
  defineRoute({
    method: 'POST',
    path: '/api/community/subjects/:slug/follow',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Follow a wiki subject: GraphQL followedSubjectEvents then tells of its new verified photos and merged proposals',
    operation: FollowSubjectDocument,
    request: { params: slugParams },
    response: followAnswer,
    variables: ({ params }) => ({ slug: params.slug! }),
    shape: (data) => followJson(unwrap(data.followSubject)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/community/subjects/:slug/follow',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Stop following a wiki subject',
    operation: UnfollowSubjectDocument,
    request: { params: slugParams },
    response: followAnswer,
    variables: ({ params }) => ({ slug: params.slug! }),
    shape: (data) => followJson(unwrap(data.unfollowSubject)),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/following',
    auth: 'key',
    key: ANY_KEY,
    summary: 'The wiki subjects the caller follows, most recently followed first: limit (50, max 200), offset',
    operation: FollowedSubjectsDocument,
    request: { query: followingSchema },
    response: z.object({ subjects: z.array(z.object({ ...subjectFields, followed_at: timestamp })), total: count, limit: count, offset: count }),
    variables: ({ query }) => ({ limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const page = unwrap(data.followedSubjects);
      return { subjects: page.subjects.map((f) => ({ ...subjectJson(f.subject), followed_at: f.followedAt })), total: page.total, limit: page.limit, offset: page.offset };
    },
  }),
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
