// Fact-checking challenges as callers see them, stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts). The
// operations are declared in challenges.operations.ts; the rules live in challenges.service.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import {answeredBy, answerEnum, answerFields, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { wikiPhotoSchema } from '../wiki/wiki.schema.js';
import { WikiPhotoRef } from '../wiki/wiki.schema.js';
import { CHALLENGE_SCOPES, CHALLENGE_STATUSES, CHALLENGE_VOTES } from './challenges.input.js';
import { challengeScope, challengeStatus, type Challenge, type ChallengeBoard, type ChallengeVoteResult } from './challenges.service.js';

export const StatusEnum = answerEnum('ChallengeStatus', { values: CHALLENGE_STATUSES });
answerEnum('ChallengeScope', { values: CHALLENGE_SCOPES });
export const VoteEnum = builder.enumType('ChallengeVoteChoice', { values: CHALLENGE_VOTES });

export const challenge = answerFrom(
  z
    .object({
      id,
      title: z.string(),
      description: z.string().nullable(),
      scope: z.enum(CHALLENGE_SCOPES).describe('category: every approved subject of `category`; subjects: the subjects listed'),
      category: z.string().nullable(),
      subjects: z.array(z.string()).describe('slugs of the subjects (subject scope; empty for a category)'),
      starts_at: timestamp,
      ends_at: timestamp.describe('the end (exclusive); an early end moved it to that moment'),
      ended_at: timestamp.nullable().describe('when the operator ended it early'),
      status: z.enum(CHALLENGE_STATUSES),
      pending_photos: count.describe('pending wiki photos in its scope now (all of them)'),
      created_at: timestamp,
    })
    .meta({ id: 'Challenge', description: 'A fact-checking challenge' }),
  { id: 'databaseId' },
);

export const ChallengeRef = answeredBy(builder.prismaObject('Challenge', {
  description: 'A fact-checking challenge: a time window over a wiki category or subjects in which votes pay the challenge multiplier',
  fields: (t) =>
    answerFields(t, challenge, {
      scope: { resolve: (c: Challenge) => challengeScope(c) },
      subjects: { resolve: (c, _a, ctx) => ctx.services.challenges.subjectSlugs(c) },
      status: { resolve: (c) => challengeStatus(c) },
      pending_photos: {
        description: 'Pending wiki photos in its scope now (all of them, not only the caller’s to vote on)',
        resolve: (c, _a, ctx) => ctx.services.challenges.pendingCount(c),
      },
    }),
}), challenge);

export const board = answerFrom(
  z.object({
    challenge: challenge.nullable(),
    coins_per_vote: z.number().nullable().describe('coins a challenge vote pays at the rates in force (before daily caps); null without a challenge'),
    items: z.array(wikiPhotoSchema),
  }),
  { items: 'photos' },
);
export const BoardRef = answerObject<ChallengeBoard>('ChallengeBoard', board, {
  fields: () => ({
    challenge: { type: ChallengeRef, description: 'The active challenge; null when none runs' },
    items: { type: [WikiPhotoRef], description: 'Pending photos of its scope the caller may vote on, oldest first' },
  }),
});

export const voteResult = answerFrom(
  z.object({
    coins_earned: z.number(),
    balance,
    held,
    decided: z.boolean().describe('this vote verified or rejected the photo'),
    challenge_id: id,
    photo: wikiPhotoSchema,
  }),
  { challenge_id: 'challenge.databaseId' },
);
export const VoteResultRef = answerObject<ChallengeVoteResult>('ChallengeVoteResult', voteResult, {
  fields: (t) => ({ ...balanceFields(t), photo: { type: WikiPhotoRef, resolve: (r: ChallengeVoteResult) => r.media } }),
  more: (t) => ({ challenge: t.field({ type: ChallengeRef, resolve: (r) => r.challenge }) }),
});

export const challengePage = z.object({ challenges: z.array(challenge), total: count, limit: count, offset: count });
export const ChallengePageRef = answerObject<{ challenges: Challenge[]; total: number; limit: number; offset: number }>('ChallengePage', challengePage, {
  fields: () => ({ challenges: { type: [ChallengeRef] } }),
});
