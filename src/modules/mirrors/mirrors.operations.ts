// The bulk mirror operations, each declared once (docs/architecture.md): spec "Platform" POST
// /api/platform/bulk-mirror (a queued job over a CSV file and/or a list of URLs) and GET
// /api/platform/bulk-mirror/{job_id}. The per-URL list (`details=true`) is ours: README "Bulk
// mirror". The rules live in mirrors.service.ts and mirrors.job.ts.
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { answerFrom } from '../../platform/wire.js';
import { bulkMirrorPolicy } from './mirrors.access.js';
import { bulkMirrorJob, BulkMirrorJobRef } from './mirrors.schema.js';
import { bulkMirrorSchema } from './mirrors.input.js';

export const mirrorsOperations = defineOperations({
  startBulkMirror: defineMutation({
    description:
      'Queues a job that fetches each URL (a CSV file, one URL per line or cell, and/or a list), matches its image against the known image objects, ' +
      'registers each match as a mirror and pays the bulk mirror rate once per URL ever',
    key: bulkMirrorPolicy.key,
    input: bulkMirrorSchema.extend({ file: z.file().optional().describe('a CSV of URLs') }),
    output: BulkMirrorJobRef,
    run: async ({ ctx, actor, input }) => ctx.services.mirrors.start(actor, { urls: input.urls, file: input.file ? { body: Buffer.from(await input.file.arrayBuffer()) } : null }),
    rest: {
      route: 'POST /api/platform/bulk-mirror',
      summary: 'A bulk mirror job: each URL (a CSV file, one per line or cell, and/or urls) is fetched and matched against the known image objects; 0.5 coins per URL registered first',
      description:
        'Multipart with `file` (CSV: comma-separated, quoted cells, CRLF or LF, a header line without URLs skipped, blank cells ignored; at most 2 MiB) and/or `urls` (a JSON array; JSON text in a form). ' +
        'At most MIRROR_MAX_URLS URLs (default 1,000) counted as sent; duplicates after normalisation (trim, lower-case scheme and host, no fragment) count once. ' +
        'Every URL must be an absolute http(s) URL the service may fetch: any other is a 400 naming it, and nothing is queued. Poll GET /api/platform/bulk-mirror/{job_id}.',
      form: { files: ['file'], json: true },
      response: answerFrom(
        bulkMirrorJob.pick({ job_id: true, total_urls: true }).extend({ status: z.literal('pending'), poll_url: z.string().describe('GET it to follow the job') }),
        { status: null, poll_url: null },
      ),
      shape: (answer) => ({ ...answer, status: 'pending', poll_url: `/api/platform/bulk-mirror/${answer.job_id as string}` }),
      errors: { 413: 'the CSV is larger than 2 MiB (or the upload than UPLOAD_MAX_BYTES)' },
      successStatus: 202,
    },
  }),
  bulkMirrorJob: defineQuery({
    description: "One of the caller's bulk mirror jobs (another account's is not found)",
    key: bulkMirrorPolicy.key,
    input: bulkMirrorJob.pick({ job_id: true }),
    output: BulkMirrorJobRef,
    run: ({ ctx, actor, input }) => ctx.services.mirrors.get(actor, input.job_id),
    rest: {
      route: 'GET /api/platform/bulk-mirror/:job_id',
      pathFields: ['job_id'],
      operationName: 'GetBulkMirrorJob',
      summary: "A bulk mirror job: pending while queued or running, then completed (or failed); with details=true, every URL's outcome",
      description: "matched, unmatched and coins_earned count what is checked so far while pending. Another account's job is a 404.",
      fragment: 'BulkMirrorJob',
      include: {
        flags: z.object({ details: z.boolean({ error: 'expected true or false' }).optional().describe('true adds urls[]: each URL in the order sent, with its outcome') }),
        fields: { urls: 'details' },
      },
      // A failed job polls fine (200) but reports success false, as GET /api/jobs/{id} does.
      failure: (result) => {
        const job = result as { status: string; error: string | null };
        return job.status === 'failed' ? (job.error ?? 'the bulk mirror job failed') : null;
      },
    },
  }),
});
