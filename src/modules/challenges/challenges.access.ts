// Who may see challenges: any key reads the running one (the board). Opening, listing and ending
// them is the operator's (admin token); a vote through one is a wiki vote, with the media scope.
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy } from '../access/index.js';

export const challengePolicy = definePolicy<Prisma.ChallengeWhereInput>({
  model: 'Challenge',
  noun: 'challenge',
  key: ANY_KEY,
  read: () => ({}),
});
