// Stored files of jobs: one file (GET /files/<job_id>/<filename>) and a ZIP of all of a completed
// job's files (GET /download/<job_id>). Only the job's owner reads them; another account's job is
// a 404, like a missing one.
import type { Readable } from 'node:stream';
import type { Database } from '../../platform/database/database.js';
import { Conflict, NotFound } from '../../platform/errors.js';
import type { BlobInfo, BlobStore, ByteRange } from '../../platform/storage/blob-store.js';
import type { ZipEntry } from '../../platform/storage/zip.js';
import type { Actor } from '../accounts/index.js';
import { assetPolicy, jobPolicy } from './jobs.access.js';
import type { Asset } from '../../generated/prisma/client.js';

export interface OpenedFile {
  asset: Asset;
  info: BlobInfo;
  body: Readable;
  range?: { start: number; end: number };
}

export class JobFilesService {
  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
  ) {}

  async asset(actor: Actor, jobId: number, filename: string): Promise<Asset> {
    const asset = await this.db.prisma.asset.findFirst({ where: { jobId, filename, AND: assetPolicy.where(actor) } });
    if (!asset) throw new NotFound(`no file ${filename} in job ${jobId}`);
    return asset;
  }

  /** Opens the file of an asset already read (and owner-checked) with asset(). */
  async open(asset: Asset, range?: ByteRange): Promise<OpenedFile> {
    const blob = await this.blobs.get(asset.storageKey, range);
    if (!blob) throw new NotFound(`the file ${asset.filename} of job ${asset.jobId} is no longer stored`);
    return { asset, ...blob };
  }

  /** Entries for writeZip, opened one at a time as the archive is written. */
  async archiveEntries(actor: Actor, jobId: number): Promise<AsyncIterable<ZipEntry>> {
    const job = await jobPolicy.findOne(actor, jobId, (where) => this.db.prisma.job.findFirst({ where, select: { state: true } }));
    if (job.state !== 'completed') throw new Conflict(`job ${jobId} is ${job.state}; its archive is available once it has completed`);
    const { db, blobs } = this;
    return (async function* () {
      let after = 0;
      for (;;) {
        // Pages of rows, so a job of 10,000 files is never held in memory whole.
        const page = await db.prisma.asset.findMany({ where: { jobId, id: { gt: after } }, orderBy: { id: 'asc' }, take: 500 });
        if (page.length === 0) return;
        for (const asset of page) {
          yield {
            name: asset.filename,
            size: asset.size,
            date: asset.createdAt,
            body: async () => {
              const blob = await blobs.get(asset.storageKey);
              if (!blob) throw new NotFound(`the file ${asset.filename} of job ${jobId} is no longer stored`);
              return blob.body;
            },
          };
        }
        after = page[page.length - 1]!.id;
      }
    })();
  }
}
