// The challenge operations, each declared once (docs/architecture.md): the active challenge with the
// photos the caller may vote on, the challenge vote (a wiki vote at the challenge multiplier), and
// the operator's challenges (admin token: list, create, end). GraphQL fields and REST rows are made
// from these; the rules live in challenges.service.ts. Shapes the spec leaves "not shown" are ours
// (README "Community: challenges").
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { ADMIN_TOKEN, ANY_KEY, SCOPE } from '../access/index.js';
import { BoardRef, ChallengePageRef, ChallengeRef, StatusEnum, VoteEnum, VoteResultRef } from './challenges.schema.js';
import { boardSchema, challengeListSchema, challengeVoteSchema, createChallengeSchema } from './challenges.input.js';

export const challengeOperations = defineOperations({
  communityChallenge: defineQuery({
    description: 'The active fact-checking challenge (or none), what a vote in it pays, and the pending photos of its scope the caller may vote on',
    key: ANY_KEY,
    input: boardSchema,
    output: BoardRef,
    run: ({ ctx, actor, input }) => ctx.services.challenges.board(actor, input),
    rest: {
      route: 'GET /api/community/challenge',
      summary:
        'The active fact-checking challenge (null when none runs), what a vote in it pays, and the pending wiki photos of its scope the caller may vote on (not their own, not voted yet), oldest first: limit (20, max 100)',
    },
  }),
  voteChallengePhoto: defineMutation({
    description: 'A wiki vote on a pending photo of the active challenge’s scope, its reward multiplied by challenge_multiplier (default 2)',
    key: SCOPE.media,
    ids: { id: 'wiki photo' },
    input: challengeVoteSchema,
    args: { vote: VoteEnum },
    output: VoteResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.challenges.vote(actor, id, input),
    rest: {
      route: 'POST /api/community/challenge/vote/:id',
      summary: 'Vote on a pending wiki photo of the active challenge (vote: confirm or reject): a wiki vote, its reward multiplied by challenge_multiplier (0.5 x 2 = 1.0 coins by default)',
      description: 'The vote counts toward verification like any wiki vote, and is the one vote the caller has on the photo (through either route).',
      errors: { 403: 'the caller contributed the photo', 409: 'no challenge is active, the photo is outside its scope, the caller voted on it already, or it is decided' },
    },
  }),
  adminChallenges: defineQuery({
    description: 'Challenges, latest start first: status (scheduled, active, ended)',
    key: ADMIN_TOKEN,
    input: challengeListSchema,
    args: { status: StatusEnum },
    output: ChallengePageRef,
    run: ({ ctx, input }) => ctx.services.challenges.list(input),
    rest: {
      route: 'GET /api/admin/challenges',
      summary: 'Challenges, latest start first: status (scheduled, active, ended), limit (50, max 200), offset',
    },
  }),
  adminCreateChallenge: defineMutation({
    description: 'A challenge over a wiki category or subjects (slugs), not both; startsAt (default now) and endsAt are ISO 8601 times; windows never overlap',
    key: ADMIN_TOKEN,
    input: createChallengeSchema,
    output: ChallengeRef,
    run: ({ ctx, input }) => ctx.services.challenges.create(input),
    rest: {
      route: 'POST /api/admin/challenges',
      summary: 'Open a challenge: title, description, category or subjects (slugs; not both), starts_at (default now), ends_at (ISO 8601; at most 90 days after the start)',
      description: 'Windows never overlap: one challenge runs at a time (409 naming the other). The category needs an approved subject; each slug must be an approved subject.',
      successStatus: 201,
      errors: { 409: "the window overlaps another challenge's" },
    },
  }),
  adminEndChallenge: defineMutation({
    description: 'Ends a challenge now (a scheduled one is called off)',
    key: ADMIN_TOKEN,
    ids: { id: 'challenge' },
    output: ChallengeRef,
    run: ({ ctx, id }) => ctx.services.challenges.end(id),
    rest: {
      route: 'POST /api/admin/challenges/:id/end',
      summary: 'End a challenge now (a scheduled one is called off and never runs)',
      errors: { 409: 'the challenge has ended already' },
    },
  }),
});
