// GraphQL surface of webhooks (master key only): the webhook and delivery types, the viewer's webhooks
// and their delivery logs (register, test and delete are declared in automation.operations.ts). The secret is write-only:
// `hasSecret` says whether one is set.
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, MASTER_KEY } from '../access/index.js';
import { webhookDeliveryPolicy, webhookPolicy } from './automation.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { DELIVERIES_PAGE, WEBHOOK_DELIVERY_STATES, WEBHOOKS_PAGE, deliveriesWhere, hasSigningSecret, subscribedEvents, type WebhookTestResult } from './webhooks.service.js';

export const DeliveryStateEnum = builder.enumType('WebhookDeliveryState', { values: WEBHOOK_DELIVERY_STATES });

export const WebhookDeliveryRef = builder.prismaNode('WebhookDelivery', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: webhookDeliveryPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: webhookDeliveryPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    deliveryId: t.exposeString('deliveryId', { description: 'The payload id and X-Service-Delivery header (a UUID); the same on every attempt' }),
    event: t.exposeString('event'),
    jobId: t.exposeInt('jobId', { nullable: true }),
    status: t.field({ type: DeliveryStateEnum, resolve: (d) => d.state }),
    attempts: t.exposeInt('attempts'),
    maxAttempts: t.int({ resolve: (_d, _args, ctx) => ctx.services.webhooks.maxAttempts }),
    lastStatusCode: t.exposeInt('lastStatusCode', { nullable: true, description: "The receiver's HTTP status at the last attempt" }),
    lastError: t.exposeString('lastError', { nullable: true }),
    nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'Null once delivered or failed' }),
    lastAttemptAt: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    deliveredAt: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const WebhookRef = builder.prismaNode('Webhook', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: webhookPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: webhookPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer id used by the REST API' }),
    url: t.exposeString('url'),
    events: t.stringList({ description: 'Subscribed event types', resolve: (w) => subscribedEvents(w) }),
    hasSecret: t.boolean({ description: 'Whether deliveries are signed (the secret itself is never shown)', resolve: (w) => hasSigningSecret(w) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
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
  t.relatedConnection('webhooks', {
    type: WebhookRef,
    description: "The account's webhooks, newest first (master key only)",
    authScopes: webhookPolicy.authScopes,
    cursor: 'id',
    ...WEBHOOKS_PAGE,
    totalCount: true,
    query: (_args, ctx) => ({ where: webhookPolicy.where(ctx.actor), orderBy: { id: 'desc' } }),
  }),
);

builder.queryField('webhook', (t) =>
  t.prismaField({
    type: WebhookRef,
    description: "One of the caller's webhooks by its integer id",
    authScopes: authScopesOf(MASTER_KEY),
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.webhooks.getOwned(ctx.actor, args.id, query),
  }),
);

export const WebhookTestResultRef = builder.objectRef<WebhookTestResult>('WebhookTestResult').implement({
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId'),
    event: t.exposeString('event'),
    delivered: t.exposeBoolean('delivered', { description: 'The receiver answered 2xx' }),
    statusCode: t.exposeInt('statusCode', { nullable: true, description: "The receiver's HTTP status; null when it could not be reached" }),
    error: t.exposeString('error', { nullable: true }),
    durationMs: t.exposeInt('durationMs'),
  }),
});

export const DeletedWebhookRef = builder.objectRef<{ id: number }>('DeletedWebhook').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id') }),
});
