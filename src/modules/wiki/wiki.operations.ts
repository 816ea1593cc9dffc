// The wiki operations that fit one declaration (docs/architecture.md): proposing a subject, voting on
// a photo, and the subjects the caller follows. GraphQL fields and REST rows are made from these;
// the rules live in wiki.service.ts and follows.service.ts. The other wiki rows stay hand-written in
// rest-shim/routes/wiki.routes.ts (why: there). Shapes the spec leaves "not shown" are ours (README "Wiki").
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { camelCase } from '../../graphql/operation-args.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { FollowedPageRef, VoteEnum, VoteResultRef, WikiSubjectRef } from './wiki.schema.js';
import { createSubjectSchema, followingSchema, MEDIA_STATUSES, SUBJECT_STATUSES, voteSchema } from './wiki.input.js';

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

/** A followed subject's fields are the `subject` field's in GraphQL, beside followedAt. */
const followedSubject = answerFrom(
  z.object({ ...wikiSubjectFields, followed_at: timestamp }),
  Object.fromEntries(Object.keys(wikiSubjectFields).map((key) => [key, `subject.${key === 'id' ? 'databaseId' : camelCase(key)}`])),
);

export const wikiOperations = {
  createWikiSubject: defineOperation({
    kind: 'mutation',
    name: 'createWikiSubject',
    description: 'Proposes a subject; the operator reviews it, and approval pays the creator the subject rate',
    key: { scope: 'media' },
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
  voteWikiPhoto: defineOperation({
    kind: 'mutation',
    name: 'voteWikiPhoto',
    key: { scope: 'media' },
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
    name: 'followedSubjects',
    description: 'Subjects the caller follows, most recently followed first',
    key: { anyKey: true },
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
};
