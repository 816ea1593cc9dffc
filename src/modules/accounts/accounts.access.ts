// Who may see an account: any key of that account sees its own; the operator's admin token sees all.
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy } from '../access/index.js';

export const accountPolicy = definePolicy<Prisma.AccountWhereInput>({
  model: 'Account',
  noun: 'account',
  key: ANY_KEY,
  read: (actor) => ({ id: actor.accountId }),
  adminReads: true,
});
