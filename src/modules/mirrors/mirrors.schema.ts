// GraphQL types of the bulk mirror (media scope): a job, read by its id (a string, as the REST
// job_id), with its URLs one by one. The operations are declared in mirrors.operations.ts. Thin: the
// rules live in mirrors.service.ts and mirrors.job.ts.
import { builder } from '../../graphql/builder.js';
import { ImageObjectRef } from '../image-objects/image-objects.schema.js';
import type { MirrorCheck } from '../../generated/prisma/client.js';
import { fromMinor } from '../ledger/index.js';
import { bulkMirrorPolicy } from './mirrors.access.js';
import { MIRROR_CHECK_STATES, type MirrorCheckState } from './mirrors.input.js';
import { BULK_MIRROR_STATUSES, type BulkMirrorView } from './mirrors.service.js';

const StatusEnum = builder.enumType('BulkMirrorStatus', { values: BULK_MIRROR_STATUSES });
const CheckStateEnum = builder.enumType('MirrorCheckState', { values: MIRROR_CHECK_STATES });

const MirrorCheckRef = builder.objectRef<MirrorCheck>('MirrorCheck').implement({
  description: 'One URL of a bulk mirror job and what its check found',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'As stored: trimmed, scheme and host in lower case, no fragment' }),
    state: t.field({ type: CheckStateEnum, resolve: (c) => c.state as MirrorCheckState }),
    imageObjectId: t.exposeInt('objectId', { nullable: true, description: 'The id of the known image object the URL serves (matched only)' }),
    imageObject: t.field({
      type: ImageObjectRef,
      nullable: true,
      description: 'The known image object the URL serves (matched only)',
      resolve: (c, _a, ctx) => (c.objectId === null ? null : ctx.services.imageObjects.byId(c.objectId)),
    }),
    distance: t.exposeInt('distance', { nullable: true, description: 'Blockhash distance to that object in bits (0 to 31)' }),
    coins: t.float({ description: 'Coins this URL earned (0.5 for the first registration of the URL anywhere, else 0)', resolve: (c) => fromMinor(c.coins) }),
    reason: t.exposeString('reason', { nullable: true, description: 'Why it is unmatched, or why a match earned nothing' }),
    checkedAt: t.expose('checkedAt', { type: 'DateTime', nullable: true }),
  }),
});

export const BulkMirrorJobRef = builder.objectRef<BulkMirrorView>('BulkMirrorJob').implement({
  description: 'A bulk mirror job: its URLs fetched and matched against the known image objects',
  authScopes: bulkMirrorPolicy.authScopes,
  fields: (t) => ({
    jobId: t.string({ description: 'The job id, as text (also the id of its row in `job`)', resolve: (v) => String(v.jobId) }),
    status: t.field({ type: StatusEnum, description: 'pending while queued or running, then completed (or failed)', resolve: (v) => v.status }),
    totalUrls: t.exposeInt('totalUrls', { description: 'Distinct URLs after normalisation' }),
    checked: t.exposeInt('checked'),
    matched: t.exposeInt('matched'),
    unmatched: t.exposeInt('unmatched'),
    coinsEarned: t.exposeFloat('coinsEarned'),
    error: t.exposeString('error', { nullable: true, description: 'Why the job failed (failed only)' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    finishedAt: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    urls: t.field({
      type: [MirrorCheckRef],
      description: 'The URLs in the order sent, optionally of one state',
      args: { state: t.arg({ type: CheckStateEnum }) },
      resolve: (v, a, ctx) => ctx.services.mirrors.checks({ id: v.jobId }, { state: a.state }),
    }),
  }),
});
