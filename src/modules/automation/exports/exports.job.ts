// The export jobs' handler, run by whichever process claims the job: it opens the sealed secret,
// sends the items not yet exported (a run after a crash skips those an earlier try finished),
// a few at a time, and records each item's outcome as it comes. A destination that refuses the
// whole export (credentials, a frozen shop, an unreachable site) stops it: the items not sent yet
// fail with that reason. The job completes when at least one item was exported and fails otherwise.
import type { Database } from '../../../platform/database/database.js';
import { readBounded, type BlobStore } from '../../../platform/storage/blob-store.js';
import type { Logger } from '../../../platform/logger.js';
import { AppError, ErrorCode } from '../../../platform/errors.js';
import type { ExportItem, MediaItem } from '../../../generated/prisma/client.js';
import type { Job, JobHandler } from '../../jobs/index.js';
import type { CredentialBox } from './credential-box.js';
import { DestinationRefused, ItemFailed, type RemoteFile } from './retry.js';

/** Sends one item; throws ItemFailed or DestinationRefused when it cannot. */
export type SendItem = (item: MediaItem, signal: AbortSignal) => Promise<{ remoteId: string; remoteUrl: string | null }>;

/** What a destination does with a job: checks before the first item (may refuse), then sends items. */
export interface Destination {
  prepare?(signal: AbortSignal): Promise<void>;
  send: SendItem;
}

/** Builds a destination from the job's input and its opened secret (JSON text). */
export type DestinationFactory = (job: Job, secret: string) => Destination;

/** A failed export job: the message is the job's `error`. */
export class ExportFailed extends AppError {
  constructor(message: string) {
    super(message, 502, ErrorCode.ExportFailed);
  }
}

export const CREDENTIALS_GONE =
  'the credentials of this export are no longer held (they are kept, sealed, only while the job waits and runs, and dropped when it ends); start the export again';
const CREDENTIALS_UNREADABLE = 'the credentials of this export cannot be opened with the service\'s EXPORT_SECRET_KEY (was it changed?); start the export again';

export interface ExportJobDependencies {
  db: Database;
  blobs: BlobStore;
  box: CredentialBox;
  logger: Logger;
  concurrency: number;
}

export function createExportHandler(deps: ExportJobDependencies, destinationFor: DestinationFactory): JobHandler {
  return async (job, context) => {
    const credential = await deps.db.prisma.exportCredential.findUnique({ where: { jobId: job.id } });
    if (!credential) throw new ExportFailed(CREDENTIALS_GONE);
    const secret = deps.box.open(job.id, credential.sealed);
    if (secret === null) throw new ExportFailed(CREDENTIALS_UNREADABLE);
    const destination = destinationFor(job, secret);

    const items = await deps.db.prisma.exportItem.findMany({ where: { jobId: job.id, status: { not: 'exported' } }, orderBy: { position: 'asc' } });
    let refused: string | null = null;
    try {
      await destination.prepare?.(context.signal);
    } catch (error) {
      refused = refusal(error);
    }

    let next = 0;
    const worker = async () => {
      while (next < items.length && !context.signal.aborted) {
        const item = items[next++]!;
        if (refused !== null) {
          await record(deps.db, item, { status: 'failed', error: `not sent: ${refused}` });
          continue;
        }
        try {
          const media = await libraryItem(deps.db, job.accountId, item.mediaId);
          const sent = await destination.send(media, context.signal);
          await record(deps.db, item, { status: 'exported', remoteId: sent.remoteId, remoteUrl: sent.remoteUrl, error: null });
        } catch (error) {
          if (context.signal.aborted) return; // the lease was lost: whoever holds the job now sends it
          if (error instanceof DestinationRefused) refused ??= error.message;
          const message = error instanceof DestinationRefused ? error.message : itemMessage(error, deps.logger, job.id);
          const remote: Partial<RemoteFile> = error instanceof ItemFailed && error.remote ? error.remote : {};
          await record(deps.db, item, { status: 'failed', error: message, ...remote });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(deps.concurrency, Math.max(1, items.length)) }, worker));
    if (context.signal.aborted) return;

    const counts = await deps.db.prisma.exportItem.groupBy({ by: ['status'], where: { jobId: job.id }, _count: true });
    const exported = counts.find((c) => c.status === 'exported')?._count ?? 0;
    if (exported === 0) {
      const first = await deps.db.prisma.exportItem.findFirst({ where: { jobId: job.id, status: 'failed' }, orderBy: { position: 'asc' } });
      throw new ExportFailed(`no item was exported: ${refused ?? first?.error ?? 'nothing to send'}`);
    }
  };
}

/** The item as it is now, still the account's and in its library. */
async function libraryItem(db: Database, accountId: number, mediaId: number): Promise<MediaItem> {
  const media = await db.prisma.mediaItem.findFirst({ where: { id: mediaId, accountId, trashedAt: null } });
  if (!media) throw new ItemFailed(`media item ${mediaId} is no longer in the library (trashed or purged after the export was requested)`);
  return media;
}

async function record(db: Database, item: ExportItem, data: { status: string; remoteId?: string | null; remoteUrl?: string | null; error?: string | null }): Promise<void> {
  await db.prisma.exportItem.update({ where: { id: item.id }, data });
}

function refusal(error: unknown): string {
  if (error instanceof DestinationRefused || error instanceof ItemFailed) return error.message;
  throw error;
}

function itemMessage(error: unknown, logger: Logger, jobId: number): string {
  if (error instanceof ItemFailed || error instanceof AppError) return error.message;
  logger.error({ err: error, jobId }, 'exporting an item failed unexpectedly');
  return 'sending this item failed unexpectedly; see the service log';
}

/** The whole stored file of an item (uploads are at most UPLOAD_MAX_BYTES). */
export async function readFile(blobs: BlobStore, media: MediaItem): Promise<Buffer> {
  const blob = await blobs.get(media.storageKey);
  if (!blob) throw new ItemFailed(`the file of media item ${media.id} is no longer stored`);
  return (await readBounded(blob.body, Number.POSITIVE_INFINITY))!;
}
