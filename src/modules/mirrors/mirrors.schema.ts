// The bulk mirror (media scope) as callers see it, stated once: the answer of a job with its URLs
// one by one (REST names, src/platform/wire.ts) and the GraphQL types made from it
// (src/graphql/answer-object.ts); a job is read by its id, a string as the REST job_id. The
// operations are declared in mirrors.operations.ts. Thin: the rules live in mirrors.service.ts and mirrors.job.ts.
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { count, id, timestamp } from '../../platform/wire.js';
import { ImageObjectRef } from '../image-objects/image-objects.schema.js';
import type { MirrorCheck } from '../../generated/prisma/client.js';
import { fromMinor } from '../ledger/index.js';
import { bulkMirrorPolicy } from './mirrors.access.js';
import { MIRROR_CHECK_STATES } from './mirrors.input.js';
import { BULK_MIRROR_STATUSES, type BulkMirrorView } from './mirrors.service.js';

answerEnum('BulkMirrorStatus', { values: BULK_MIRROR_STATUSES });
const CheckStateEnum = answerEnum('MirrorCheckState', { values: MIRROR_CHECK_STATES });

/** One URL of a job and what its check found. */
const mirrorCheck = z.object({
  url: z.string(),
  state: z.enum(MIRROR_CHECK_STATES),
  image_object_id: id.nullable(),
  distance: count.nullable().describe('blockhash distance in bits'),
  coins: z.number(),
  reason: z.string().nullable().describe('why unmatched, or why a match earned nothing'),
  checked_at: timestamp.nullable(),
});

const MirrorCheckRef = answerObject<MirrorCheck>('MirrorCheck', mirrorCheck, {
  description: 'One URL of a bulk mirror job and what its check found',
  fields: () => ({
    url: { description: 'As stored: trimmed, scheme and host in lower case, no fragment' },
    image_object_id: { description: 'The id of the known image object the URL serves (matched only)', resolve: (c: MirrorCheck) => c.objectId },
    distance: { description: 'Blockhash distance to that object in bits (0 to 31)' },
    coins: { description: 'Coins this URL earned (0.5 for the first registration of the URL anywhere, else 0)', resolve: (c: MirrorCheck) => fromMinor(c.coins) },
    reason: { description: 'Why it is unmatched, or why a match earned nothing' },
  }),
  more: (t) => ({
    imageObject: t.field({
      type: ImageObjectRef,
      nullable: true,
      description: 'The known image object the URL serves (matched only)',
      resolve: (c, _a, ctx) => (c.objectId === null ? null : ctx.services.imageObjects.byId(c.objectId)),
    }),
  }),
});

/** A job as GET /api/platform/bulk-mirror/{job_id} answers it (urls with details=true). */
export const bulkMirrorJob = z.object({
  status: z.enum(BULK_MIRROR_STATUSES),
  total_urls: count.describe('distinct URLs after normalisation'),
  matched: count.describe('URLs whose image is a known image object (so far, while pending)'),
  unmatched: count,
  coins_earned: z.number().describe('coins this job paid: 0.5 for each URL it registered first'),
  job_id: z.string().describe('the job id, as text'),
  checked: count.describe('matched + unmatched'),
  error: z.string().nullable().describe('why the job failed (failed only)'),
  created_at: timestamp,
  finished_at: timestamp.nullable(),
  urls: z.array(mirrorCheck).optional().describe('details=true only'),
});

export const BulkMirrorJobRef = answerObject<BulkMirrorView>('BulkMirrorJob', bulkMirrorJob, {
  description: 'A bulk mirror job: its URLs fetched and matched against the known image objects',
  authScopes: bulkMirrorPolicy.authScopes,
  fields: (t) => ({
    job_id: { description: 'The job id, as text (also the id of its row in `job`)', resolve: (v: BulkMirrorView) => String(v.jobId) },
    status: { description: 'pending while queued or running, then completed (or failed)' },
    urls: t.field({
      type: [MirrorCheckRef],
      description: 'The URLs in the order sent, optionally of one state',
      args: { state: t.arg({ type: CheckStateEnum }) },
      resolve: (v, a, ctx) => ctx.services.mirrors.checks({ id: v.jobId }, { state: a.state }),
    }),
  }),
});
