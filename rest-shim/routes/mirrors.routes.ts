// Spec "Platform": POST /api/platform/bulk-mirror (a queued job over a CSV file and/or a list of
// URLs) and GET /api/platform/bulk-mirror/{job_id} (src/modules/mirrors/). The per-URL list
// (`details=true`) is ours: README "Bulk mirror".
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { GetBulkMirrorJobDocument, StartBulkMirrorDocument, type BulkMirrorJobFieldsFragment } from '../generated/operations.js';
import { bulkMirrorSchema, MIRROR_CHECK_STATES } from '../../src/modules/mirrors/mirrors.input.js';
import { BULK_MIRROR_STATUSES } from '../../src/modules/mirrors/index.js';
import { count, id, timestamp } from '../schemas.js';

const jobId = z.string().describe('the job id, as text');
const counts = {
  total_urls: count.describe('distinct URLs after normalisation'),
  matched: count.describe('URLs whose image is a known image object (so far, while pending)'),
  unmatched: count,
  coins_earned: z.number().describe('coins this job paid: 0.5 for each URL it registered first'),
};
const checkEntry = z.object({
  url: z.string(),
  state: z.enum(MIRROR_CHECK_STATES),
  image_object_id: id.nullable(),
  distance: count.nullable().describe('blockhash distance in bits'),
  coins: z.number(),
  reason: z.string().nullable().describe('why unmatched, or why a match earned nothing'),
  checked_at: timestamp.nullable(),
});

function jobJson(job: BulkMirrorJobFieldsFragment) {
  return {
    status: job.status,
    total_urls: job.totalUrls,
    matched: job.matched,
    unmatched: job.unmatched,
    coins_earned: job.coinsEarned,
    job_id: job.jobId,
    checked: job.checked,
    error: job.error ?? null,
    created_at: job.createdAt,
    finished_at: job.finishedAt ?? null,
  };
}

export const mirrorsRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/platform/bulk-mirror',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A bulk mirror job: each URL (a CSV file, one per line or cell, and/or urls) is fetched and matched against the known image objects; 0.5 coins per URL registered first',
    description:
      'Multipart with `file` (CSV: comma-separated, quoted cells, CRLF or LF, a header line without URLs skipped, blank cells ignored; at most 2 MiB) and/or `urls` (a JSON array; JSON text in a form). ' +
      'At most MIRROR_MAX_URLS URLs (default 1,000) counted as sent; duplicates after normalisation (trim, lower-case scheme and host, no fragment) count once. ' +
      'Every URL must be an absolute http(s) URL the service may fetch: any other is a 400 naming it, and nothing is queued. Poll GET /api/platform/bulk-mirror/{job_id}.',
    multipart: { files: ['file'] },
    operation: StartBulkMirrorDocument,
    request: { body: bulkMirrorSchema, form: bulkMirrorSchema.extend({ file: z.file().optional().describe('a CSV of URLs') }) },
    response: z.object({ job_id: jobId, total_urls: counts.total_urls, status: z.literal('pending'), poll_url: z.string().describe('GET it to follow the job') }),
    errors: { 413: 'the CSV is larger than 2 MiB (or the upload than UPLOAD_MAX_BYTES)' },
    successStatus: 202,
    variables: ({ body, files }) => ({ file: files.file, urls: body.urls }),
    shape: (data) => {
      const job = unwrap(data.startBulkMirror);
      return { job_id: job.jobId, total_urls: job.totalUrls, status: 'pending' as const, poll_url: `/api/platform/bulk-mirror/${job.jobId}` };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/platform/bulk-mirror/:job_id',
    auth: 'key',
    key: SCOPE.media,
    summary: "A bulk mirror job: pending while queued or running, then completed (or failed); with details=true, every URL's outcome",
    description: "matched, unmatched and coins_earned count what is checked so far while pending. Another account's job is a 404.",
    operation: GetBulkMirrorJobDocument,
    request: {
      params: z.object({ job_id: jobId }),
      query: z.object({ details: z.boolean({ error: 'expected true or false' }).optional().describe('true adds urls[]: each URL in the order sent, with its outcome') }),
    },
    response: z.object({
      status: z.enum(BULK_MIRROR_STATUSES),
      ...counts,
      job_id: jobId,
      checked: count.describe('matched + unmatched'),
      error: z.string().nullable().describe('why the job failed (failed only)'),
      created_at: timestamp,
      finished_at: timestamp.nullable(),
      urls: z.array(checkEntry).optional().describe('details=true only'),
    }),
    variables: ({ params, query }) => ({ jobId: params.job_id ?? '', details: query.details === true }),
    // A failed job polls fine (200) but reports success false, as GET /api/jobs/{id} does.
    failure: (data) => (data.bulkMirrorJob.__typename === 'QueryBulkMirrorJobSuccess' && data.bulkMirrorJob.data.status === 'failed' ? (data.bulkMirrorJob.data.error ?? 'the bulk mirror job failed') : null),
    shape: (data) => {
      const job = unwrap(data.bulkMirrorJob);
      const urls = job.urls?.map((c) => ({
        url: c.url,
        state: c.state,
        image_object_id: c.imageObjectId ?? null,
        distance: c.distance ?? null,
        coins: c.coins,
        reason: c.reason ?? null,
        checked_at: c.checkedAt ?? null,
      }));
      return { ...jobJson(job), ...(urls ? { urls } : {}) };
    },
  }),
];
