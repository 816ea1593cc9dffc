// Who may see and change library items and folders: the owning account, with the media scope.
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy } from '../access/index.js';

export const mediaItemPolicy = definePolicy<Prisma.MediaItemWhereInput>({
  model: 'MediaItem',
  noun: 'media item',
  key: { scope: 'media' },
  read: (actor) => ({ accountId: actor.accountId }),
});

export const folderPolicy = definePolicy<Prisma.MediaFolderWhereInput>({
  model: 'MediaFolder',
  noun: 'folder',
  key: { scope: 'media' },
  read: (actor) => ({ accountId: actor.accountId }),
});
