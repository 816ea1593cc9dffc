// Tags of a community item confirmed by a vision label, as tagging records them when vision sees
// them (for tests where vision is off; test/bounties/subject-evidence.test.ts serves real vision).
import { subjectKey } from '../../src/modules/community/index.js';
import type { TestApp } from './app.js';

export async function confirmTagsByLabel(t: TestApp, itemId: number): Promise<void> {
  const { prisma } = t.app.services.db;
  const item = await prisma.communityItem.findUniqueOrThrow({ where: { id: itemId } });
  await prisma.communityTagConfirmation.createMany({
    data: item.tags.map((tag) => ({ itemId, tag, key: subjectKey(tag), evidence: 'label', matched: tag, accountId: item.accountId })),
    skipDuplicates: true,
  });
  await prisma.communityItem.update({ where: { id: itemId }, data: { verified: item.tags.length > 0 } });
}
