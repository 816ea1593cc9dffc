// Who may see and change stock lists: the owner and the accounts that joined read a list; only the
// owner changes it (members add and remove their own items, a rule of the stock-lists service).
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, ownAccountRows, SCOPE } from '../access/index.js';

export const stockListPolicy = definePolicy<Prisma.StockListWhereInput>({
  model: 'StockList',
  noun: 'stock list',
  key: SCOPE.media,
  read: (actor) => ({ OR: [{ accountId: actor.accountId }, { members: { some: { accountId: actor.accountId } } }] }),
  change: ownAccountRows,
});

export const stockItemPolicy = definePolicy<Prisma.StockItemWhereInput>({
  model: 'StockItem',
  noun: 'stock item',
  key: SCOPE.media,
  read: (actor) => ({ list: stockListPolicy.where(actor) }),
  // The list's owner, or the member who added the item.
  change: (actor) => ({ OR: [{ list: { accountId: actor.accountId } }, { addedBy: actor.accountId, list: stockListPolicy.where(actor) }] }),
});
