// Spec "Community": the active fact-checking challenge and the challenge vote (rewards doubled); ours:
// the operator's challenges (create, list, end). Shapes the spec leaves "not shown" are ours (README
// "Community: challenges").
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import { answerAs } from '../derive.js';
import { answerFrom } from '../../src/platform/wire.js';
import {
  AdminChallengesDocument,
  AdminCreateChallengeDocument,
  AdminEndChallengeDocument,
  CommunityChallengeDocument,
  VoteChallengePhotoDocument,
} from '../generated/operations.js';
import { balance, count, id, idParams, timestamp, held } from '../schemas.js';
import { wikiPhotoSchema } from './wiki.routes.js';
import {
  boardSchema,
  CHALLENGE_SCOPES,
  CHALLENGE_STATUSES,
  challengeListSchema,
  challengeVoteSchema,
  createChallengeSchema,
} from '../../src/modules/challenges/challenges.input.js';

const challenge = answerFrom(
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
const page = z.object({ challenges: z.array(challenge), total: count, limit: count, offset: count });

export const challengesRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/community/challenge',
    auth: 'key',
    key: ANY_KEY,
    summary: 'The active fact-checking challenge (null when none runs), what a vote in it pays, and the pending wiki photos of its scope the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
    operation: CommunityChallengeDocument,
    request: { query: boardSchema },
    response: z.object({
      challenge: challenge.nullable(),
      coins_per_vote: z.number().nullable().describe('coins a challenge vote pays at the rates in force (before daily caps); null without a challenge'),
      items: z.array(wikiPhotoSchema),
    }),
    variables: ({ query }) => ({ limit: query.limit }),
    shape: (data) => {
      const board = unwrap(data.communityChallenge);
      return { challenge: board.challenge ? answerAs(challenge, board.challenge) : null, coins_per_vote: board.coinsPerVote ?? null, items: board.photos.map((photo) => answerAs(wikiPhotoSchema, photo)) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/challenge/vote/:id',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Vote on a pending wiki photo of the active challenge (vote: confirm or reject): a wiki vote, its reward multiplied by challenge_multiplier (0.5 x 2 = 1.0 coins by default)',
    description: 'The vote counts toward verification like any wiki vote, and is the one vote the caller has on the photo (through either route).',
    operation: VoteChallengePhotoDocument,
    request: { params: idParams('wiki photo'), body: challengeVoteSchema },
    response: z.object({
      coins_earned: z.number(),
      balance,
      held,
      decided: z.boolean().describe('this vote verified or rejected the photo'),
      challenge_id: id,
      photo: wikiPhotoSchema,
    }),
    errors: { 403: 'the caller contributed the photo', 409: 'no challenge is active, the photo is outside its scope, the caller voted on it already, or it is decided' },
    variables: ({ params, body }) => ({ id: pathId(params, 'wiki photo'), vote: body.vote }),
    shape: (data) => {
      const r = unwrap(data.voteChallengePhoto);
      return { coins_earned: r.coinsEarned, balance: r.balance, held: r.held, decided: r.decided, challenge_id: r.challenge.databaseId, photo: answerAs(wikiPhotoSchema, r.photo) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/admin/challenges',
    auth: 'admin',
    summary: 'Challenges, latest start first: status (scheduled, active, ended), limit (50, max 200), offset',
    operation: AdminChallengesDocument,
    request: { query: challengeListSchema },
    response: page,
    variables: ({ query }) => ({ status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => answerAs(page, unwrap(data.adminChallenges)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/admin/challenges',
    auth: 'admin',
    summary: 'Open a challenge: title, description, category or subjects (slugs; not both), starts_at (default now), ends_at (ISO 8601; at most 90 days after the start)',
    description: 'Windows never overlap: one challenge runs at a time (409 naming the other). The category needs an approved subject; each slug must be an approved subject.',
    operation: AdminCreateChallengeDocument,
    request: { body: createChallengeSchema },
    response: challenge,
    errors: { 409: "the window overlaps another challenge's" },
    variables: ({ body }) => ({ title: body.title, description: body.description, category: body.category, subjects: body.subjects, startsAt: body.starts_at, endsAt: body.ends_at }),
    successStatus: 201,
    shape: (data) => answerAs(challenge, unwrap(data.adminCreateChallenge)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/admin/challenges/:id/end',
    auth: 'admin',
    summary: 'End a challenge now (a scheduled one is called off and never runs)',
    operation: AdminEndChallengeDocument,
    request: { params: idParams('challenge') },
    response: challenge,
    errors: { 409: 'the challenge has ended already' },
    variables: ({ params }) => ({ id: pathId(params, 'challenge') }),
    shape: (data) => answerAs(challenge, unwrap(data.adminEndChallenge)),
  }),
];
