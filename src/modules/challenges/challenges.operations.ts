// The challenge operations a key calls, each declared once (docs/architecture.md): the active
// challenge with the photos the caller may vote on, and the challenge vote (a wiki vote at the
// challenge multiplier). Their REST rows stay in rest-shim/routes/challenges.routes.ts: both answers
// carry wiki photos, whose answer schema is the wiki routes'. The operator's challenges (admin token)
// are hand-written in challenges.schema.ts. The rules live in challenges.service.ts.
import { defineOperation } from '../../graphql/operation.js';
import { ANY_KEY, SCOPE } from '../access/index.js';
import { BoardRef, VoteEnum, VoteResultRef } from './challenges.schema.js';
import { boardSchema, challengeVoteSchema } from './challenges.input.js';

export const challengeOperations = {
  communityChallenge: defineOperation({
    kind: 'query',
    name: 'communityChallenge',
    description: 'The active fact-checking challenge (or none), what a vote in it pays, and the pending photos of its scope the caller may vote on',
    key: ANY_KEY,
    input: boardSchema,
    output: BoardRef,
    run: ({ ctx, actor, input }) => ctx.services.challenges.board(actor, input),
  }),
  voteChallengePhoto: defineOperation({
    kind: 'mutation',
    name: 'voteChallengePhoto',
    description: 'A wiki vote on a pending photo of the active challenge’s scope, its reward multiplied by challenge_multiplier (default 2)',
    key: SCOPE.media,
    ids: { id: 'wiki photo' },
    input: challengeVoteSchema,
    args: { vote: VoteEnum },
    output: VoteResultRef,
    run: ({ ctx, actor, id, input }) => ctx.services.challenges.vote(actor, id, input),
  }),
};
