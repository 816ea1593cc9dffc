// The wiki operations that fit one declaration (docs/architecture.md): a subject, proposing one, the
// paid query, contributing and voting on a photo, the verify queue, following subjects, the operator's
// review of subjects. GraphQL fields and REST rows are
// made from these; the rules live in wiki.service.ts and follows.service.ts. The other wiki rows stay
// hand-written in rest-shim/routes/wiki.routes.ts (why: there). Shapes the spec leaves "not shown" are
// ours (README "Wiki").
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { ADMIN_TOKEN, ANY_KEY, SCOPE } from '../access/index.js';
import { camelCase } from '../../graphql/operation-args.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import {
  ContributionRef,
  DecisionEnum,
  FollowedPageRef,
  FollowRef,
  QueryResultRef,
  SubjectPageRef,
  SubjectStatusEnum,
  VoteEnum,
  VoteResultRef,
  WikiPhotoRef,
  WikiSubjectRef,
} from './wiki.schema.js';
import { contributeSchema, createSubjectSchema, followingSchema, MEDIA_STATUSES, querySchema, queueSchema, reviewListSchema, SUBJECT_STATUSES, voteSchema } from './wiki.input.js';

/** A wiki photo as answered (challenge votes answer it too). */
export const wikiPhotoSchema = answerFrom(
  z
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
    .meta({ id: 'WikiPhoto', description: 'A photo of a wiki subject' }),
  { id: 'databaseId' },
);

export const wikiSubjectFields = {
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
export const wikiSubjectSchema = answerFrom(z.object(wikiSubjectFields).meta({ id: 'WikiSubject', description: 'A subject of the image wiki' }), { id: 'databaseId' });
export const subjectPage = z.object({ subjects: z.array(wikiSubjectSchema), total: count, limit: count, offset: count });

/** A followed subject's fields are the `subject` field's in GraphQL, beside followedAt. */
const followedSubject = answerFrom(
  z.object({ ...wikiSubjectFields, followed_at: timestamp }),
  Object.fromEntries(Object.keys(wikiSubjectFields).map((key) => [key, `subject.${key === 'id' ? 'databaseId' : camelCase(key)}`])),
);

/** The subject a path names (`/api/wiki/subjects/:slug`). */
const bySlug = z.object({ slug: z.string().max(200, 'expected a subject slug').describe('the subject slug') });

/** The operator's review: a path per decision (`/approve`, `/reject`), the decision its GraphQL argument. */
const reviewDecisions = [
  ['approve', 'approved'],
  ['reject', 'rejected'],
] as const;

const followAnswer = answerFrom(
  z.object({ subject_slug: z.string(), following: z.boolean(), unchanged: z.boolean().describe('nothing changed: already followed, or not followed') }),
  { subject_slug: 'subject.slug' },
);

/** Following and unfollowing differ only in their name, method and summary. */
function followOperation(name: 'followSubject' | 'unfollowSubject', method: 'POST' | 'DELETE', summary: string) {
  return defineOperation({
    kind: 'mutation',
    name,
    key: ANY_KEY,
    input: bySlug,
    output: FollowRef,
    run: ({ ctx, actor, input }) => (name === 'followSubject' ? ctx.services.follows.follow(actor, input.slug) : ctx.services.follows.unfollow(actor, input.slug)),
    rest: { method, path: '/api/community/subjects/:slug/follow', pathFields: ['slug'], summary, response: followAnswer },
  });
}

export const wikiOperations = defineOperations({
  wikiSubject: defineOperation({
    kind: 'query',
    key: ANY_KEY,
    input: bySlug,
    output: WikiSubjectRef,
    run: ({ ctx, actor, input }) => ctx.services.wiki.subject(actor, input.slug),
    rest: {
      method: 'GET',
      path: '/api/wiki/subjects/:slug',
      pathFields: ['slug'],
      summary: 'A subject with all its verified photos (most confident first); a subject not approved yet only for its creator',
      response: answerFrom(z.object({ ...wikiSubjectFields, media: z.array(wikiPhotoSchema) }), { id: 'databaseId', media: 'verifiedPhotos' }),
    },
  }),
  wikiQuery: defineOperation({
    kind: 'query',
    description: 'Verified photos of a subject at or above a confidence; costs API credits (WIKI_QUERY_CREDITS, default 1), taken only when it answers',
    key: SCOPE.search,
    input: bySlug.extend(querySchema.shape),
    output: QueryResultRef,
    run: ({ ctx, actor, input: { slug, ...input } }) => ctx.services.wiki.query(actor, slug, input),
    rest: {
      method: 'GET',
      path: '/api/wiki/subjects/:slug/query',
      pathFields: ['slug'],
      summary: 'Verified photos of a subject at or above a confidence (type, min_confidence default 0.6, limit default 10, max 50): 1 API credit, taken only when it answers',
      response: answerFrom(
        z.object({
          subject_slug: z.string(),
          count: count,
          images: z.array(wikiPhotoSchema),
          credits_charged: z.number(),
          credits_balance: z.number().describe('credits the caller can spend after the charge'),
        }),
        { subject_slug: 'subject.slug', count: null, images: 'photos' },
      ),
      shape: ({ subject_slug, ...answer }) => ({ subject_slug, count: (answer.images as unknown[]).length, ...answer }),
      errors: { 402: 'too few API credits (INSUFFICIENT_CREDITS)' },
    },
  }),
  createWikiSubject: defineOperation({
    kind: 'mutation',
    description: 'Proposes a subject; the operator reviews it, and approval pays the creator the subject rate',
    key: SCOPE.media,
    input: createSubjectSchema,
    output: WikiSubjectRef,
    run: ({ ctx, actor, input }) => ctx.services.wiki.createSubject(actor, input),
    rest: {
      method: 'POST',
      path: '/api/wiki/subjects',
      summary: 'Propose a subject (name, category, description, featured_image_url): the operator reviews it; approval pays the creator 10 coins',
      description:
        'The slug is made from the name (letters of any script, digits, hyphens; -2, -3 ... when taken). featured_image_url is fetched through the SSRF-safe fetcher and stored. Until approved, only the creator sees the subject.',
      response: wikiSubjectSchema,
      successStatus: 201,
    },
  }),
  contributeWikiPhoto: defineOperation({
    kind: 'mutation',
    key: SCOPE.media,
    input: bySlug.extend(contributeSchema.shape).extend({ file: z.file({ error: 'file is required: send the photo as the multipart field "file"' }) }),
    output: ContributionRef,
    run: async ({ ctx, actor, input: { slug, file, ...input } }) => ctx.services.wiki.contribute(actor, slug, { body: Buffer.from(await file.arrayBuffer()) }, input),
    rest: {
      method: 'POST',
      path: '/api/wiki/subjects/:slug/contribute',
      pathFields: ['slug'],
      form: { files: ['file'] },
      summary: 'A photo of an approved subject (multipart: file, photo_type default general, context): pending until 3 confirmations, which pay 5 coins',
      description: 'The same image object again for this subject answers that photo with `duplicate: true`. HEIC/HEIF is accepted.',
      response: z.object({ duplicate: z.boolean(), photo: wikiPhotoSchema }),
      errors: { 409: 'the subject is not approved yet', 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
    },
  }),
  wikiVerifyQueue: defineOperation({
    kind: 'query',
    description: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first',
    key: ANY_KEY,
    input: queueSchema,
    output: [WikiPhotoRef],
    run: ({ ctx, actor, input }) => ctx.services.wiki.verifyQueue(actor, input),
    rest: {
      method: 'GET',
      path: '/api/wiki/verify-queue',
      summary: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
      response: answerFrom(z.object({ items: z.array(wikiPhotoSchema) }), { items: '' }),
    },
  }),
  voteWikiPhoto: defineOperation({
    kind: 'mutation',
    key: SCOPE.media,
    ids: { id: 'wiki photo' },
    input: voteSchema,
    args: { vote: VoteEnum },
    output: VoteResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.wiki.vote(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/wiki/metadata/:id/vote',
      summary: 'Vote on a pending photo (vote: confirm or reject): 0.5 coins, one vote per account and photo, never on your own',
      response: z.object({ coins_earned: z.number(), balance, held, decided: z.boolean().describe('this vote verified or rejected the photo'), photo: wikiPhotoSchema }),
      errors: { 403: 'the caller contributed the photo', 409: 'the caller voted on it already, or it is decided' },
    },
  }),
  followedSubjects: defineOperation({
    kind: 'query',
    description: 'Subjects the caller follows, most recently followed first',
    key: ANY_KEY,
    input: followingSchema,
    output: FollowedPageRef,
    run: ({ ctx, actor, input }) => ctx.services.follows.following(actor, input),
    rest: {
      method: 'GET',
      path: '/api/community/following',
      summary: 'The wiki subjects the caller follows, most recently followed first: limit (50, max 200), offset',
      response: z.object({ subjects: z.array(followedSubject), total: count, limit: count, offset: count }),
    },
  }),
  adminWikiSubjects: defineOperation({
    kind: 'query',
    key: ADMIN_TOKEN,
    input: reviewListSchema,
    args: { status: SubjectStatusEnum },
    output: SubjectPageRef,
    run: ({ ctx, input }) => ctx.services.wiki.reviewList(input),
    rest: {
      method: 'GET',
      path: '/api/admin/wiki/subjects',
      summary: 'Subjects to review, oldest first: status (pending by default, approved, rejected), limit, offset',
      response: subjectPage,
    },
  }),
  adminReviewWikiSubject: defineOperation({
    kind: 'mutation',
    key: ADMIN_TOKEN,
    input: bySlug.extend({ decision: z.enum(reviewDecisions.map(([, decision]) => decision)) }),
    args: { decision: DecisionEnum },
    output: WikiSubjectRef,
    run: ({ ctx, input }) => ctx.services.wiki.review(input.slug, input.decision),
    rest: reviewDecisions.map(([verb, decision]) => ({
      method: 'POST' as const,
      path: `/api/admin/wiki/subjects/:slug/${verb}`,
      pathFields: ['slug'],
      fixed: { decision },
      summary: verb === 'approve' ? 'Approve a pending subject: everyone sees it, and its creator is paid 10 coins' : 'Reject a pending subject',
      response: wikiSubjectSchema,
      errors: { 409: 'the subject was already reviewed' },
    })),
  }),
  followSubject: followOperation('followSubject', 'POST', 'Follow a wiki subject: GraphQL followedSubjectEvents then tells of its new verified photos and merged proposals'),
  unfollowSubject: followOperation('unfollowSubject', 'DELETE', 'Stop following a wiki subject'),
});
