// Who may see and revoke sub-keys: the account's master key (a sub-key never sees its siblings).
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, MASTER_KEY } from '../access/index.js';

export const subKeyPolicy = definePolicy<Prisma.ApiKeyWhereInput>({
  model: 'ApiKey',
  noun: 'sub-key',
  key: MASTER_KEY,
  read: (actor) => ({ accountId: actor.accountId, kind: 'sub' }),
});
