// Spec "Automation": webhooks (with their delivery log, our route), schedules and exports. The two
// deletes are declared in src/modules/automation/automation.operations.ts; the other rows are
// connections (lists) or take inputs whose GraphQL and REST descriptions differ, written here.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { restRoutesOf } from '../derive.js';
import { MASTER_KEY, SCOPE } from '../../src/modules/access/index.js';
import { automationOperations, scheduleFields } from '../../src/modules/automation/automation.operations.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import {
  CreateScheduleDocument,
  CreateWebhookDocument,
  ExportToShopifyDocument,
  ExportToWordPressDocument,
  type GetJobQuery,
  ListSchedulesDocument,
  ListWebhookDeliveriesDocument,
  ListWebhooksDocument,
  TestWebhookDocument,
  type ScheduleFieldsFragment,
  type WebhookDeliveryFieldsFragment,
  type WebhookFieldsFragment,
} from '../generated/operations.js';
import { createSchema as createScheduleSchema, SCHEDULES_PAGE } from '../../src/modules/automation/schedules.service.js';
import {
  createWebhookSchema,
  DELIVERIES_PAGE,
  deliveriesFilterSchema,
  testWebhookSchema,
  WEBHOOK_DELIVERY_STATES,
  WEBHOOKS_PAGE,
} from '../../src/modules/automation/webhooks.service.js';
import { shopifyExportSchema, wordpressExportSchema } from '../../src/modules/automation/exports/exports.input.js';
import { EXPORT_ITEM_STATES } from '../../src/modules/automation/exports/exports.service.js';
import { JOB_STATES } from '../../src/modules/jobs/jobs.service.js';
import { count, id, idParams, nextCursor, timestamp } from '../schemas.js';
import { cursorPageSchema } from '../../src/graphql/connection-cursor.js';

const webhook = z.object({ id, url: z.string(), events: z.array(z.string()), has_secret: z.boolean(), created_at: timestamp }).meta({ id: 'Webhook', description: 'A webhook; its secret is never shown' });

const delivery = z
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
  .meta({ id: 'WebhookDelivery', description: 'One delivery of an event to a webhook, with its attempts' });

const schedule = z.object({ id, ...scheduleFields }).meta({ id: 'Schedule', description: 'A recurring scrape' });
const { next_run, ...scheduleFieldsButNextRun } = scheduleFields;

const createScheduleBody = createScheduleSchema.safeExtend({
  hour: createScheduleSchema.shape.hour.describe('UTC hour'),
  day_of_week: createScheduleSchema.shape.day_of_week.describe('0 = Monday to 6 = Sunday; weekly schedules only (default 0)'),
});

/** A webhook as listed (our shape). The secret is never shown; has_secret says whether one is set. */
export function webhookJson(w: WebhookFieldsFragment): z.input<typeof webhook> {
  return { id: w.databaseId, url: w.url, events: w.events, has_secret: w.hasSecret, created_at: w.createdAt };
}

export function deliveryJson(d: WebhookDeliveryFieldsFragment): z.input<typeof delivery> {
  return {
    id: d.deliveryId,
    event: d.event,
    job_id: d.jobId,
    status: d.status,
    attempts: d.attempts,
    max_attempts: d.maxAttempts,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    next_attempt_at: d.nextAttemptAt,
    last_attempt_at: d.lastAttemptAt,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
  };
}

/** A schedule with its creation fields under their spec names. */
export function scheduleJson(s: ScheduleFieldsFragment): z.input<typeof schedule> {
  return {
    id: s.databaseId,
    name: s.name,
    url: s.url,
    schedule: s.frequency,
    hour: s.hour,
    day_of_week: s.dayOfWeek,
    max_files: s.maxFiles,
    sniper_mode: s.sniperMode,
    ai_labeling: s.aiLabeling,
    enabled: s.enabled,
    next_run: s.nextRunAt,
    last_run_at: s.lastRunAt,
    last_job_id: s.lastJobId,
    last_error: s.lastError,
    run_count: s.runCount,
    created_at: s.createdAt,
  };
}

/** The answer of both export routes: the scrape answer's shape (the job to poll). */
const exportStarted = z.object({ status: z.enum(JOB_STATES), job_id: id, message: z.string(), poll_url: z.string().describe('GET it to follow the job; its `export` lists each item') });

/** The `export` block of a polled export job (GET /api/jobs/{job_id}). */
export const exportSchema = z
  .object({
    destination: z.enum(['wordpress', 'shopify']),
    target: z.string().describe('the WordPress site address, or the shop domain'),
    product_id: z.string().nullable().describe('Shopify: the product the files are attached to'),
    total: count,
    exported: count,
    failed: count,
    pending: count,
    items: z.array(
      z.object({
        media_id: id,
        status: z.enum(EXPORT_ITEM_STATES),
        remote_id: z.string().nullable().describe('the WordPress media id, or the Shopify file gid'),
        remote_url: z.string().nullable().describe("the file's URL at the destination"),
        error: z.string().nullable().describe('why the item was not exported (or not attached)'),
      }),
    ),
  })
  .meta({ id: 'JobExport', description: 'Where an export job sends its items, and how each one went, in the order asked' });

export function exportJson(e: NonNullable<NonNullable<GetJobQuery['job']>['export']>): z.input<typeof exportSchema> {
  return {
    destination: e.destination as 'wordpress' | 'shopify',
    target: e.target,
    product_id: e.productId,
    total: e.total,
    exported: e.exported,
    failed: e.failed,
    pending: e.pending,
    items: e.items.map((item) => ({ media_id: item.mediaId, status: item.status, remote_id: item.remoteId, remote_url: item.remoteUrl, error: item.error })),
  };
}

function started(job: { databaseId: number; state: (typeof JOB_STATES)[number] }, what: string) {
  const poll = `/api/jobs/${job.databaseId}`;
  return { status: job.state, job_id: job.databaseId, message: `${what} export job queued; poll ${poll} every 2 to 5 seconds until its status is completed or failed`, poll_url: poll };
}

/** `limit` and `cursor` of a list as the connection's `first` and `after` (absent: its default size). */
const page = (query: { limit?: number; cursor?: string }) => ({ first: query.limit, after: query.cursor });


export const automationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/automation/webhooks',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Register a webhook: url (https), secret (signs deliveries), events (default all)',
    operation: CreateWebhookDocument,
    request: { body: createWebhookSchema },
    response: z.object({ webhook_id: id, url: z.string(), events: z.array(z.string()), has_secret: z.boolean(), created_at: timestamp }),
    errors: { 409: 'the account has as many webhooks as it may' },
    successStatus: 201,
    variables: ({ body }) => ({ input: { url: body.url, secret: body.secret, events: body.events } }),
    shape: (data) => {
      const { id, ...rest } = webhookJson(unwrap(data.createWebhook));
      return { webhook_id: id, ...rest };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/automation/webhooks',
    auth: 'key',
    key: MASTER_KEY,
    summary: "List the account's webhooks, newest first (limit default 100, max 200; cursor); secrets are never shown",
    operation: ListWebhooksDocument,
    request: { query: cursorPageSchema(WEBHOOKS_PAGE) },
    response: z.object({ webhooks: z.array(webhook), total: count, next_cursor: nextCursor }),
    variables: ({ query }) => page(query),
    shape: (data) => {
      const connection = data.viewer.webhooks;
      return {
        webhooks: connection.edges.map((edge) => webhookJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  ...restRoutesOf({ deleteWebhook: automationOperations.deleteWebhook }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/webhooks/test',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Post a webhook.test payload to url now (signed when secret is given) and report the receiver's answer",
    operation: TestWebhookDocument,
    request: { body: testWebhookSchema },
    response: z.object({
      delivered: z.boolean().describe('the receiver answered 2xx'),
      status_code: z.int().nullable().describe("the receiver's status; null when unreachable"),
      error: z.string().nullable(),
      delivery_id: z.string(),
      event: z.string().describe('webhook.test'),
      duration_ms: count,
    }),
    variables: ({ body }) => ({ input: { url: body.url, secret: body.secret } }),
    shape: (data) => {
      const result = unwrap(data.testWebhook);
      return {
        delivered: result.delivered,
        status_code: result.statusCode,
        error: result.error,
        delivery_id: result.deliveryId,
        event: result.event,
        duration_ms: result.durationMs,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/automation/webhooks/:id/deliveries',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Delivery log of a webhook, newest first: status, attempts, last status code and error, next attempt (limit default 50, max 200; cursor; status)',
    operation: ListWebhookDeliveriesDocument,
    request: { params: idParams('webhook'), query: cursorPageSchema(DELIVERIES_PAGE).extend(deliveriesFilterSchema.shape) },
    response: z.object({ webhook_id: id, deliveries: z.array(delivery), total: count, next_cursor: nextCursor }),
    variables: ({ params, query }) => ({ id: pathId(params, 'webhook'), ...page(query), status: query.status }),
    shape: (data) => {
      const connection = data.webhook.deliveries;
      return {
        webhook_id: data.webhook.databaseId,
        deliveries: connection.edges.map((edge) => deliveryJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/schedules',
    auth: 'key',
    key: SCOPE.scrape,
    summary: 'Create a recurring scrape: url, name, schedule (daily, weekly, monthly), hour (UTC), day_of_week, max_files, sniper_mode, ai_labeling',
    operation: CreateScheduleDocument,
    request: { body: createScheduleBody },
    response: z.object({ schedule_id: id, next_run, ...scheduleFieldsButNextRun }),
    errors: { 409: 'the account has as many schedules as it may' },
    successStatus: 201,
    variables: ({ body }) => ({
      input: {
        url: body.url,
        name: body.name,
        schedule: body.schedule,
        hour: body.hour,
        dayOfWeek: body.day_of_week,
        maxFiles: body.max_files,
        sniperMode: body.sniper_mode,
        aiLabeling: body.ai_labeling,
      },
    }),
    shape: (data) => {
      const { id, next_run, ...rest } = scheduleJson(unwrap(data.createSchedule));
      return { schedule_id: id, next_run, ...rest };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/automation/schedules',
    auth: 'key',
    key: SCOPE.scrape,
    summary: "List the account's schedules, newest first (limit default 100, max 200; cursor)",
    operation: ListSchedulesDocument,
    request: { query: cursorPageSchema(SCHEDULES_PAGE) },
    response: z.object({ schedules: z.array(schedule), total: count, next_cursor: nextCursor }),
    variables: ({ query }) => page(query),
    shape: (data) => {
      const connection = data.viewer.schedules;
      return {
        schedules: connection.edges.map((edge) => scheduleJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  ...restRoutesOf({ deleteSchedule: automationOperations.deleteSchedule }),
  ...restRoutesOf({ toggleSchedule: automationOperations.toggleSchedule }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/export/wordpress',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Upload media items to a WordPress site through its REST API, as a job (wp_url, wp_user, wp_password: an application password, media_ids)',
    description:
      'Each item is sent with POST {wp_url}/wp-json/wp/v2/media (Basic authentication), its title, alt text and caption set from the item. The password is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its WordPress id and URL, or its error.',
    operation: ExportToWordPressDocument,
    request: { body: wordpressExportSchema },
    response: exportStarted,
    errors: { 409: 'a media item is in the trash' },
    successStatus: 202,
    variables: ({ body }) => ({ input: { wpUrl: body.wp_url, wpUser: body.wp_user, wpPassword: body.wp_password, mediaIds: body.media_ids } }),
    shape: (data) => started(unwrap(data.exportToWordPress), 'WordPress'),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/export/shopify',
    auth: 'key',
    key: MASTER_KEY,
    summary: "Create media items as files of a Shopify shop through the Admin GraphQL API, as a job (shop, access_token, media_ids, product_id to attach them)",
    description:
      "Each item becomes a Shopify file (fileCreate, from a short-lived signed URL of ours or a staged upload), polled until READY, then attached to the product when product_id is given. The token is sealed for the job and dropped when it ends; it is never stored in the clear, logged or returned. Poll the job: its `export` lists each item with its file gid and URL, or its error.",
    operation: ExportToShopifyDocument,
    request: { body: shopifyExportSchema },
    response: exportStarted,
    errors: { 409: 'a media item is in the trash' },
    successStatus: 202,
    variables: ({ body }) => ({
      input: { shop: body.shop, accessToken: body.access_token, mediaIds: body.media_ids, productId: body.product_id === undefined ? undefined : String(body.product_id) },
    }),
    shape: (data) => started(unwrap(data.exportToShopify), 'Shopify'),
  }),
];
