// The image wiki as callers see it, stated once: each answer object (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (src/graphql/answer-object.ts); also the followed subjects'
// events and the atlas. The other operations are declared in
// wiki.operations.ts. Thin: the rules live in wiki.service.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerDescription, answeredBy, answerEnum, answerFields, answerObject, handleOf } from '../../graphql/answer-object.js';
import { answerPage } from '../../graphql/common-answers.js';
import { camelCase } from '../../graphql/operation-args.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { MEDIA_STATUSES, SUBJECT_SORTS, SUBJECT_STATUSES, VOTES, type SubjectStatus } from './wiki.input.js';
import type { QueryResult, SubjectWithCount, VoteResult, WikiMedia, WikiSubject } from './wiki.service.js';
import type { FollowResult, SubjectEvent } from './follows.service.js';
import { ORIENTATIONS, type AtlasEntry } from './atlas.service.js';

// Ownership claims' statuses have the same values, so subjects' status field names this enum itself.
export const SubjectStatusEnum = builder.enumType('WikiSubjectStatus', { values: SUBJECT_STATUSES });
answerEnum('WikiPhotoStatus', { values: MEDIA_STATUSES });
export const SubjectSortEnum = builder.enumType('WikiSubjectSort', { values: SUBJECT_SORTS });
export const VoteEnum = builder.enumType('WikiVoteChoice', { values: VOTES });

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

export const WikiPhotoRef = builder.prismaObject('WikiMedia', {
  variant: 'WikiPhoto',
  description: 'A photo of a wiki subject: pending until the community verifies or rejects it',
  fields: (t) =>
    answerFields(t, wikiPhotoSchema, {
      subject_slug: t.string({ select: { subject: { select: { slug: true } } }, resolve: (m) => m.subject.slug }),
      image_object_id: { resolve: (m: WikiMedia) => m.objectId },
      contributor: handleOf((m: WikiMedia) => m.accountId),
      url: { resolve: (m: WikiMedia, _a, ctx) => ctx.baseUrl + ctx.services.wiki.fileUrl('photos', m.id, m.storageKey) },
    }),
});

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

export const WikiSubjectRef = answeredBy(builder.prismaObject('WikiSubject', {
  description: answerDescription(wikiSubjectSchema),
  fields: (t) => ({
    ...answerFields(t, wikiSubjectSchema, {
      featured_image_url: { resolve: (s: WikiSubject, _a, ctx) => (s.featuredKey ? ctx.baseUrl + ctx.services.wiki.fileUrl('featured', s.id, s.featuredKey) : null) },
      featured_image_source: { resolve: (s: WikiSubject) => s.featuredImageUrl },
      status: t.field({ type: SubjectStatusEnum, resolve: (s) => s.status as SubjectStatus }),
      creator: handleOf((s: WikiSubject) => s.accountId),
      mine: { resolve: (s: WikiSubject, _a, ctx) => s.accountId === ctx.actor?.accountId },
      verified_count: {
        description: 'Verified photos',
        resolve: (s: WikiSubject, _a, ctx) => ('verifiedCount' in s ? (s as SubjectWithCount).verifiedCount : ctx.services.wiki.verifiedCount(s.id)),
      },
    }),
    verifiedPhotos: t.field({ type: [WikiPhotoRef], description: 'Every verified photo, most confident first', resolve: (s, _a, ctx) => ctx.services.wiki.verifiedMedia(s.id) }),
  }),
}), wikiSubjectSchema);

export const SubjectPageRef = answerPage('WikiSubjectPage', 'subjects', wikiSubjectSchema);

export const wikiContribution = z.object({ duplicate: z.boolean(), photo: wikiPhotoSchema });
export const ContributionRef = answerObject<{ media: WikiMedia; duplicate: boolean }>('WikiContribution', wikiContribution, {
  fields: () => ({
    duplicate: { description: 'This image object was already a photo of the subject: that photo is answered' },
    photo: { resolve: (r) => r.media },
  }),
});

export const voteResult = z.object({ coins_earned: z.number(), balance, held, decided: z.boolean().describe('this vote verified or rejected the photo'), photo: wikiPhotoSchema });
export const VoteResultRef = answerObject<VoteResult>('WikiVoteResult', voteResult, {
  fields: (t) => ({ ...balanceFields(t), photo: { resolve: (r) => r.media } }),
});

export const queryResult = answerFrom(
  z.object({
    subject_slug: z.string(),
    count: count,
    images: z.array(wikiPhotoSchema),
    credits_charged: z.number(),
    credits_balance: z.number().describe('credits the caller can spend after the charge'),
  }),
  { subject_slug: 'subject.slug', count: null, images: 'photos' },
);
export const QueryResultRef = answerObject<QueryResult>('WikiQueryResult', queryResult, {
  fields: () => ({ images: { resolve: (r) => r.media } }),
  more: (t) => ({ subject: t.field({ type: WikiSubjectRef, resolve: (r) => r.subject }) }),
});

// Follows: any key follows approved subjects (or its own pending ones) and hears of them.
export const followAnswer = answerFrom(
  z.object({ subject_slug: z.string(), following: z.boolean(), unchanged: z.boolean().describe('nothing changed: already followed, or not followed') }),
  { subject_slug: 'subject.slug' },
);
export const FollowRef = answerObject<FollowResult>('SubjectFollowResult', followAnswer, {
  more: (t) => ({ subject: t.field({ type: WikiSubjectRef, resolve: (r) => r.subject }) }),
});

/** A followed subject's fields are the `subject` field's in GraphQL, beside followedAt. */
const followedSubject = answerFrom(
  z.object({ ...wikiSubjectFields, followed_at: timestamp }),
  Object.fromEntries(Object.keys(wikiSubjectFields).map((key) => [key, `subject.${key === 'id' ? 'databaseId' : camelCase(key)}`])),
);
type Followed = WikiSubject & { followedAt: Date };
answerObject<Followed>('FollowedSubject', followedSubject, { more: (t) => ({ subject: t.field({ type: WikiSubjectRef, resolve: (s) => s }) }) });

export const FollowedPageRef = answerPage('FollowedSubjectPage', 'subjects', followedSubject);

const SubjectEventTypeEnum = builder.enumType('SubjectEventType', { values: ['photo_verified', 'proposal_merged'] as const });

const SubjectEventRef = builder.objectRef<SubjectEvent>('SubjectEvent').implement({
  fields: (t) => ({
    type: t.field({ type: SubjectEventTypeEnum, resolve: (e) => e.type }),
    subject: t.prismaField({ type: WikiSubjectRef, nullable: true, resolve: (query, e, _a, ctx) => ctx.services.db.prisma.wikiSubject.findUnique({ ...query, where: { id: e.subjectId } }) }),
    photo: t.prismaField({
      type: WikiPhotoRef,
      nullable: true,
      description: 'photo_verified: the photo',
      resolve: (query, e, _a, ctx) => (e.photoId === null ? null : ctx.services.db.prisma.wikiMedia.findUnique({ ...query, where: { id: e.photoId } })),
    }),
    communityItemId: t.int({ nullable: true, description: 'proposal_merged: the community item the proposal changed', resolve: (e) => e.itemId }),
    intelPostId: t.int({ nullable: true, description: 'proposal_merged: the merged proposal', resolve: (e) => e.postId }),
  }),
});

builder.subscriptionField('followedSubjectEvents', (t) =>
  t.field({
    type: SubjectEventRef,
    description: 'What happens on the subjects the caller follows: a newly verified photo, a merged proposal on a community item tagged with the subject',
    authScopes: authScopesOf(ANY_KEY),
    subscribe: (_root, _args, ctx) => ctx.services.events.subscribe('subjectEvents', ctx.actor!.accountId),
    resolve: (event) => event,
  }),
);

// The global verified atlas (README "Wiki": the atlas), as the unified search will read it.
const AtlasSourceEnum = builder.enumType('AtlasSource', { values: ['wiki', 'community'] as const });
export const OrientationEnum = builder.enumType('Orientation', { values: ORIENTATIONS });

const AtlasImageRef = builder.objectRef<AtlasEntry>('AtlasImage').implement({
  description: 'A verified image of the atlas: a verified wiki photo or an AI-verified community item',
  fields: (t) => ({
    source: t.field({ type: AtlasSourceEnum, resolve: (e) => e.source }),
    databaseId: t.exposeInt('id', { description: 'The wiki photo or community item id' }),
    imageObjectId: t.exposeInt('imageObjectId'),
    url: t.string({
      description: 'The public file: a signed link that needs no key',
      resolve: (e, _a, ctx) => ctx.baseUrl + (e.source === 'wiki' ? ctx.services.wiki.fileUrl('photos', e.id, e.storageKey) : ctx.services.community.fileUrl(e, 'public')),
    }),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    confidence: t.exposeFloat('confidence', { nullable: true, description: 'Wiki photos: their confidence' }),
    subjectSlug: t.exposeString('subjectSlug', { nullable: true }),
    title: t.exposeString('title', { nullable: true }),
    tags: t.exposeStringList('tags', { description: "Wiki photos: vision's labels; community items: their tags" }),
    contributor: t.loadable({ type: 'String', nullable: true, ...handleOf((e: AtlasEntry) => e.accountId) }),
  }),
});

builder.queryField('atlas', (t) =>
  t.field({
    type: [AtlasImageRef],
    errors: {},
    description: 'The global verified atlas (no key needed): verified wiki photos, most confident first, then AI-verified community items, newest first',
    args: { query: t.arg.string(), orientation: t.arg({ type: OrientationEnum }), limit: t.arg.int() },
    resolve: (_r, a, ctx) => ctx.services.atlas.search({ query: a.query ?? undefined, orientation: a.orientation ?? undefined, limit: a.limit ?? undefined }),
  }),
);
