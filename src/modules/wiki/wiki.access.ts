// Who may see wiki subjects and their photos: any key reads the approved subjects and their photos;
// a subject's creator also reads their own while it waits for review or after it was rejected, with
// its photos. The list of approved subjects needs no key at all (wiki.service.ts filters it by status
// alone). Reviewing is the operator's (admin token); who may vote is a rule of the wiki service.
import type { Prisma } from '../../generated/prisma/client.js';
import { ANY_KEY, definePolicy } from '../access/index.js';

export const wikiSubjectPolicy = definePolicy<Prisma.WikiSubjectWhereInput>({
  model: 'WikiSubject',
  noun: 'wiki subject',
  key: ANY_KEY,
  read: (actor) => ({ OR: [{ status: 'approved' }, { accountId: actor.accountId }] }),
});

export const wikiPhotoPolicy = definePolicy<Prisma.WikiMediaWhereInput>({
  model: 'WikiMedia',
  noun: 'wiki photo',
  key: ANY_KEY,
  // A photo is seen wherever its subject is.
  read: (actor) => ({ subject: wikiSubjectPolicy.where(actor) }),
});
