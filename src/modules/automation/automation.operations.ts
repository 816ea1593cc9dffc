// The automation operations declared once (docs/architecture.md), in the order of their REST rows:
// webhooks (register, list, delete, test, a webhook's delivery log) and schedules (create, list,
// delete, toggle). The lists are connection lists over `Account.webhooks`, `Webhook.deliveries` and
// `Account.schedules` (webhooks.schema.ts, schedules.schema.ts). Exports stay in
// exports/exports.schema.ts with hand-written REST rows (rest-shim/routes/automation.routes.ts).
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { defineConnectionList } from '../../graphql/connection-list.js';
import { MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import './automation.schema.js';
import { DeletedWebhookRef, DeliveryStateEnum, WebhookRef, WebhookTestResultRef } from './webhooks.schema.js';
import { DeletedScheduleRef, FrequencyEnum, ScheduleRef } from './schedules.schema.js';
import { createSchema as createScheduleSchema, DEFAULT_HOUR, FREQUENCIES, SCHEDULES_PAGE, toggleSchema } from './schedules.service.js';
import { createWebhookSchema, DELIVERIES_PAGE, deliveriesFilterSchema, testWebhookSchema, WEBHOOK_DELIVERY_STATES, WEBHOOKS_PAGE } from './webhooks.service.js';

/** A schedule's fields on the wire beside its id (spec names: `schedule` is its frequency, `next_run` its next run). */
export const scheduleFields = {
  name: z.string(),
  url: z.string(),
  schedule: z.enum(FREQUENCIES),
  hour: z.int().min(0).max(23).describe('UTC hour'),
  day_of_week: z.int().min(0).max(6).nullable().describe('0 = Monday to 6 = Sunday (weekly schedules)'),
  max_files: z.int().nullable(),
  sniper_mode: z.boolean(),
  ai_labeling: z.boolean(),
  enabled: z.boolean(),
  next_run: timestamp.nullable().describe('null while disabled'),
  last_run_at: timestamp.nullable(),
  last_job_id: id.nullable(),
  last_error: z.string().nullable(),
  run_count: count,
  created_at: timestamp,
};
const { enabled, next_run, ...scheduleFieldsButState } = scheduleFields;
const { next_run: _nextRun, ...scheduleFieldsButNextRun } = scheduleFields;
/** Where a schedule's answer fields come from in GraphQL, beside its id. */
const scheduleSources = { schedule: 'frequency', next_run: 'nextRunAt' };

const webhookFields = { url: z.string(), events: z.array(z.string()), has_secret: z.boolean(), created_at: timestamp };
const webhook = answerFrom(z.object({ id, ...webhookFields }).meta({ id: 'Webhook', description: 'A webhook; its secret is never shown' }), { id: 'databaseId' });

const delivery = answerFrom(
  z
    .object({
      id: z.string(),
      event: z.string(),
      job_id: id.nullable(),
      status: z.enum(WEBHOOK_DELIVERY_STATES),
      attempts: count,
      max_attempts: count,
      last_status_code: z.int().nullable(),
      last_error: z.string().nullable(),
      next_attempt_at: timestamp.nullable(),
      last_attempt_at: timestamp.nullable(),
      delivered_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'WebhookDelivery', description: 'One delivery of an event to a webhook, with its attempts' }),
  { id: 'deliveryId' },
);

const schedule = answerFrom(z.object({ id, ...scheduleFields }).meta({ id: 'Schedule', description: 'A recurring scrape' }), { id: 'databaseId', ...scheduleSources });

const createFields = createScheduleSchema.shape;
/** The REST body and GraphQL CreateScheduleInput, described once for both. */
const createScheduleInput = createScheduleSchema.safeExtend({
  url: createFields.url.describe('Page to scrape'),
  schedule: createFields.schedule.describe('weekly when left out'),
  hour: createFields.hour.describe(`UTC hour, 0 to 23; default ${DEFAULT_HOUR}`),
  day_of_week: createFields.day_of_week.describe('0 = Monday to 6 = Sunday; weekly schedules only (default 0)'),
  max_files: createFields.max_files.describe('Most assets per run; default 100'),
  ai_labeling: createFields.ai_labeling.describe('default false'),
}).describe('Fields of POST /api/automation/schedules (same names in camelCase, same defaults)');

/** `{ deleted: true, <idKey>: id }`: the answer of a REST delete. */
function deletedAnswer(idKey: string) {
  return {
    response: answerFrom(z.object({ deleted: z.literal(true), [idKey]: id }), { deleted: null, [idKey]: 'databaseId' }),
    shape: (answer: Record<string, unknown>) => ({ deleted: true, ...answer }),
  };
}

export const automationOperations = defineOperations({
  createWebhook: defineOperation({
    kind: 'mutation',
    key: MASTER_KEY,
    input: createWebhookSchema,
    inputType: 'CreateWebhookInput',
    output: WebhookRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.webhooks.create(actor, input),
    rest: {
      method: 'POST',
      path: '/api/automation/webhooks',
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
    rest: { path: '/api/automation/webhooks', summary: "List the account's webhooks, newest first (limit default 100, max 200; cursor); secrets are never shown" },
  }),
  deleteWebhook: defineOperation({
    kind: 'mutation',
    key: MASTER_KEY,
    ids: { id: 'webhook' },
    output: DeletedWebhookRef,
    run: ({ ctx, actor, id }) => ctx.services.webhooks.delete(actor, id),
    rest: { method: 'DELETE', path: '/api/automation/webhooks/:id', summary: 'Delete a webhook and its delivery log', ...deletedAnswer('webhook_id') },
  }),
  testWebhook: defineOperation({
    kind: 'mutation',
    description: 'Posts a webhook.test payload to the URL now and reports the answer',
    key: MASTER_KEY,
    input: testWebhookSchema,
    inputType: 'TestWebhookInput',
    output: WebhookTestResultRef,
    run: ({ ctx, actor, input }) => ctx.services.webhooks.test(actor, input),
    rest: {
      method: 'POST',
      path: '/api/automation/webhooks/test',
      summary: "Post a webhook.test payload to url now (signed when secret is given) and report the receiver's answer",
      response: z.object({
        delivered: z.boolean().describe('the receiver answered 2xx'),
        status_code: z.int().nullable().describe("the receiver's status; null when unreachable"),
        error: z.string().nullable(),
        delivery_id: z.string(),
        event: z.string().describe('webhook.test'),
        duration_ms: count,
      }),
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
      path: '/api/automation/webhooks/:id/deliveries',
      summary: 'Delivery log of a webhook, newest first: status, attempts, last status code and error, next attempt (limit default 50, max 200; cursor; status)',
    },
  }),
  createSchedule: defineOperation({
    kind: 'mutation',
    key: SCOPE.scrape,
    input: createScheduleInput,
    inputType: 'CreateScheduleInput',
    args: { schedule: FrequencyEnum },
    output: ScheduleRef,
    prisma: true,
    run: ({ ctx, actor, input }) => ctx.services.schedules.create(actor, input),
    rest: {
      method: 'POST',
      path: '/api/automation/schedules',
      summary: 'Create a recurring scrape: url, name, schedule (daily, weekly, monthly), hour (UTC), day_of_week, max_files, sniper_mode, ai_labeling',
      response: answerFrom(z.object({ schedule_id: id, next_run, ...scheduleFieldsButNextRun }), { schedule_id: 'databaseId', ...scheduleSources }),
      errors: { 409: 'the account has as many schedules as it may' },
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
    rest: { path: '/api/automation/schedules', summary: "List the account's schedules, newest first (limit default 100, max 200; cursor)" },
  }),
  deleteSchedule: defineOperation({
    kind: 'mutation',
    key: SCOPE.scrape,
    ids: { id: 'schedule' },
    output: DeletedScheduleRef,
    run: ({ ctx, actor, id }) => ctx.services.schedules.delete(actor, id),
    rest: { method: 'DELETE', path: '/api/automation/schedules/:id', summary: 'Delete a schedule (jobs it started stay)', ...deletedAnswer('schedule_id') },
  }),
  toggleSchedule: defineOperation({
    kind: 'mutation',
    description: 'Enables or disables a schedule (flips it when `enabled` is left out); enabling sets a fresh next run from now',
    key: SCOPE.scrape,
    ids: { id: 'schedule' },
    input: toggleSchema,
    output: ScheduleRef,
    prisma: true,
    run: ({ ctx, actor, id, input }) => ctx.services.schedules.toggle(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/automation/schedules/:id/toggle',
      summary: 'Enable or disable a schedule (body enabled: true or false; omitted flips it); enabling sets a fresh next_run',
      response: answerFrom(z.object({ schedule_id: id, enabled, next_run, ...scheduleFieldsButState }), { schedule_id: 'databaseId', ...scheduleSources }),
    },
  }),
});
