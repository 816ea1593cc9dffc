// GraphQL surface of schedules (scope `scrape`): the schedule type and the viewer's schedules
// (create, delete and toggle are declared in automation.operations.ts).
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { schedulePolicy } from './automation.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { FREQUENCIES, SCHEDULES_PAGE } from './schedules.service.js';

export const FrequencyEnum = builder.enumType('ScheduleFrequency', { values: FREQUENCIES });

export const ScheduleRef = builder.prismaNode('Schedule', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: schedulePolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: schedulePolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer schedule_id of the REST API' }),
    name: t.exposeString('name'),
    url: t.exposeString('url'),
    frequency: t.field({ type: FrequencyEnum, resolve: (s) => s.frequency }),
    hour: t.exposeInt('hour', { description: 'UTC hour of the run, 0 to 23' }),
    dayOfWeek: t.exposeInt('dayOfWeek', { nullable: true, description: 'Weekly only: 0 = Monday to 6 = Sunday' }),
    maxFiles: t.exposeInt('maxFiles', { nullable: true }),
    sniperMode: t.exposeBoolean('sniperMode'),
    aiLabeling: t.exposeBoolean('aiLabeling'),
    enabled: t.exposeBoolean('enabled'),
    nextRunAt: t.expose('nextRunAt', { type: 'DateTime', nullable: true, description: 'Null while disabled' }),
    lastRunAt: t.expose('lastRunAt', { type: 'DateTime', nullable: true }),
    lastJobId: t.exposeInt('lastJobId', { nullable: true, description: 'The scrape job of the latest run' }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'Why the latest run did not start' }),
    runCount: t.exposeInt('runCount'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

builder.prismaObjectField(AccountRef, 'schedules', (t) =>
  t.relatedConnection('schedules', {
    type: ScheduleRef,
    description: "The account's schedules, newest first",
    authScopes: authScopesOf(SCOPE.scrape),
    cursor: 'id',
    ...SCHEDULES_PAGE,
    totalCount: true,
    query: (_args, ctx) => ({ where: schedulePolicy.where(ctx.actor), orderBy: { id: 'desc' } }),
  }),
);

builder.queryField('schedule', (t) =>
  t.prismaField({
    type: ScheduleRef,
    description: "One of the caller's schedules by its integer id",
    authScopes: authScopesOf(SCOPE.scrape),
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.schedules.getOwned(ctx.actor, args.id, query),
  }),
);

export const DeletedScheduleRef = builder.objectRef<{ id: number }>('DeletedSchedule').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id') }),
});
