// Who may see image intel: its author, the image's owner (its contributor), and, once published (an
// approved comment or a merged proposal), any key that can see the image. Only the image's owner
// resolves a proposal.
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy } from '../access/index.js';
import { communityItemPolicy } from '../community/index.js';

/** Statuses anyone who can see the image may read. */
export const PUBLISHED: string[] = ['approved', 'merged'];

export const intelPostPolicy = definePolicy<Prisma.IntelPostWhereInput>({
  model: 'IntelPost',
  noun: 'intel post',
  key: ANY_KEY,
  read: (actor) => ({
    OR: [
      { accountId: actor.accountId },
      { item: { accountId: actor.accountId } },
      { status: { in: PUBLISHED }, item: communityItemPolicy.where(actor) },
    ],
  }),
  change: (actor) => ({ item: { accountId: actor.accountId } }),
});
