// GraphQL surface of jobs: one job, the caller's jobs, and live updates of one job.
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { assetPolicy, jobPolicy } from './jobs.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import type { Context } from '../../graphql/context.js';
import { JOB_STATES } from './jobs.service.js';

const JobStateEnum = builder.enumType('JobState', { values: JOB_STATES });

export const AssetRef = builder.prismaNode('Asset', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: assetPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: assetPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    filename: t.exposeString('filename'),
    url: t.exposeString('url', { description: 'Where the asset was found' }),
    type: t.exposeString('type', { description: 'image, video or document' }),
    contentType: t.exposeString('contentType'),
    size: t.exposeInt('size', { description: 'Bytes' }),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
    aiLabel: t.exposeString('aiLabel', { nullable: true, description: 'Comma-separated labels (ai_labeling)' }),
    downloadUrl: t.string({
      description: 'Absolute URL of the stored file',
      select: { jobId: true, filename: true },
      resolve: (asset, _args, ctx) => fileUrl(ctx, asset.jobId, asset.filename),
    }),
  }),
});

export function fileUrl(ctx: Context, jobId: number, filename: string): string {
  return `${ctx.baseUrl}/files/${jobId}/${encodeURIComponent(filename)}`;
}

export const JobRef = builder.prismaNode('Job', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: jobPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: jobPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer job_id of the REST API' }),
    kind: t.exposeString('kind'),
    state: t.field({ type: JobStateEnum, resolve: (job) => job.state }),
    pagesFetched: t.exposeInt('pagesFetched'),
    assetsFound: t.exposeInt('assetsFound'),
    assetsStored: t.exposeInt('assetsStored'),
    error: t.exposeString('error', { nullable: true, description: 'Why the job failed' }),
    cachedFromJobId: t.exposeInt('cachedFromJobId', { nullable: true, description: 'Set when a recent identical job answered this one' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    assets: t.relatedConnection('assets', {
      description: 'The stored files, listed once the job has completed (empty before: the progress counts say how far it is)',
      cursor: 'id',
      maxSize: 10_000,
      defaultSize: 100,
      totalCount: true,
      // Polls of a running job would otherwise load every file stored so far, only to leave them out.
      query: () => ({ where: { job: { state: 'completed' } }, orderBy: { id: 'asc' } }),
    }),
  }),
});

builder.queryField('job', (t) =>
  t.prismaField({
    type: JobRef,
    description: "One of the caller's jobs by its integer id",
    authScopes: authScopesOf(SCOPE.scrape),
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.jobs.getOwned(ctx.actor, args.id, query),
  }),
);

builder.prismaObjectField(AccountRef, 'jobs', (t) =>
  t.relatedConnection('jobs', {
    description: "The account's jobs, newest first",
    authScopes: authScopesOf(SCOPE.scrape),
    cursor: 'id',
    maxSize: 200,
    defaultSize: 50,
    totalCount: true,
    args: { state: t.arg({ type: JobStateEnum }), kind: t.arg.string() },
    query: (args, ctx) => ({
      where: { AND: [jobPolicy.where(ctx.actor), { ...(args.state ? { state: args.state } : {}), ...(args.kind ? { kind: args.kind } : {}) }] },
      orderBy: { id: 'desc' },
    }),
  }),
);

builder.subscriptionField('jobUpdated', (t) =>
  t.prismaField({
    type: JobRef,
    description: 'The job now, then at every state or progress change; ends when it completes or fails',
    authScopes: authScopesOf(SCOPE.scrape),
    args: { id: t.arg.int({ required: true }) },
    subscribe: (_root, args, ctx) => jobUpdates(ctx, args.id),
    resolve: (query, _update, args, ctx) => ctx.services.jobs.getOwned(ctx.actor, args.id, query),
  }),
);

const isFinal = (state: string) => state === 'completed' || state === 'failed';

/** Yields at once, then on each published update, and stops after a final state. */
async function* jobUpdates(ctx: Context, jobId: number): AsyncGenerator<{ jobId: number }> {
  await ctx.services.jobs.getOwned(ctx.actor, jobId); // another account's job is a 404
  const updates = ctx.services.events.subscribe('jobUpdates', jobId)[Symbol.asyncIterator]();
  // The first next() starts listening; updates from then on are buffered, so reading the state
  // after it cannot miss a change made in between.
  let pending = updates.next();
  try {
    const now = await ctx.services.jobs.get(jobId);
    yield { jobId };
    if (!now || isFinal(now.state)) return;
    for (;;) {
      const update = await pending;
      if (update.done) return;
      yield { jobId };
      if (isFinal(update.value.state)) return;
      pending = updates.next();
    }
  } finally {
    await updates.return?.();
  }
}
