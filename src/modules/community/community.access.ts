// Who may see community items: any key reads the listed (public) items that no removal claim took
// down; a contributor always reads their own, unlisted and removed ones included. Changes are rules
// of the community service (anyone adds tags, the contributor replaces them).
import type { Prisma } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import { ANY_KEY, definePolicy, ownAccountRows } from '../access/index.js';

export const communityItemPolicy = definePolicy<Prisma.CommunityItemWhereInput>({
  model: 'CommunityItem',
  noun: 'community item',
  key: ANY_KEY,
  read: (actor) => ({ OR: [{ public: true, removedAt: null }, { accountId: actor.accountId }] }),
  change: ownAccountRows,
});

export const ownershipClaimPolicy = definePolicy<Prisma.OwnershipClaimWhereInput>({
  model: 'OwnershipClaim',
  noun: 'ownership claim',
  key: ANY_KEY,
  // The claimant, and the contributor of the claimed item.
  read: (actor) => ({ OR: [{ accountId: actor.accountId }, { item: { accountId: actor.accountId } }] }),
  change: ownAccountRows,
});

/**
 * Position privacy: a latitude or longitude of a community image (its own, or one proposed for it) is
 * exact for the accounts it belongs to (the contributor; a proposal's author too) and rounded to 2
 * decimals, about 1 km, for anyone else.
 */
export function visibleCoordinate<V extends number | null | undefined>(value: V, viewer: Actor | null, ownerIds: readonly number[]): V {
  if (value === null || value === undefined || (viewer !== null && ownerIds.includes(viewer.accountId))) return value;
  return (Math.round(value * 100) / 100) as V;
}
