// Who may see and close bounties: any key reads every bounty (a bounty is an open call for photos);
// only its poster cancels one. Posting one escrows the account's coins, so it takes the master key
// (as the economy's money moves do); a claim offers an upload of the caller's, with the media scope.
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy, ownAccountRows } from '../access/index.js';

export const bountyPolicy = definePolicy<Prisma.BountyWhereInput>({
  model: 'Bounty',
  noun: 'bounty',
  key: ANY_KEY,
  read: () => ({}),
  change: ownAccountRows,
});
