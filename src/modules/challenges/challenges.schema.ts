// GraphQL types of fact-checking challenges. The operations are declared in challenges.operations.ts;
// the rules live in challenges.service.ts.
import { builder } from '../../graphql/builder.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { WikiPhotoRef } from '../wiki/wiki.schema.js';
import { CHALLENGE_SCOPES, CHALLENGE_STATUSES, CHALLENGE_VOTES } from './challenges.input.js';
import { challengeScope, challengeStatus, type Challenge, type ChallengeBoard, type ChallengeVoteResult } from './challenges.service.js';

export const StatusEnum = builder.enumType('ChallengeStatus', { values: CHALLENGE_STATUSES });
const ScopeEnum = builder.enumType('ChallengeScope', { values: CHALLENGE_SCOPES });
export const VoteEnum = builder.enumType('ChallengeVoteChoice', { values: CHALLENGE_VOTES });

export const ChallengeRef = builder.prismaObject('Challenge', {
  description: 'A fact-checking challenge: a time window over a wiki category or subjects in which votes pay the challenge multiplier',
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true }),
    scope: t.field({ type: ScopeEnum, description: 'category: every approved subject of `category`; subjects: the subjects listed', resolve: (c) => challengeScope(c) }),
    category: t.exposeString('category', { nullable: true }),
    subjects: t.stringList({ description: 'Slugs of the subjects (subject scope; empty for a category)', resolve: (c, _a, ctx) => ctx.services.challenges.subjectSlugs(c) }),
    startsAt: t.expose('startsAt', { type: 'DateTime' }),
    endsAt: t.expose('endsAt', { type: 'DateTime', description: 'The end (exclusive); an early end moved it to that moment' }),
    endedAt: t.expose('endedAt', { type: 'DateTime', nullable: true, description: 'When the operator ended it early' }),
    status: t.field({ type: StatusEnum, resolve: (c) => challengeStatus(c) }),
    pendingPhotos: t.int({ description: 'Pending wiki photos in its scope now (all of them, not only the caller’s to vote on)', resolve: (c, _a, ctx) => ctx.services.challenges.pendingCount(c) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const BoardRef = builder.objectRef<ChallengeBoard>('ChallengeBoard').implement({
  fields: (t) => ({
    challenge: t.field({ type: ChallengeRef, nullable: true, description: 'The active challenge; null when none runs', resolve: (b) => b.challenge }),
    coinsPerVote: t.exposeFloat('coinsPerVote', { nullable: true, description: 'Coins a challenge vote pays at the rates in force (before daily caps)' }),
    photos: t.field({ type: [WikiPhotoRef], description: 'Pending photos of its scope the caller may vote on, oldest first', resolve: (b) => b.photos }),
  }),
});

export const VoteResultRef = builder.objectRef<ChallengeVoteResult>('ChallengeVoteResult').implement({
  fields: (t) => ({
    challenge: t.field({ type: ChallengeRef, resolve: (r) => r.challenge }),
    photo: t.field({ type: WikiPhotoRef, resolve: (r) => r.media }),
    coinsEarned: t.exposeFloat('coinsEarned'),
    ...balanceFields(t),
    decided: t.exposeBoolean('decided', { description: 'This vote verified or rejected the photo' }),
  }),
});

export const ChallengePageRef = builder.objectRef<{ challenges: Challenge[]; total: number; limit: number; offset: number }>('ChallengePage').implement({
  fields: (t) => ({
    challenges: t.field({ type: [ChallengeRef], resolve: (p) => p.challenges }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});
