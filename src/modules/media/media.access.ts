// Who may see and change library items and folders: the owning account, with the media scope.
import { Prisma } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import { definePolicy, ownAccountRows, SCOPE } from '../access/index.js';

export const mediaItemPolicy = definePolicy<Prisma.MediaItemWhereInput>({
  model: 'MediaItem',
  noun: 'media item',
  key: SCOPE.media,
  read: ownAccountRows,
});

export const folderPolicy = definePolicy<Prisma.MediaFolderWhereInput>({
  model: 'MediaFolder',
  noun: 'folder',
  key: SCOPE.media,
  read: ownAccountRows,
});

/** The item rule for raw SQL (the search), where Prisma's filter cannot go: the same rows as `read`. */
export function mediaItemSql(actor: Actor | null): Prisma.Sql {
  return Prisma.sql`"accountId" = ${mediaItemPolicy.checkKey(actor).accountId}`;
}
