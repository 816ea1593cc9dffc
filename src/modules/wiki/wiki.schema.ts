// GraphQL surface of the image wiki: its types, the subject list (no key needed), the followed
// subjects' events and the atlas. The other operations are declared in wiki.operations.ts. Thin: the
// rules live in wiki.service.ts.
import { builder } from '../../graphql/builder.js';
import { ANY_KEY, authScopesOf } from '../access/index.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { MEDIA_STATUSES, SUBJECT_SORTS, SUBJECT_STATUSES, VOTES, type MediaStatus, type SubjectStatus } from './wiki.input.js';
import type { QueryResult, SubjectWithCount, VoteResult, WikiMedia, WikiSubject } from './wiki.service.js';
import type { FollowResult, SubjectEvent } from './follows.service.js';
import { ORIENTATIONS, type AtlasEntry } from './atlas.service.js';

export const SubjectStatusEnum = builder.enumType('WikiSubjectStatus', { values: SUBJECT_STATUSES });
const PhotoStatusEnum = builder.enumType('WikiPhotoStatus', { values: MEDIA_STATUSES });
const SortEnum = builder.enumType('WikiSubjectSort', { values: SUBJECT_SORTS });
export const VoteEnum = builder.enumType('WikiVoteChoice', { values: VOTES });
export const DecisionEnum = builder.enumType('WikiSubjectDecision', { values: ['approved', 'rejected'] as const });

export const WikiPhotoRef = builder.prismaObject('WikiMedia', {
  variant: 'WikiPhoto',
  description: 'A photo of a wiki subject: pending until the community verifies or rejects it',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    subjectSlug: t.string({ select: { subject: { select: { slug: true } } }, resolve: (m) => m.subject.slug }),
    imageObjectId: t.exposeInt('objectId'),
    contributor: t.loadable({ type: 'String', nullable: true, load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids), resolve: (m) => m.accountId }),
    photoType: t.exposeString('photoType'),
    context: t.exposeString('context', { nullable: true }),
    url: t.string({ description: 'The public file (metadata stripped): a signed link that needs no key', resolve: (m, _a, ctx) => ctx.baseUrl + ctx.services.wiki.fileUrl('photos', m.id, m.storageKey) }),
    width: t.exposeInt('width'),
    height: t.exposeInt('height'),
    mime: t.exposeString('mime'),
    caption: t.exposeString('caption', { nullable: true }),
    labels: t.exposeStringList('labels'),
    status: t.field({ type: PhotoStatusEnum, resolve: (m) => m.status as MediaStatus }),
    confirms: t.exposeInt('confirms'),
    rejects: t.exposeInt('rejects'),
    confidence: t.exposeFloat('confidence', { nullable: true, description: 'Verified photos: 0 to 1 (README "Wiki")' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    decidedAt: t.expose('decidedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const WikiSubjectRef = builder.prismaObject('WikiSubject', {
  description: 'A subject of the image wiki',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    slug: t.exposeString('slug'),
    name: t.exposeString('name'),
    category: t.exposeString('category'),
    description: t.exposeString('description', { nullable: true }),
    featuredImageUrl: t.string({
      nullable: true,
      description: 'The featured image as stored here (a signed link); null when none was given',
      resolve: (s, _a, ctx) => (s.featuredKey ? ctx.baseUrl + ctx.services.wiki.fileUrl('featured', s.id, s.featuredKey) : null),
    }),
    featuredImageSource: t.exposeString('featuredImageUrl', { nullable: true, description: 'The featured image URL as given' }),
    status: t.field({ type: SubjectStatusEnum, resolve: (s) => s.status as SubjectStatus }),
    creator: t.loadable({ type: 'String', nullable: true, load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids), resolve: (s) => s.accountId }),
    mine: t.boolean({ resolve: (s, _a, ctx) => s.accountId === ctx.actor?.accountId }),
    verifiedCount: t.int({
      description: 'Verified photos',
      resolve: (s, _a, ctx) => ('verifiedCount' in s ? (s as SubjectWithCount).verifiedCount : ctx.services.wiki.verifiedCount(s.id)),
    }),
    verifiedPhotos: t.field({ type: [WikiPhotoRef], description: 'Every verified photo, most confident first', resolve: (s, _a, ctx) => ctx.services.wiki.verifiedMedia(s.id) }),
    reviewedAt: t.expose('reviewedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const SubjectPageRef = builder.objectRef<{ subjects: WikiSubject[]; total: number; limit: number; offset: number }>('WikiSubjectPage').implement({
  fields: (t) => ({
    subjects: t.field({ type: [WikiSubjectRef], resolve: (p) => p.subjects }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

export const ContributionRef = builder.objectRef<{ media: WikiMedia; duplicate: boolean }>('WikiContribution').implement({
  fields: (t) => ({
    photo: t.field({ type: WikiPhotoRef, resolve: (r) => r.media }),
    duplicate: t.exposeBoolean('duplicate', { description: 'This image object was already a photo of the subject: that photo is answered' }),
  }),
});

export const VoteResultRef = builder.objectRef<VoteResult>('WikiVoteResult').implement({
  fields: (t) => ({
    photo: t.field({ type: WikiPhotoRef, resolve: (r) => r.media }),
    coinsEarned: t.exposeFloat('coinsEarned'),
    ...balanceFields(t),
    decided: t.exposeBoolean('decided', { description: 'This vote verified or rejected the photo' }),
  }),
});

export const QueryResultRef = builder.objectRef<QueryResult>('WikiQueryResult').implement({
  fields: (t) => ({
    subject: t.field({ type: WikiSubjectRef, resolve: (r) => r.subject }),
    photos: t.field({ type: [WikiPhotoRef], resolve: (r) => r.media }),
    creditsCharged: t.exposeFloat('creditsCharged'),
    creditsBalance: t.exposeFloat('creditsBalance', { description: 'Credits the caller can spend after the charge' }),
  }),
});

builder.queryFields((t) => ({
  wikiSubjects: t.field({
    type: SubjectPageRef,
    description: 'Approved subjects (no key needed): q (full text over name, category, description), category, verified, sort (recent, popular: most verified photos)',
    errors: {},
    args: { q: t.arg.string(), category: t.arg.string(), verified: t.arg.boolean(), sort: t.arg({ type: SortEnum }), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_r, a, ctx) =>
      ctx.services.wiki.listSubjects({ q: a.q ?? undefined, category: a.category ?? undefined, verified: a.verified ?? undefined, sort: a.sort ?? undefined, limit: a.limit ?? undefined, offset: a.offset ?? undefined }),
  }),
}));


// Follows: any key follows approved subjects (or its own pending ones) and hears of them.
export const FollowRef = builder.objectRef<FollowResult>('SubjectFollowResult').implement({
  fields: (t) => ({
    subject: t.field({ type: WikiSubjectRef, resolve: (r) => r.subject }),
    following: t.exposeBoolean('following'),
    unchanged: t.exposeBoolean('unchanged', { description: 'Already followed (follow) or not followed (unfollow): nothing changed' }),
  }),
});

const FollowedRef = builder.objectRef<WikiSubject & { followedAt: Date }>('FollowedSubject').implement({
  fields: (t) => ({
    subject: t.field({ type: WikiSubjectRef, resolve: (s) => s }),
    followedAt: t.expose('followedAt', { type: 'DateTime' }),
  }),
});

export const FollowedPageRef = builder.objectRef<{ subjects: Array<WikiSubject & { followedAt: Date }>; total: number; limit: number; offset: number }>('FollowedSubjectPage').implement({
  fields: (t) => ({
    subjects: t.field({ type: [FollowedRef], resolve: (p) => p.subjects }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

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
    contributor: t.loadable({ type: 'String', nullable: true, load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids), resolve: (e) => e.accountId }),
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
