// Who may see and change collections: the owning account, with the media scope. A shared gallery
// link is a capability of its own (the token), read by the collections service without a key.
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, ownAccountRows, SCOPE } from '../access/index.js';

export const collectionPolicy = definePolicy<Prisma.CollectionWhereInput>({
  model: 'Collection',
  noun: 'collection',
  key: SCOPE.media,
  read: ownAccountRows,
});
