// The automation operations declared once (docs/architecture.md): deleting a webhook, deleting and
// toggling a schedule. The rest (lists are connections; create, test and exports take inputs whose
// GraphQL and REST descriptions differ) stays in webhooks.schema.ts, schedules.schema.ts and
// exports/exports.schema.ts, with hand-written REST rows (rest-shim/routes/automation.routes.ts).
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import './automation.schema.js';
import { DeletedWebhookRef } from './webhooks.schema.js';
import { DeletedScheduleRef, ScheduleRef } from './schedules.schema.js';
import { FREQUENCIES, toggleSchema } from './schedules.service.js';

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

/** `{ deleted: true, <idKey>: id }`: the answer of a REST delete. */
function deletedAnswer(idKey: string) {
  return {
    response: answerFrom(z.object({ deleted: z.literal(true), [idKey]: id }), { deleted: null, [idKey]: 'databaseId' }),
    shape: (answer: Record<string, unknown>) => ({ deleted: true, ...answer }),
  };
}

export const automationOperations = {
  deleteWebhook: defineOperation({
    kind: 'mutation',
    name: 'deleteWebhook',
    key: MASTER_KEY,
    ids: { id: 'webhook' },
    output: DeletedWebhookRef,
    run: ({ ctx, actor, id }) => ctx.services.webhooks.delete(actor, id),
    rest: { method: 'DELETE', path: '/api/automation/webhooks/:id', summary: 'Delete a webhook and its delivery log', ...deletedAnswer('webhook_id') },
  }),
  deleteSchedule: defineOperation({
    kind: 'mutation',
    name: 'deleteSchedule',
    key: SCOPE.scrape,
    ids: { id: 'schedule' },
    output: DeletedScheduleRef,
    run: ({ ctx, actor, id }) => ctx.services.schedules.delete(actor, id),
    rest: { method: 'DELETE', path: '/api/automation/schedules/:id', summary: 'Delete a schedule (jobs it started stay)', ...deletedAnswer('schedule_id') },
  }),
  toggleSchedule: defineOperation({
    kind: 'mutation',
    name: 'toggleSchedule',
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
      response: answerFrom(z.object({ schedule_id: id, enabled, next_run, ...scheduleFieldsButState }), { schedule_id: 'databaseId', schedule: 'frequency', next_run: 'nextRunAt' }),
    },
  }),
};
