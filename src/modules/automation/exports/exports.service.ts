// Exports (spec "Automation": POST /api/automation/export/wordpress and /shopify): checks the
// request at the door (inputs, the destination's address, that every media item is the caller's
// and in the library), then records a queued job with one row per item and the destination's
// secret sealed beside it, all in one transaction, and hands the job to the queue. The job
// (exports.job.ts) sends the items; the secret's row goes in the transaction that finishes it.
import type { Database } from '../../../platform/database/database.js';
import type { JobQueue } from '../../../platform/queue/job-queue.js';
import { Conflict, InvalidInput } from '../../../platform/errors.js';
import { parseInput } from '../../../platform/validation.js';
import type { Prisma } from '../../../generated/prisma/client.js';
import type { Actor } from '../../accounts/index.js';
import type { Job, JobsService } from '../../jobs/index.js';
import { mediaItemPolicy } from '../../media/index.js';
import { MASTER_KEY, requireKey } from '../../access/index.js';
import type { CredentialBox } from './credential-box.js';
import { shopifyExportSchema, wordpressExportSchema } from './exports.input.js';

export const WORDPRESS_EXPORT_KIND = 'export.wordpress';
export const SHOPIFY_EXPORT_KIND = 'export.shopify';
export const EXPORT_KINDS = [WORDPRESS_EXPORT_KIND, SHOPIFY_EXPORT_KIND] as const;

export const EXPORT_ITEM_STATES = ['pending', 'exported', 'failed'] as const;

/** What the job row keeps (no secret in it): where the items go. */
export type WordPressJobInput = {
  wp_url: string;
  media_ids: number[];
};
export type ShopifyJobInput = {
  shop: string;
  product_id: string | null;
  media_ids: number[];
};

/** The sealed part. */
export interface WordPressSecret {
  user: string;
  password: string;
}
export interface ShopifySecret {
  token: string;
}

/** Exports send the account's files, with its credentials for another service, to a third party: the master key only. */

export interface ExportsOptions {
  allowHttp: boolean;
}

export class ExportsService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobsService,
    private readonly queue: JobQueue,
    private readonly box: CredentialBox,
    /** Why a URL cannot be fetched, judged without the network (SafeFetcher.refusal); null when it may be tried. */
    private readonly urlRefusal: (url: string) => string | null,
    private readonly options: ExportsOptions,
  ) {}

  async startWordPress(actor: Actor, input: Record<string, unknown>): Promise<Job> {
    requireKey(actor, MASTER_KEY);
    const data = parseInput(wordpressExportSchema, input);
    const site = this.siteAddress(data.wp_url);
    await this.requireLibraryItems(actor, data.media_ids);
    const jobInput: WordPressJobInput = { wp_url: site, media_ids: data.media_ids };
    const secret: WordPressSecret = { user: data.wp_user, password: data.wp_password };
    return this.start(actor, WORDPRESS_EXPORT_KIND, jobInput, secret, data.media_ids);
  }

  async startShopify(actor: Actor, input: Record<string, unknown>): Promise<Job> {
    requireKey(actor, MASTER_KEY);
    const data = parseInput(shopifyExportSchema, input);
    await this.requireLibraryItems(actor, data.media_ids);
    const jobInput: ShopifyJobInput = { shop: data.shop, product_id: data.product_id ?? null, media_ids: data.media_ids };
    const secret: ShopifySecret = { token: data.access_token };
    return this.start(actor, SHOPIFY_EXPORT_KIND, jobInput, secret, data.media_ids);
  }

  /** JobsService.onFinished: the secret goes with the transaction that finishes its job. */
  async forgetCredential(job: Job, tx: Prisma.TransactionClient): Promise<void> {
    if (!(EXPORT_KINDS as readonly string[]).includes(job.kind)) return;
    await tx.exportCredential.deleteMany({ where: { jobId: job.id } });
  }

  /**
   * The site's address as the job will use it: no query, fragment or trailing slash (and no
   * /wp-json, which the client adds). https only, unless EXPORT_ALLOW_HTTP; an address the fetcher
   * would refuse (a private or loopback one) is the caller's 400 now, not a failed job later.
   */
  private siteAddress(text: string): string {
    const url = new URL(text);
    if (url.protocol === 'http:' && !this.options.allowHttp) {
      throw new InvalidInput('wp_url: expected an https:// URL (plain http is refused unless the service sets EXPORT_ALLOW_HTTP=true)', 'wp_url');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidInput('wp_url: expected an https:// URL', 'wp_url');
    if (url.username || url.password) throw new InvalidInput('wp_url: URLs with credentials (user:password@) are not allowed; send wp_user and wp_password', 'wp_url');
    const refusal = this.urlRefusal(url.href);
    if (refusal) throw new InvalidInput(`wp_url: refused: ${refusal}`, 'wp_url');
    const path = url.pathname.replace(/\/+$/, '').replace(/\/wp-json$/i, '');
    return `${url.origin}${path}`;
  }

  /** Every id is one of the caller's items in the library: another account's is a 404 like a missing one. */
  private async requireLibraryItems(actor: Actor, ids: number[]): Promise<void> {
    const rows = await this.db.prisma.mediaItem.findMany({ where: { id: { in: ids }, AND: mediaItemPolicy.where(actor) }, select: { id: true, trashedAt: true } });
    mediaItemPolicy.requireAll(ids, rows.map((row) => row.id));
    const trashed = ids.find((id) => rows.find((row) => row.id === id)?.trashedAt);
    if (trashed !== undefined) throw new Conflict(`media_ids: media item ${trashed} is in the trash; restore it to export it`, 'media_ids');
  }

  private async start(actor: Actor, kind: string, input: Prisma.InputJsonValue, secret: object, mediaIds: number[]): Promise<Job> {
    const job = await this.db.prisma.$transaction(async (tx) => {
      const created = await this.jobs.createIn(tx, actor, kind, input);
      await tx.exportItem.createMany({ data: mediaIds.map((mediaId, position) => ({ jobId: created.id, position, mediaId })) });
      await tx.exportCredential.create({ data: { jobId: created.id, sealed: this.box.seal(created.id, JSON.stringify(secret)) } });
      return created;
    });
    this.jobs.announce(job);
    // Should the queue refuse it, the row goes, and the sealed secret with it (a cascade).
    await this.jobs.enqueueOrWithdraw(this.queue, job);
    return job;
  }
}
