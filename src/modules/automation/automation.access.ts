// Who may see and change schedules (the owner, scrape scope: a schedule starts scrapes) and
// webhooks with their deliveries (the owner's master key: they carry signing secrets).
import type { Prisma } from '../../generated/prisma/client.js';
import { definePolicy, ownAccountRows, MASTER_KEY, SCOPE } from '../access/index.js';

export const schedulePolicy = definePolicy<Prisma.ScheduleWhereInput>({
  model: 'Schedule',
  noun: 'schedule',
  key: SCOPE.scrape,
  read: ownAccountRows,
});

export const webhookPolicy = definePolicy<Prisma.WebhookWhereInput>({
  model: 'Webhook',
  noun: 'webhook',
  key: MASTER_KEY,
  read: ownAccountRows,
});

export const webhookDeliveryPolicy = definePolicy<Prisma.WebhookDeliveryWhereInput>({
  model: 'WebhookDelivery',
  noun: 'webhook delivery',
  key: MASTER_KEY,
  read: (actor) => ({ webhook: { accountId: actor.accountId } }),
});
