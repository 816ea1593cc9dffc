// Who may see community items: any key reads the listed (public) items that no removal claim took
// down; a contributor always reads their own, unlisted and removed ones included. Changes are rules
// of the community service (anyone adds tags, the contributor replaces them).
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy } from '../access/index.js';

export const communityItemPolicy = definePolicy<Prisma.CommunityItemWhereInput>({
  model: 'CommunityItem',
  noun: 'community item',
  key: ANY_KEY,
  read: (actor) => ({ OR: [{ public: true, removedAt: null }, { accountId: actor.accountId }] }),
  change: (actor) => ({ accountId: actor.accountId }),
});

export const ownershipClaimPolicy = definePolicy<Prisma.OwnershipClaimWhereInput>({
  model: 'OwnershipClaim',
  noun: 'ownership claim',
  key: ANY_KEY,
  // The claimant, and the contributor of the claimed item.
  read: (actor) => ({ OR: [{ accountId: actor.accountId }, { item: { accountId: actor.accountId } }] }),
  change: (actor) => ({ accountId: actor.accountId }),
});
