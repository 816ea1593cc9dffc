// Webhooks as callers see them (master key only), stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts); the
// viewer's webhooks and their delivery logs. Register, test and delete are declared in
// automation.operations.ts. The secret is write-only: `has_secret` says whether one is set.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { newestFirst, policyNode } from '../../graphql/owned-rows.js';
import { answerDescription, answerEnum, answerFields, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { webhookDeliveryPolicy, webhookPolicy } from './automation.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import type { Webhook, WebhookDelivery } from '../../generated/prisma/client.js';
import { DELIVERIES_PAGE, WEBHOOK_DELIVERY_STATES, WEBHOOKS_PAGE, deliveriesWhere, hasSigningSecret, subscribedEvents, type WebhookTestResult } from './webhooks.service.js';

export const DeliveryStateEnum = answerEnum('WebhookDeliveryState', { values: WEBHOOK_DELIVERY_STATES });

export const delivery = answerFrom(
  z
    .object({
      id: z.string().describe('the payload id and X-Service-Delivery header (a UUID); the same on every attempt'),
      event: z.string(),
      job_id: id.nullable(),
      status: z.enum(WEBHOOK_DELIVERY_STATES),
      attempts: count,
      max_attempts: count,
      last_status_code: z.int().nullable().describe("the receiver's HTTP status at the last attempt"),
      last_error: z.string().nullable(),
      next_attempt_at: timestamp.nullable().describe('null once delivered or failed'),
      last_attempt_at: timestamp.nullable(),
      delivered_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'WebhookDelivery', description: 'One delivery of an event to a webhook, with its attempts' }),
  { id: 'deliveryId' },
);

export const WebhookDeliveryRef = builder.prismaNode('WebhookDelivery', {
  ...policyNode(webhookDeliveryPolicy),
  description: answerDescription(delivery),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    ...answerFields(t, delivery, {
      status: { resolve: (d: WebhookDelivery) => d.state },
      max_attempts: { resolve: (_d, _args, ctx) => ctx.services.webhooks.maxAttempts },
    }),
  }),
});

export const webhookFields = {
  url: z.string(),
  events: z.array(z.string()).describe('subscribed event types'),
  has_secret: z.boolean().describe('whether deliveries are signed (the secret itself is never shown)'),
  created_at: timestamp,
};
export const webhook = answerFrom(z.object({ id, ...webhookFields }).meta({ id: 'Webhook', description: 'A webhook; its secret is never shown' }), { id: 'databaseId' });

export const WebhookRef = builder.prismaNode('Webhook', {
  ...policyNode(webhookPolicy),
  description: answerDescription(webhook),
  fields: (t) => ({
    ...answerFields(t, webhook, {
      events: { resolve: (w: Webhook) => subscribedEvents(w) },
      has_secret: { resolve: (w: Webhook) => hasSigningSecret(w) },
    }),
    deliveries: t.relatedConnection('deliveries', {
      description: 'Delivery log, newest first',
      cursor: 'id',
      ...DELIVERIES_PAGE,
      totalCount: true,
      args: { status: t.arg({ type: DeliveryStateEnum }) },
      query: (args, ctx) => ({ where: { AND: [webhookDeliveryPolicy.where(ctx.actor), deliveriesWhere({ status: args.status ?? undefined })] }, orderBy: { id: 'desc' } }),
    }),
  }),
});

builder.prismaObjectField(AccountRef, 'webhooks', (t) =>
  t.relatedConnection('webhooks', { type: WebhookRef, description: "The account's webhooks, newest first (master key only)", ...newestFirst(webhookPolicy, WEBHOOKS_PAGE) }),
);

export const webhookTestResult = z.object({
  delivered: z.boolean().describe('the receiver answered 2xx'),
  status_code: z.int().nullable().describe("the receiver's status; null when unreachable"),
  error: z.string().nullable(),
  delivery_id: z.string(),
  event: z.string().describe('webhook.test'),
  duration_ms: count,
});
export const WebhookTestResultRef = answerObject<WebhookTestResult>('WebhookTestResult', webhookTestResult);
