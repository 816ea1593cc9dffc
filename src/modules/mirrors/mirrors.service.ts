// Bulk mirror (spec "Platform": POST /api/platform/bulk-mirror, GET /api/platform/bulk-mirror/{job_id})
// and the check behind POST /api/media/mirror. A bulk mirror is checked at the door (every URL an
// http(s) one the fetcher may try, at most MIRROR_MAX_URLS), de-duplicated, and recorded as a queued
// job with one row per URL, in one transaction; the job (mirrors.job.ts) fetches and matches them.
import type { Database } from '../../platform/database/database.js';
import { Conflict, InvalidInput } from '../../platform/errors.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import { parseInput } from '../../platform/validation.js';
import type { BulkMirror, Job, MediaItem, MirrorCheck } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import type { JobsService } from '../jobs/index.js';
import { compareImages, SAME_OBJECT_MAX_DISTANCE } from '../image-objects/index.js';
import { fromMinor } from '../ledger/index.js';
import { bulkMirrorPolicy } from './mirrors.access.js';
import { bulkMirrorSchema, normaliseUrl, urlsInCsv, type MirrorCheckState, type SentUrl } from './mirrors.input.js';
import type { ImageAtUrl } from './image-at-url.js';
import type { MirrorsConfig } from './mirrors.settings.js';

export const BULK_MIRROR_JOB_KIND = 'bulk_mirror';

/** The spec's states (pending, completed) and ours: failed, when the job itself failed. */
export const BULK_MIRROR_STATUSES = ['pending', 'completed', 'failed'] as const;
export type BulkMirrorStatus = (typeof BULK_MIRROR_STATUSES)[number];

export interface BulkMirrorView {
  jobId: number;
  status: BulkMirrorStatus;
  totalUrls: number;
  /** URLs checked so far (matched + unmatched). */
  checked: number;
  matched: number;
  unmatched: number;
  /** Coins this job paid (0.5 per image object the account registered its first mirror of, not its own or plain). */
  coinsEarned: number;
  /** Why the job failed (failed only). */
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface MirrorsServiceDependencies {
  db: Database;
  jobs: JobsService;
  queue: JobQueue;
  images: ImageAtUrl;
  /** Why a URL cannot be fetched, judged without the network (SafeFetcher.refusal); null when it may be tried. */
  urlRefusal: (url: string) => string | null;
  settings: MirrorsConfig;
}

export class MirrorsService {
  constructor(private readonly deps: MirrorsServiceDependencies) {}

  /** POST /api/platform/bulk-mirror: the queued job, answered as pending. */
  async start(actor: Actor, input: { urls?: unknown; file?: { body: Buffer } | null }): Promise<BulkMirrorView> {
    bulkMirrorPolicy.checkKey(actor);
    const { urls = [] } = parseInput(bulkMirrorSchema, { urls: input.urls ?? undefined });
    const field = input.file ? 'file' : 'urls';
    if (!input.file && urls.length === 0) {
      throw new InvalidInput('file or urls is required: a CSV file (multipart field "file") or a JSON array of URLs ("urls")', 'urls');
    }
    const sent: SentUrl[] = [...(input.file ? urlsInCsv(input.file.body) : []), ...urls.map((text, i) => ({ text, where: `urls.${i}` }))];
    if (sent.length === 0) throw new InvalidInput('file: the CSV holds no URL', 'file');
    const { maxUrls } = this.deps.settings;
    if (sent.length > maxUrls) throw new InvalidInput(`${field}: expected at most ${maxUrls.toLocaleString('en-US')} URLs per request; this one has ${sent.length.toLocaleString('en-US')}`, field);
    const unique = [...new Set(sent.map((entry) => this.checkedUrl(entry)))];

    const job = await this.deps.db.prisma.$transaction(async (tx) => {
      const created = await this.deps.jobs.createIn(tx, actor, BULK_MIRROR_JOB_KIND, { total_urls: unique.length });
      await tx.bulkMirror.create({ data: { id: created.id, accountId: actor.accountId, totalUrls: unique.length } });
      await tx.mirrorCheck.createMany({ data: unique.map((url, position) => ({ bulkMirrorId: created.id, position, url })) });
      return created;
    });
    this.deps.jobs.announce(job);
    // Should the queue refuse it, the job row goes, and its URLs with it (a cascade).
    await this.deps.jobs.enqueueOrWithdraw(this.deps.queue, job);
    return viewOf(job, unique.length, []);
  }

  /** GET /api/platform/bulk-mirror/{job_id}: the caller's job (another account's, or any other text, is a 404). */
  async get(actor: Actor, jobIdText: string): Promise<BulkMirrorView> {
    const id = /^\d{1,10}$/.test(jobIdText) ? Number(jobIdText) : NaN;
    if (!Number.isSafeInteger(id) || id < 1 || id > 2_147_483_647) {
      bulkMirrorPolicy.checkKey(actor);
      return bulkMirrorPolicy.notFound(JSON.stringify(jobIdText.slice(0, 40)));
    }
    const row = await bulkMirrorPolicy.findOne(actor, id, (where) => this.deps.db.prisma.bulkMirror.findFirst({ where, include: { job: true } }));
    const counts = await this.deps.db.prisma.mirrorCheck.groupBy({ by: ['state'], where: { bulkMirrorId: id }, _count: { _all: true }, _sum: { coins: true } });
    return viewOf(row.job, row.totalUrls, counts.map((c) => ({ state: c.state as MirrorCheckState, count: c._count._all, coins: c._sum.coins ?? 0n })));
  }

  /** The URLs of a job the caller has read (through `get`), in the order sent. */
  async checks(bulkMirror: Pick<BulkMirror, 'id'>, options: { state?: MirrorCheckState | null } = {}): Promise<MirrorCheck[]> {
    return this.deps.db.prisma.mirrorCheck.findMany({ where: { bulkMirrorId: bulkMirror.id, ...(options.state ? { state: options.state } : {}) }, orderBy: { position: 'asc' } });
  }

  /**
   * POST /api/media/mirror's check (MediaService.useMirrorCheck): the image at the URL is the item's
   * own photo by the same-image rule (same bytes; or, unless either is low-information, within the
   * same-object blockhash distance); a 400 naming `url` otherwise.
   */
  async checkMediaMirror(item: MediaItem, url: string): Promise<void> {
    if (item.kind !== 'image' || !item.blockhash) {
      throw new Conflict(`media item ${item.id} is a ${item.kind}, not an image: only an image's mirror can be checked against its hashes`, 'media_id');
    }
    const refusal = this.deps.urlRefusal(url);
    if (refusal) throw new InvalidInput(`url: refused: ${refusal}`, 'url');
    let image;
    try {
      image = await this.deps.images.read(url);
    } catch (error) {
      if (error instanceof Error && 'field' in error && error.field === 'url') throw new InvalidInput(`url: ${error.message}`, 'url');
      throw error;
    }
    const { same, distance, exactOnly } = compareImages(image, { sha256: item.sha256, blockhash: item.blockhash, lowInformation: item.lowInformation });
    if (same) return;
    const why = exactOnly
      ? 'its bytes differ, and a plain image (flat, a gradient, almost blank or tiny) is the same photo only by its exact bytes'
      : `blockhash distance ${distance} of 256 bits; the same photo is within ${SAME_OBJECT_MAX_DISTANCE}`;
    throw new InvalidInput(`url: the image at this URL is not the same photo as media item ${item.id} (${why})`, 'url');
  }

  /** A sent URL as stored: normalised, and one the fetcher may try (a 400 naming where it was otherwise). */
  private checkedUrl(entry: SentUrl): string {
    const field = entry.where.startsWith('file') ? 'file' : entry.where;
    const normal = normaliseUrl(entry.text);
    if ('problem' in normal) throw new InvalidInput(`${entry.where}: ${normal.problem}`, field);
    const refusal = this.deps.urlRefusal(normal.url);
    if (refusal) throw new InvalidInput(`${entry.where}: refused: ${refusal}`, field);
    return normal.url;
  }
}

function statusOf(job: Pick<Job, 'state'>): BulkMirrorStatus {
  return job.state === 'completed' ? 'completed' : job.state === 'failed' ? 'failed' : 'pending';
}

function viewOf(job: Job, totalUrls: number, counts: Array<{ state: MirrorCheckState; count: number; coins: bigint }>): BulkMirrorView {
  const of = (state: MirrorCheckState) => counts.find((c) => c.state === state);
  const matched = of('matched')?.count ?? 0;
  const unmatched = of('unmatched')?.count ?? 0;
  const coins = counts.reduce((sum, c) => sum + c.coins, 0n);
  return {
    jobId: job.id,
    status: statusOf(job),
    totalUrls,
    checked: matched + unmatched,
    matched,
    unmatched,
    coinsEarned: fromMinor(Number(coins)),
    error: job.state === 'failed' ? (job.error ?? 'the job failed') : null,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}
