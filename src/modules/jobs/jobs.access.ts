// Who may see jobs and their stored files: the owning account, with a key holding the scrape scope.
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, ownAccountRows, SCOPE } from '../access/index.js';

export const jobPolicy = definePolicy<Prisma.JobWhereInput>({
  model: 'Job',
  noun: 'job',
  key: SCOPE.scrape,
  read: ownAccountRows,
});

export const assetPolicy = definePolicy<Prisma.AssetWhereInput>({
  model: 'Asset',
  noun: 'asset',
  key: SCOPE.scrape,
  read: (actor) => ({ job: { accountId: actor.accountId } }),
});
