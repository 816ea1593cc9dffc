// The automation operations declared once (docs/architecture.md), in the order of their REST rows:
// webhooks (register, list, delete, one by id, test, a webhook's delivery log) and schedules (create,
// list, delete, one by id, toggle). The lists are connection lists over `Account.webhooks`,
// `Webhook.deliveries` and `Account.schedules` (webhooks.schema.ts, schedules.schema.ts). Exports to WordPress and Shopify
// start a job to poll (its `export` in exports/exports.schema.ts).
import { z } from 'zod';
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { defineConnectionList } from '../../graphql/connection-list.js';
import { deletedObject, withDeleted } from '../../graphql/common-answers.js';
import { ownedRowQuery } from '../../graphql/owned-rows.js';
import { schedulePolicy, webhookPolicy } from './automation.access.js';
import { MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, id } from '../../platform/wire.js';
import './automation.schema.js';
import { delivery, DeliveryStateEnum, webhook, webhookFields, WebhookRef, WebhookTestResultRef } from './webhooks.schema.js';
import { FrequencyEnum, schedule, scheduleFields, scheduleSources, ScheduleRef } from './schedules.schema.js';
import { createSchema as createScheduleSchema, DEFAULT_HOUR, SCHEDULES_PAGE, toggleSchema } from './schedules.service.js';
import { shopifyExportSchema, wordpressExportSchema } from './exports/exports.input.js';
import { JobRef } from '../jobs/jobs.schema.js';
import { queuedJobAnswer } from '../jobs/index.js';
import { createWebhookSchema, DELIVERIES_PAGE, deliveriesFilterSchema, testWebhookSchema, WEBHOOKS_PAGE } from './webhooks.service.js';

const { enabled, next_run, ...scheduleFieldsButState } = scheduleFields;
const { next_run: _nextRun, ...scheduleFieldsButNextRun } = scheduleFields;

const createFields = createScheduleSchema.shape;
/** The REST body and GraphQL CreateScheduleInput, described once for both. */
const createScheduleInput = createScheduleSchema.safeExtend({
  url: createFields.url.describe('Page to scrape'),
  schedule: createFields.schedule.describe('weekly when left out'),
  hour: createFields.hour.describe(`UTC hour, 0 to 23; default ${DEFAULT_HOUR}`),
  day_of_week: createFields.day_of_week.describe('0 = Monday to 6 = Sunday; weekly schedules only (default 0)'),
  max_files: createFields.max_files.describe('Most assets per run; default 100'),
  ai_labeling: createFields.ai_labeling.describe('default false'),
  render: createFields.render.describe("true: each run loads its pages in headless Chromium (as a scrape with render: true), 503 when Chromium is not installed; false: never. Left out: null, each run follows the operator's RENDER_AUTO (as a scrape that leaves render out)"),
}).describe('Fields of POST /api/automation/schedules (same names in camelCase, same defaults)');

/** Both export rows answer with the job to poll (the scrape answer's shape). */
const exportStarted = (destination: string) => ({
  ...queuedJobAnswer(`${destination} export`, 'GET it to follow the job; its `export` lists each item'),
  errors: { 409: 'a media item is in the trash' },
  successStatus: 202,
});

export const automationOperations = defineOperations({
  createWebhook: defineMutation({
    key: MASTER_KEY,
    input: createWebhookSchema,
    inputType: 'CreateWebhookInput',
    output: WebhookRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.webhooks.create(actor, input),
    rest: {
      route: 'POST /api/automation/webhooks',
      summary: 'Register a webhook: url (https), secret (signs deliveries), events (default all)',
      response: answerFrom(z.object({ webhook_id: id, ...webhookFields }), { webhook_id: 'databaseId' }),
      errors: { 409: 'the account has as many webhooks as it may' },
      successStatus: 201,
    },
  }),
  listWebhooks: defineConnectionList({
    name: 'ListWebhooks',
    key: MASTER_KEY,
    connection: 'viewer.webhooks',
    page: WEBHOOKS_PAGE,
    items: 'webhooks',
    node: webhook,
    rest: { route: 'GET /api/automation/webhooks', summary: "List the account's webhooks, newest first (limit default 100, max 200; cursor); secrets are never shown" },
  }),
  deleteWebhook: defineMutation({
    key: MASTER_KEY,
    ids: { id: 'webhook' },
    output: deletedObject('DeletedWebhook', 'webhook_id'),
    run: ({ ctx, actor, id }) => ctx.services.webhooks.delete(actor, id),
    rest: { route: 'DELETE /api/automation/webhooks/:id', summary: 'Delete a webhook and its delivery log', shape: withDeleted },
  }),
  webhook: ownedRowQuery(webhookPolicy, WebhookRef, (ctx, actor, id, query) => ctx.services.webhooks.getOwned(actor, id, query)),
  testWebhook: defineMutation({
    description: 'Posts a webhook.test payload to the URL now and reports the answer',
    key: MASTER_KEY,
    input: testWebhookSchema,
    inputType: 'TestWebhookInput',
    output: WebhookTestResultRef,
    run: ({ ctx, actor, input }) => ctx.services.webhooks.test(actor, input),
    rest: {
      route: 'POST /api/automation/webhooks/test',
      summary: "Post a webhook.test payload to url now (signed when secret is given) and report the receiver's answer",
    },
  }),
  listWebhookDeliveries: defineConnectionList({
    name: 'ListWebhookDeliveries',
    key: MASTER_KEY,
    connection: 'webhook.deliveries',
    ids: { id: 'webhook' },
    page: DELIVERIES_PAGE,
    filters: deliveriesFilterSchema,
    args: { status: DeliveryStateEnum },
    parent: answerFrom(z.object({ webhook_id: id }), { webhook_id: 'databaseId' }),
    items: 'deliveries',
    node: delivery,
    rest: {
      route: 'GET /api/automation/webhooks/:id/deliveries',
      summary: 'Delivery log of a webhook, newest first: status, attempts, last status code and error, next attempt (limit default 50, max 200; cursor; status)',
    },
  }),
  createSchedule: defineMutation({
    key: SCOPE.scrape,
    input: createScheduleInput,
    inputType: 'CreateScheduleInput',
    args: { schedule: FrequencyEnum },
    output: ScheduleRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.schedules.create(actor, input),
    rest: {
      route: 'POST /api/automation/schedules',
      summary: 'Create a recurring scrape: url, name, schedule (daily, weekly, monthly), hour (UTC), day_of_week, max_files, sniper_mode, ai_labeling, render',
      response: answerFrom(z.object({ schedule_id: id, next_run, ...scheduleFieldsButNextRun }), { schedule_id: 'databaseId', ...scheduleSources }),
      errors: { 409: 'the account has as many schedules as it may', 503: 'render: true, and Chromium is not installed on the server' },
      successStatus: 201,
    },
  }),
  listSchedules: defineConnectionList({
    name: 'ListSchedules',
    key: SCOPE.scrape,
    connection: 'viewer.schedules',
    page: SCHEDULES_PAGE,
    items: 'schedules',
    node: schedule,
    rest: { route: 'GET /api/automation/schedules', summary: "List the account's schedules, newest first (limit default 100, max 200; cursor)" },
  }),
  deleteSchedule: defineMutation({
    key: SCOPE.scrape,
    ids: { id: 'schedule' },
    output: deletedObject('DeletedSchedule', 'schedule_id'),
    run: ({ ctx, actor, id }) => ctx.services.schedules.delete(actor, id),
    rest: { route: 'DELETE /api/automation/schedules/:id', summary: 'Delete a schedule (jobs it started stay)', shape: withDeleted },
  }),
  schedule: ownedRowQuery(schedulePolicy, ScheduleRef, (ctx, actor, id, query) => ctx.services.schedules.getOwned(actor, id, query)),
  toggleSchedule: defineMutation({
    description: 'Enables or disables a schedule (flips it when `enabled` is left out); enabling sets a fresh next run from now',
    key: SCOPE.scrape,
    ids: { id: 'schedule' },
    input: toggleSchema,
    output: ScheduleRef,
    prisma: true,
    run: ({ ctx, actor, id, input }) => ctx.services.schedules.toggle(actor, id, input),
    rest: {
      route: 'POST /api/automation/schedules/:id/toggle',
      summary: 'Enable or disable a schedule (body enabled: true or false; omitted flips it); enabling sets a fresh next_run',
      response: answerFrom(z.object({ schedule_id: id, enabled, next_run, ...scheduleFieldsButState }), { schedule_id: 'databaseId', ...scheduleSources }),
    },
  }),
  exportToWordPress: defineMutation({
    description: 'Starts a job that uploads the media items to a WordPress site (poll it with `job`)',
    key: MASTER_KEY,
    input: wordpressExportSchema,
    inputType: 'WordPressExportInput',
    output: JobRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.exports.startWordPress(actor, input),
    rest: {
      route: 'POST /api/automation/export/wordpress',
      summary: 'Upload media items to a WordPress site through its REST API, as a job (wp_url, wp_user, wp_password: an application password, media_ids)',
      description:
        'Each item is sent with POST {wp_url}/wp-json/wp/v2/media (Basic authentication), its title, alt text and caption set from the item. The password is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its WordPress id and URL, or its error.',
      ...exportStarted('WordPress'),
    },
  }),
  exportToShopify: defineMutation({
    description: 'Starts a job that creates the media items as files of a Shopify shop, attached to a product when one is given',
    key: MASTER_KEY,
    input: shopifyExportSchema,
    inputType: 'ShopifyExportInput',
    // A number or a gid in REST: text in GraphQL.
    args: { product_id: 'String' },
    output: JobRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.exports.startShopify(actor, input),
    rest: {
      route: 'POST /api/automation/export/shopify',
      summary: 'Create media items as files of a Shopify shop through the Admin GraphQL API, as a job (shop, access_token, media_ids, product_id to attach them)',
      description:
        'Each item becomes a Shopify file (fileCreate, from a short-lived signed URL of ours or a staged upload), polled until READY, then attached to the product when product_id is given. The token is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its file gid and URL, or its error.',
      ...exportStarted('Shopify'),
    },
  }),
});
