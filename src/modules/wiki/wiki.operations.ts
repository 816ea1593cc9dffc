// The wiki operations, each declared once (docs/architecture.md): the subject list (no key), a subject,
// proposing one, the paid query, contributing and voting on a photo, the verify queue, following
// subjects, the operator's review of subjects. GraphQL fields and REST rows are made from these; the
// answers and their GraphQL types are in wiki.schema.ts; the rules live in wiki.service.ts and
// follows.service.ts. Shapes the spec leaves "not shown" are ours (README "Wiki").
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { decisionEnum, reviewDecision, reviewRows } from '../../graphql/review-rows.js';
import { ADMIN_TOKEN, ANY_KEY, SCOPE } from '../access/index.js';
import { answerFrom } from '../../platform/wire.js';
import {
  ContributionRef,
  FollowedPageRef,
  FollowRef,
  QueryResultRef,
  SubjectPageRef,
  SubjectSortEnum,
  SubjectStatusEnum,
  VoteEnum,
  VoteResultRef,
  WikiPhotoRef,
  wikiPhotoSchema,
  WikiSubjectRef,
  wikiSubjectFields,
} from './wiki.schema.js';
import { contributeSchema, createSubjectSchema, followingSchema, listSubjectsSchema, querySchema, queueSchema, reviewListSchema, voteSchema } from './wiki.input.js';

/** The subject a path names (`/api/wiki/subjects/:slug`). */
const bySlug = z.object({ slug: z.string().max(200, 'expected a subject slug').describe('the subject slug') });

/** Following and unfollowing differ only in their name, method and summary. */
function followOperation(name: 'followSubject' | 'unfollowSubject', method: 'POST' | 'DELETE', summary: string) {
  return defineMutation({
    name,
    key: ANY_KEY,
    input: bySlug,
    output: FollowRef,
    run: ({ ctx, actor, input }) => (name === 'followSubject' ? ctx.services.follows.follow(actor, input.slug) : ctx.services.follows.unfollow(actor, input.slug)),
    rest: { route: `${method} /api/community/subjects/:slug/follow`, pathFields: ['slug'], summary },
  });
}

export const wikiOperations = defineOperations({
  wikiSubjects: defineQuery({
    description: 'Approved subjects (no key needed): q (full text over name, category, description), category, verified, sort (recent, popular: most verified photos)',
    key: null,
    input: listSubjectsSchema,
    args: { sort: SubjectSortEnum },
    output: SubjectPageRef,
    run: ({ ctx, input }) => ctx.services.wiki.listSubjects(input),
    rest: {
      route: 'GET /api/wiki/subjects',
      fragment: 'WikiSubjectPage',
      summary:
        'Approved subjects with their verified photo counts: q (full text over name, category, description), category, verified (0 or 1), sort (recent, popular: most verified photos), limit (20, max 100), offset',
    },
  }),
  createWikiSubject: defineMutation({
    description: 'Proposes a subject; the operator reviews it, and approval pays the creator the subject rate',
    key: SCOPE.media,
    input: createSubjectSchema,
    output: WikiSubjectRef,
    run: ({ ctx, actor, input }) => ctx.services.wiki.createSubject(actor, input),
    rest: {
      route: 'POST /api/wiki/subjects',
      summary: 'Propose a subject (name, category, description, featured_image_url): the operator reviews it; approval pays the creator 10 coins',
      description:
        'The slug is made from the name (letters of any script, digits, hyphens; -2, -3 ... when taken). featured_image_url is fetched through the SSRF-safe fetcher and stored. Until approved, only the creator sees the subject.',
      successStatus: 201,
    },
  }),
  wikiVerifyQueue: defineQuery({
    description: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first',
    key: ANY_KEY,
    input: queueSchema,
    output: [WikiPhotoRef],
    run: ({ ctx, actor, input }) => ctx.services.wiki.verifyQueue(actor, input),
    rest: {
      route: 'GET /api/wiki/verify-queue',
      summary: 'Pending photos the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
      response: answerFrom(z.object({ items: z.array(wikiPhotoSchema) }), { items: '' }),
    },
  }),
  voteWikiPhoto: defineMutation({
    key: SCOPE.media,
    ids: { id: 'wiki photo' },
    input: voteSchema,
    args: { vote: VoteEnum },
    output: VoteResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.wiki.vote(actor, id, input),
    rest: {
      route: 'POST /api/wiki/metadata/:id/vote',
      summary: 'Vote on a pending photo (vote: confirm or reject): 0.5 coins, one vote per account and photo, never on your own',
      errors: { 403: 'the caller contributed the photo', 409: 'the caller voted on it already, or it is decided' },
    },
  }),
  wikiQuery: defineQuery({
    description: 'Verified photos of a subject at or above a confidence; costs API credits (WIKI_QUERY_CREDITS, default 1), taken only when it answers',
    key: SCOPE.search,
    input: bySlug.extend(querySchema.shape),
    output: QueryResultRef,
    run: ({ ctx, actor, input: { slug, ...input } }) => ctx.services.wiki.query(actor, slug, input),
    rest: {
      route: 'GET /api/wiki/subjects/:slug/query',
      pathFields: ['slug'],
      summary: 'Verified photos of a subject at or above a confidence (type, min_confidence default 0.6, limit default 10, max 50): 1 API credit, taken only when it answers',
      shape: ({ subject_slug, ...answer }) => ({ subject_slug, count: (answer.images as unknown[]).length, ...answer }),
      errors: { 402: 'too few API credits (INSUFFICIENT_CREDITS)' },
    },
  }),
  contributeWikiPhoto: defineMutation({
    key: SCOPE.media,
    input: bySlug.extend(contributeSchema.shape).extend({ file: z.file({ error: 'file is required: send the photo as the multipart field "file"' }) }),
    output: ContributionRef,
    run: async ({ ctx, actor, input: { slug, file, ...input } }) => ctx.services.wiki.contribute(actor, slug, { body: Buffer.from(await file.arrayBuffer()) }, input),
    rest: {
      route: 'POST /api/wiki/subjects/:slug/contribute',
      pathFields: ['slug'],
      form: { files: ['file'] },
      summary: 'A photo of an approved subject (multipart: file, photo_type default general, context): pending until 3 confirmations, which pay 5 coins',
      description: 'The same image object again for this subject answers that photo with `duplicate: true`. HEIC/HEIF is accepted.',
      errors: { 409: 'the subject is not approved yet', 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
    },
  }),
  wikiSubject: defineQuery({
    key: ANY_KEY,
    input: bySlug,
    output: WikiSubjectRef,
    run: ({ ctx, actor, input }) => ctx.services.wiki.subject(actor, input.slug),
    rest: {
      route: 'GET /api/wiki/subjects/:slug',
      pathFields: ['slug'],
      summary: 'A subject with all its verified photos (most confident first); a subject not approved yet only for its creator',
      response: answerFrom(z.object({ ...wikiSubjectFields, media: z.array(wikiPhotoSchema) }), { id: 'databaseId', media: 'verifiedPhotos' }),
    },
  }),
  adminWikiSubjects: defineQuery({
    key: ADMIN_TOKEN,
    input: reviewListSchema,
    args: { status: SubjectStatusEnum },
    output: SubjectPageRef,
    run: ({ ctx, input }) => ctx.services.wiki.reviewList(input),
    rest: {
      route: 'GET /api/admin/wiki/subjects',
      summary: 'Subjects to review, oldest first: status (pending by default, approved, rejected), limit, offset',
    },
  }),
  adminReviewWikiSubject: defineMutation({
    key: ADMIN_TOKEN,
    input: bySlug.extend({ decision: reviewDecision }),
    args: { decision: decisionEnum('WikiSubjectDecision') },
    output: WikiSubjectRef,
    run: ({ ctx, input }) => ctx.services.wiki.review(input.slug, input.decision),
    rest: reviewRows(
      '/api/admin/wiki/subjects/:slug',
      { approve: 'Approve a pending subject: everyone sees it, and its creator is paid 10 coins', reject: 'Reject a pending subject' },
      { pathFields: ['slug'], errors: { 409: 'the subject was already reviewed' } },
    ),
  }),
  followSubject: followOperation('followSubject', 'POST', 'Follow a wiki subject: GraphQL followedSubjectEvents then tells of its new verified photos and merged proposals'),
  unfollowSubject: followOperation('unfollowSubject', 'DELETE', 'Stop following a wiki subject'),
  followedSubjects: defineQuery({
    description: 'Subjects the caller follows, most recently followed first',
    key: ANY_KEY,
    input: followingSchema,
    output: FollowedPageRef,
    run: ({ ctx, actor, input }) => ctx.services.follows.following(actor, input),
    rest: {
      route: 'GET /api/community/following',
      summary: 'The wiki subjects the caller follows, most recently followed first: limit (50, max 200), offset',
    },
  }),
});
