// Schedules as callers see them (scope `scrape`), stated once: the answer object (REST names,
// src/platform/wire.ts), the GraphQL type made from it (src/graphql/answer-object.ts) and the
// viewer's schedules. Create, delete and toggle are declared in automation.operations.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { newestFirst, policyNode } from '../../graphql/owned-rows.js';
import { answerDescription, answerEnum, answerFields } from '../../graphql/answer-object.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { schedulePolicy } from './automation.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { FREQUENCIES, SCHEDULES_PAGE } from './schedules.service.js';

export const FrequencyEnum = answerEnum('ScheduleFrequency', { values: FREQUENCIES });

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
  render: z.boolean().nullable().describe("true: each run loads its pages in headless Chromium; false: never; null (left out when created): each run follows the operator's RENDER_AUTO"),
  enabled: z.boolean(),
  next_run: timestamp.nullable().describe('null while disabled'),
  last_run_at: timestamp.nullable(),
  last_job_id: id.nullable().describe('the scrape job of the latest run'),
  last_error: z.string().nullable().describe('why the latest run did not start'),
  run_count: count,
  created_at: timestamp,
};
/** Where a schedule's answer fields come from in GraphQL, beside its id. */
export const scheduleSources = { schedule: 'frequency', next_run: 'nextRunAt' };

export const schedule = answerFrom(z.object({ id, ...scheduleFields }).meta({ id: 'Schedule', description: 'A recurring scrape' }), { id: 'databaseId', ...scheduleSources });

export const ScheduleRef = builder.prismaNode('Schedule', {
  ...policyNode(schedulePolicy),
  description: answerDescription(schedule),
  fields: (t) =>
    answerFields(t, schedule, {
      hour: { description: 'UTC hour of the run, 0 to 23' },
    }),
});

builder.prismaObjectField(AccountRef, 'schedules', (t) =>
  t.relatedConnection('schedules', { type: ScheduleRef, description: "The account's schedules, newest first", ...newestFirst(schedulePolicy, SCHEDULES_PAGE) }),
);
