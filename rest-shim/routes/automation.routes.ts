// Spec "Automation": webhooks (with their delivery log, our route) and schedules.
import { defineRoute } from '../route.js';
import { optionalBool, optionalInt, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import {
  CreateScheduleDocument,
  CreateWebhookDocument,
  DeleteScheduleDocument,
  DeleteWebhookDocument,
  ListSchedulesDocument,
  ListWebhookDeliveriesDocument,
  ListWebhooksDocument,
  TestWebhookDocument,
  ToggleScheduleDocument,
  type ScheduleFieldsFragment,
  type WebhookDeliveryFieldsFragment,
  type WebhookDeliveryState,
  type WebhookFieldsFragment,
} from '../generated/operations.js';
import { InvalidInput } from '../../src/platform/errors.js';

/** Path ids are integers. */
function idParam(params: Record<string, string>, what: string): number {
  const value = params.id ?? '';
  if (!/^\d{1,9}$/.test(value)) throw new InvalidInput(`id: expected an integer ${what} id`, 'id');
  return Number(value);
}

/** An array of strings; a comma-separated string is accepted too. */
function optionalStringList(source: Source, name: string): string[] | undefined {
  const value = source[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw new InvalidInput(`${name}: expected an array of strings`, name);
  return value as string[];
}

const DELIVERY_STATES: WebhookDeliveryState[] = ['pending', 'delivered', 'failed'];

function deliveryStatus(query: Source): WebhookDeliveryState | undefined {
  const value = optionalString(query, 'status');
  if (value === undefined || value === '') return undefined;
  if (!DELIVERY_STATES.includes(value as WebhookDeliveryState)) throw new InvalidInput(`status: expected ${DELIVERY_STATES.join(', ')}`, 'status');
  return value as WebhookDeliveryState;
}

/** A webhook as listed (our shape). The secret is never shown; has_secret says whether one is set. */
export function webhookJson(w: WebhookFieldsFragment) {
  return { id: w.databaseId, url: w.url, events: w.events, has_secret: w.hasSecret, created_at: w.createdAt };
}

export function deliveryJson(d: WebhookDeliveryFieldsFragment) {
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
export function scheduleJson(s: ScheduleFieldsFragment) {
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

const page = (query: Source, defaultSize: number) => ({ first: optionalInt(query, 'limit') ?? defaultSize, after: optionalString(query, 'cursor') });

export const automationRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/automation/webhooks',
    auth: 'key',
    scope: 'master',
    summary: 'Register a webhook: url (https), secret (signs deliveries), events (default all)',
    operation: CreateWebhookDocument,
    successStatus: 201,
    variables: ({ body }) => ({
      input: { url: optionalString(body, 'url') ?? '', secret: optionalString(body, 'secret'), events: optionalStringList(body, 'events') },
    }),
    shape: (data) => {
      const { id, ...rest } = webhookJson(unwrap(data.createWebhook));
      return { webhook_id: id, ...rest };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/automation/webhooks',
    auth: 'key',
    scope: 'master',
    summary: "List the account's webhooks, newest first (limit default 100, max 200; cursor); secrets are never shown",
    operation: ListWebhooksDocument,
    variables: ({ query }) => page(query, 100),
    shape: (data) => {
      const connection = data.viewer.webhooks;
      return {
        webhooks: connection.edges.map((edge) => webhookJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/automation/webhooks/:id',
    auth: 'key',
    scope: 'master',
    summary: 'Delete a webhook and its delivery log',
    operation: DeleteWebhookDocument,
    variables: ({ params }) => ({ id: idParam(params, 'webhook') }),
    shape: (data) => ({ deleted: true, webhook_id: unwrap(data.deleteWebhook).databaseId }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/webhooks/test',
    auth: 'key',
    scope: 'master',
    summary: "Post a webhook.test payload to url now (signed when secret is given) and report the receiver's answer",
    operation: TestWebhookDocument,
    variables: ({ body }) => ({ input: { url: optionalString(body, 'url') ?? '', secret: optionalString(body, 'secret') } }),
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
    scope: 'master',
    summary: 'Delivery log of a webhook, newest first: status, attempts, last status code and error, next attempt (limit default 50, max 200; cursor; status)',
    operation: ListWebhookDeliveriesDocument,
    variables: ({ params, query }) => ({ id: idParam(params, 'webhook'), ...page(query, 50), status: deliveryStatus(query) }),
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
    scope: 'scrape',
    summary: 'Create a recurring scrape: url, name, schedule (daily, weekly, monthly), hour (UTC), day_of_week, max_files, sniper_mode, ai_labeling',
    operation: CreateScheduleDocument,
    successStatus: 201,
    variables: ({ body }) => ({
      input: {
        url: optionalString(body, 'url') ?? '',
        name: optionalString(body, 'name') ?? '',
        schedule: optionalString(body, 'schedule'),
        hour: optionalInt(body, 'hour'),
        dayOfWeek: optionalInt(body, 'day_of_week'),
        maxFiles: optionalInt(body, 'max_files'),
        sniperMode: optionalBool(body, 'sniper_mode'),
        aiLabeling: optionalBool(body, 'ai_labeling'),
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
    scope: 'scrape',
    summary: "List the account's schedules, newest first (limit default 100, max 200; cursor)",
    operation: ListSchedulesDocument,
    variables: ({ query }) => page(query, 100),
    shape: (data) => {
      const connection = data.viewer.schedules;
      return {
        schedules: connection.edges.map((edge) => scheduleJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/automation/schedules/:id',
    auth: 'key',
    scope: 'scrape',
    summary: 'Delete a schedule (jobs it started stay)',
    operation: DeleteScheduleDocument,
    variables: ({ params }) => ({ id: idParam(params, 'schedule') }),
    shape: (data) => ({ deleted: true, schedule_id: unwrap(data.deleteSchedule).databaseId }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/automation/schedules/:id/toggle',
    auth: 'key',
    scope: 'scrape',
    summary: 'Enable or disable a schedule (body enabled: true or false; omitted flips it); enabling sets a fresh next_run',
    operation: ToggleScheduleDocument,
    variables: ({ params, body }) => ({ id: idParam(params, 'schedule'), enabled: optionalBool(body, 'enabled') }),
    shape: (data) => {
      const { id, enabled, next_run, ...rest } = scheduleJson(unwrap(data.toggleSchedule));
      return { schedule_id: id, enabled, next_run, ...rest };
    },
  }),
];
