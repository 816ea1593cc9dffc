// Who may see bulk mirror jobs: the account that asked, with a key holding the media scope (the
// scope of what earns coins with an image: docs/rest-api.md "Sub-key scopes"). Another account's job is a 404.
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, ownAccountRows, SCOPE } from '../access/index.js';

export const bulkMirrorPolicy = definePolicy<Prisma.BulkMirrorWhereInput>({
  model: 'BulkMirror',
  noun: 'bulk mirror job',
  key: SCOPE.media,
  read: ownAccountRows,
});
