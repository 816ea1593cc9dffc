// Spec "Scraping": poll a job, fetch its files one by one or as one ZIP (src/modules/jobs/). The poll
// stays written here rather than declared: its answer is one of four shapes by the job's state and
// kind (a union: a declaration's answer is one object whose keys select the fields), and its
// document passes an argument inside the selection (assets(first)); a declaration would need two
// options for this one row and a `shape` that still picks the shape by hand.
import { z } from 'zod';
import { defineRoute, defineStreamRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { GetJobDocument, type GetJobQuery } from '../generated/operations.js';
import { sendJobFile, sendJobArchive } from '../../src/http/files.js';
import { objectId } from '../../src/platform/validation.js';
import { count, id } from '../schemas.js';
import { RUNNING_JOB_STATES } from '../../src/modules/jobs/jobs.service.js';
import { jobExport } from '../../src/modules/automation/exports/exports.schema.js';
import { asset, jobProgress, jobTimes } from '../../src/modules/jobs/jobs.schema.js';
import { answerAs } from '../derive.js';

const jobParams = z.object({ job_id: objectId.describe('the job id') });

/** Export jobs only: their items' outcomes (README "Exports"). */
const exportField = { export: jobExport.optional().describe('export jobs only: where the items go and how each one went') };

/** A polled job: while it runs, once it completed, or failed (then with `success: false`, still HTTP 200). */
const jobResponse = z.union([
  z.object({ status: z.enum(RUNNING_JOB_STATES), job_id: id, message: z.string(), progress: jobProgress, ...jobTimes, ...exportField }),
  z.object({ status: z.literal('completed'), job_id: id, export: jobExport, ...jobTimes }).describe('a completed export job'),
  z.object({
    status: z.literal('completed'),
    job_id: id,
    assets: z.object({ count, items: z.array(asset) }),
    download_url: z.string().describe('a ZIP of all the files: GET /download/{job_id}'),
    progress: jobProgress,
    cached_from_job_id: id.nullable().describe('the earlier identical job whose files these are'),
    ...jobTimes,
  }),
  z.object({ status: z.literal('failed'), job_id: id, error: z.string(), progress: jobProgress, ...jobTimes, ...exportField }),
]);

/** Job as polled (spec "Job result"); success is false only for a failed job. */
function jobJson(job: NonNullable<GetJobQuery['job']>, downloadUrl: string) {
  const job_id = job.databaseId;
  const progress = answerAs(jobProgress, job);
  const times = answerAs(z.object(jobTimes), job);
  const exported = job.export ? { export: answerAs(jobExport, job.export) } : {};
  if (job.state === 'failed') return { success: false, status: job.state, job_id, error: job.error ?? 'the job failed', progress, ...times, ...exported };
  if (job.state !== 'completed') return { success: true, status: job.state, job_id, message: `the job is ${job.state}; poll again in 2 to 5 seconds`, progress, ...times, ...exported };
  if (job.export) return { success: true, status: job.state, job_id, export: answerAs(jobExport, job.export), ...times };
  return {
    success: true,
    status: job.state,
    job_id,
    assets: { count: job.assets.totalCount, items: job.assets.edges.map(({ node }) => answerAs(asset, node)) },
    download_url: downloadUrl,
    progress,
    cached_from_job_id: job.cachedFromJobId,
    ...times,
  };
}

export const jobsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/jobs/:job_id',
    auth: 'key',
    key: SCOPE.scrape,
    summary: 'A job: status and progress; assets with download URLs once completed',
    description: 'A failed job answers HTTP 200 with `success: false`, `status: "failed"` and `error` (the poll itself worked).',
    operation: GetJobDocument,
    request: { params: jobParams },
    response: jobResponse,
    variables: ({ params }) => ({ id: pathId(params, 'job', 'job_id'), first: 10_000 }),
    shape: (data, input) => {
      const { success: _success, ...rest } = jobJson(data.job, `${input.baseUrl}/download/${data.job.databaseId}`);
      return rest;
    },
    failure: (data) => (data.job.state === 'failed' ? (data.job.error ?? 'the job failed') : null),
  }),
  defineStreamRoute({
    method: 'GET',
    path: '/files/:job_id/:filename',
    auth: 'key',
    key: SCOPE.scrape,
    summary: 'One stored file of a job (Range, ETag and If-None-Match supported)',
    request: { params: jobParams.extend({ filename: z.string().describe('a filename from the job\'s assets') }) },
    produces: [
      { status: 200, description: 'The file, with its own content type', contentTypes: ['*/*'], headers: { ETag: 'strong entity tag', 'Accept-Ranges': 'bytes' } },
      { status: 206, description: 'The requested byte range', contentTypes: ['*/*'], headers: { 'Content-Range': 'bytes start-end/size' } },
      { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
    ],
    errors: { 416: 'the Range lies outside the file' },
    handle: (context, { params }, req, res) => sendJobFile(context, pathId(params, 'job', 'job_id'), params.filename ?? '', req, res),
  }),
  defineStreamRoute({
    method: 'GET',
    path: '/download/:job_id',
    auth: 'key',
    key: SCOPE.scrape,
    summary: "A ZIP of all of a completed job's files, streamed",
    request: { params: jobParams },
    produces: [{ status: 200, description: 'A ZIP archive of the files', contentTypes: ['application/zip'], headers: { 'Content-Disposition': 'attachment; filename="job-<id>.zip"' } }],
    errors: { 409: 'the job has not completed yet' },
    handle: (context, { params }, _req, res) => sendJobArchive(context, pathId(params, 'job', 'job_id'), res),
  }),
];
