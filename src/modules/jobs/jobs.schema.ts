// Jobs as callers see them, stated once: the pieces of a polled job's answer (REST names,
// src/platform/wire.ts) and the GraphQL types made from them (src/graphql/answer-object.ts); one job,
// the caller's jobs, and live updates of one job. GET /api/jobs/{job_id} is written by hand
// (rest-shim/routes/jobs.routes.ts): its answer takes one of several shapes.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { defineOperations } from '../../graphql/operation.js';
import { newestFirst, ownedRowQuery, policyNode } from '../../graphql/owned-rows.js';
import { answerEnum, answerFields } from '../../graphql/answer-object.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import type { Asset } from '../../generated/prisma/client.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { assetPolicy, jobPolicy } from './jobs.access.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import type { Context } from '../../graphql/context.js';
import { JOB_STATES } from './jobs.service.js';

const JobStateEnum = answerEnum('JobState', { values: JOB_STATES });

/** A stored file of a completed job as polled (GET /api/jobs/{job_id}). */
export const asset = answerFrom(
  z.object({
    id,
    filename: z.string(),
    url: z.string().describe('where the file was found'),
    type: z.string().describe('image, video or document'),
    size: count.describe('bytes'),
    ai_label: z.string().nullable().describe('comma-separated labels (ai_labeling)'),
    download_url: z.string().describe('GET /files/{job_id}/{filename}'),
    content_type: z.string(),
  }),
  { id: 'databaseId' },
);

export const AssetRef = builder.prismaNode('Asset', {
  ...policyNode(assetPolicy),
  fields: (t) => ({
    ...answerFields(t, asset, {
      download_url: {
        description: 'Absolute URL of the stored file',
        select: { jobId: true, filename: true },
        resolve: (asset: Asset, _args, ctx) => fileUrl(ctx, asset.jobId, asset.filename),
      },
    }),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
  }),
});

export function fileUrl(ctx: Context, jobId: number, filename: string): string {
  return `${ctx.baseUrl}/files/${jobId}/${encodeURIComponent(filename)}`;
}

/** A polled job's progress counts (GET /api/jobs/{job_id}). */
export const jobProgress = z.object({ pages_fetched: count, assets_found: count, assets_stored: count });
/** A polled job's kind and times (GET /api/jobs/{job_id}). */
export const jobTimes = { kind: z.string().describe('scrape, or export.wordpress and export.shopify'), created_at: timestamp, started_at: timestamp.nullable(), finished_at: timestamp.nullable() };
/** The rest of a job's own fields, in the answers' names: what the GraphQL type shares with them. */
const jobOutline = answerFrom(
  z.object({ job_id: id, status: z.enum(JOB_STATES), error: z.string().nullable(), cached_from_job_id: id.nullable(), ...jobTimes }),
  { job_id: 'databaseId', status: 'state' },
);

export const JobRef = builder.prismaNode('Job', {
  ...policyNode(jobPolicy),
  fields: (t) => ({
    ...answerFields(t, jobOutline, {
      error: { description: 'Why the job failed' },
      cached_from_job_id: { description: 'Set when a recent identical job answered this one' },
    }),
    ...answerFields(t, jobProgress),
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

defineOperations({ job: ownedRowQuery(jobPolicy, JobRef, (ctx, actor, id, query) => ctx.services.jobs.getOwned(actor, id, query)) });

builder.prismaObjectField(AccountRef, 'jobs', (t) =>
  t.relatedConnection('jobs', {
    description: "The account's jobs, newest first",
    args: { state: t.arg({ type: JobStateEnum }), kind: t.arg.string() },
    ...newestFirst(jobPolicy, { maxSize: 200, defaultSize: 50 }, (args: { state?: string | null; kind?: string | null }) => ({
      ...(args.state ? { state: args.state } : {}),
      ...(args.kind ? { kind: args.kind } : {}),
    })),
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
