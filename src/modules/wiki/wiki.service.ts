// The image wiki (spec "Wiki"): subjects proposed by anyone and reviewed by the operator, photos of
// them (each an image object) that the community verifies by vote, and the paid query over the
// verified ones. Every coin moves through the rewards service: the creator's 10 on approval, 0.5 per
// vote, the contributor's 5 once a photo is verified; the paid query's credit through the ledger.
//
// Verification: a photo is verified by WIKI_CONFIRMATIONS confirmations (default 3) and rejected by
// WIKI_REJECTIONS rejections, each from a distinct account other than its contributor. A vote and
// the count it moves are one transaction, and the move out of `pending` is guarded by the status,
// so votes racing across the threshold decide once and pay the contributor once.
//
// Confidence of a verified photo, 0 to 1: 0.7 x the share of confirmations among its votes, plus
// 0.3 x vision's agreement with the subject (1 when the labels, OCR words or caption name a word of
// the subject's name or category, 0.5 when no vision provider could look, 0 when it saw something
// else; a word only read in the photo by OCR does not count, as for community tags). Three confirmations and no rejection, with vision agreeing: 1.0; without vision: 0.85.
import type { z } from 'zod';
import type { WikiMedia, WikiSubject } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { pageAndTotal } from '../../platform/database/page-and-total.js';
import { AppError, Conflict, Forbidden, InvalidInput, NotFound } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import { storageKeyVersion, type UrlSigner } from '../../platform/url-signer.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { confirmTags, ocrWords, showsPicture, slugify, type Analyzer } from '../community/index.js';
import { isLowInformation, type ImageObjectsService } from '../image-objects/index.js';
import { LedgerAction, type Balance, type CreditsService, type LedgerService, type RewardsService } from '../ledger/index.js';
import { fetchImageBytes, fingerprintOf, processSharedImage, publicDerivative } from '../images/index.js';
import type { FollowsService } from './follows.service.js';
import { wikiPhotoPolicy, wikiSubjectPolicy } from './wiki.access.js';
import type { WikiSettings } from './wiki.settings.js';
import { contributeSchema, createSubjectSchema, listSubjectsSchema, queueSchema, querySchema, reviewListSchema, voteSchema, type Vote } from './wiki.input.js';

export type { WikiMedia, WikiSubject };

export type { WikiSettings };

export interface WikiDeps {
  db: Database;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  imageObjects: ImageObjectsService;
  rewards: RewardsService;
  credits: CreditsService;
  ledger: LedgerService;
  signer: UrlSigner;
  logger: Logger;
  analyze: Analyzer | null;
  limits: { maxBytes: number; maxPixels: number };
  settings: WikiSettings;
}

export type SubjectWithCount = WikiSubject & { verifiedCount: number };

export interface VoteResult extends Balance {
  media: WikiMedia;
  coinsEarned: number;
  /** This vote moved the photo out of pending. */
  decided: boolean;
}

export interface QueryResult {
  subject: WikiSubject;
  media: WikiMedia[];
  creditsCharged: number;
  creditsBalance: number;
}

export const WIKI_FILE_KINDS = ['photos', 'featured'] as const;
export type WikiFileKind = (typeof WIKI_FILE_KINDS)[number];

export function wikiFilePath(kind: WikiFileKind, id: number): string {
  return `/wiki/${kind}/${id}`;
}

/** The longest side of a wiki photo's public file. */
export const WIKI_PHOTO_MAX_SIDE = 2048;

export class WikiService {
  private followers: Pick<FollowsService, 'announce'> | undefined;

  constructor(private readonly deps: WikiDeps) {}

  /** Followers hear of newly verified photos from here on (src/services.ts wires it). */
  useFollowers(followers: Pick<FollowsService, 'announce'>): void {
    this.followers = followers;
  }

  get settings(): WikiSettings {
    return this.deps.settings;
  }

  /** A signed link (no key, no expiry) to a photo's public file or a subject's featured image. */
  fileUrl(kind: WikiFileKind, id: number, storageKey: string): string {
    return this.deps.signer.sign(wikiFilePath(kind, id), { v: storageKeyVersion(storageKey) });
  }

  /** Opens a file behind a signed link: the signature over kind and id is the capability. */
  async openSigned(kindText: string, idText: string, query: Record<string, unknown>) {
    const { id, kind } = this.deps.signer.verifyFileLink({ id: idText, kind: kindText, query }, WIKI_FILE_KINDS, wikiFilePath);
    const key =
      kind === 'photos'
        ? (await this.deps.db.prisma.wikiMedia.findFirst({ where: { id, status: { not: 'rejected' } }, select: { storageKey: true } }))?.storageKey
        : (await this.deps.db.prisma.wikiSubject.findFirst({ where: { id, status: { not: 'rejected' } }, select: { featuredKey: true } }))?.featuredKey;
    if (!key) throw new NotFound(`no wiki ${kind === 'photos' ? 'photo' : 'featured image'} ${id}`);
    if (query.v !== storageKeyVersion(key)) throw new Forbidden('this link is for an earlier file');
    const blob = await this.deps.blobs.get(key);
    if (!blob) throw new NotFound(`the file of wiki ${kind} ${id} is no longer stored`);
    return blob;
  }

  /** GET /api/wiki/subjects (no key): approved subjects with their verified photo counts. */
  async listSubjects(input: z.input<typeof listSubjectsSchema>): Promise<{ subjects: SubjectWithCount[]; total: number; limit: number; offset: number }> {
    const { q, category, verified, sort, limit, offset } = parseInput(listSubjectsSchema, input);
    const where = [`s."status" = 'approved'`];
    const params: unknown[] = [];
    if (q) {
      params.push(q);
      where.push(`s."search" @@ plainto_tsquery('simple', $${params.length})`);
    }
    if (category) {
      params.push(category);
      where.push(`s."category" = $${params.length}`);
    }
    if (verified) where.push(`EXISTS (SELECT 1 FROM "WikiMedia" m WHERE m."subjectId" = s."id" AND m."status" = 'verified')`);
    // Popular: the most verified photos first, then the newest.
    const order = sort === 'popular' ? `verified_count DESC, s."id" DESC` : `s."id" DESC`;
    const { rows, total } = await pageAndTotal<{ id: number; verified_count: number }>(this.deps.db, {
      select: `s."id", (SELECT count(*) FROM "WikiMedia" m WHERE m."subjectId" = s."id" AND m."status" = 'verified')::int AS verified_count`,
      from: '"WikiSubject" s',
      where: where.join(' AND '),
      orderBy: order,
      params,
      limit,
      offset,
    });
    const subjects = await this.deps.db.prisma.wikiSubject.findMany({ where: { id: { in: rows.map((r) => r.id) } } });
    const byId = new Map(subjects.map((s) => [s.id, s]));
    return { subjects: rows.map((r) => ({ ...byId.get(r.id)!, verifiedCount: r.verified_count })), total, limit, offset };
  }

  /** A subject by slug that the caller may see (wiki.access.ts). */
  async subject(actor: Actor, slug: string): Promise<WikiSubject> {
    const subject = await this.deps.db.prisma.wikiSubject.findFirst({ where: { slug: slug.normalize('NFKC').toLowerCase(), AND: wikiSubjectPolicy.where(actor) } });
    return subject ?? wikiSubjectPolicy.notFound(slug.slice(0, 100));
  }

  /** Verified photos of a subject, most confident first. */
  async verifiedMedia(subjectId: number, filter: { type?: string; minConfidence?: number; limit?: number } = {}): Promise<WikiMedia[]> {
    return this.deps.db.prisma.wikiMedia.findMany({
      where: { subjectId, status: 'verified', ...(filter.type ? { photoType: filter.type } : {}), ...(filter.minConfidence !== undefined ? { confidence: { gte: filter.minConfidence } } : {}) },
      orderBy: [{ confidence: 'desc' }, { id: 'asc' }],
      ...(filter.limit ? { take: filter.limit } : {}),
    });
  }

  async verifiedCount(subjectId: number): Promise<number> {
    return this.deps.db.prisma.wikiMedia.count({ where: { subjectId, status: 'verified' } });
  }

  /** POST /api/wiki/subjects: a pending subject with a unique slug; the featured image is fetched and stored now. */
  async createSubject(actor: Actor, input: z.input<typeof createSubjectSchema>): Promise<WikiSubject> {
    const options = parseInput(createSubjectSchema, input);
    const base = slugify(options.name);
    if (!base) throw new InvalidInput('name: expected letters or digits to make a slug of', 'name');
    let featuredKey: string | null = null;
    if (options.featured_image_url) {
      const body = await fetchImageBytes(this.deps.fetcher, options.featured_image_url, 'featured_image_url', this.deps.limits.maxBytes);
      const image = await processSharedImage(body, this.deps.limits).catch((error: unknown) => {
        if (error instanceof AppError && error.status === 400) throw new InvalidInput(`featured_image_url: ${error.message.replace(/^file: /, '')}`, 'featured_image_url');
        throw error;
      });
      const file = await publicDerivative(image, { maxPixels: this.deps.limits.maxPixels, maxSide: WIKI_PHOTO_MAX_SIDE });
      featuredKey = `wiki/featured/${image.sha256}.${file.ext}`;
      await this.deps.blobs.put(featuredKey, file.body, { contentType: file.mime, size: file.body.length });
    }
    // The slug, or the slug with -2, -3 ... when taken (a race for the same one retries).
    for (let attempt = 1; attempt <= 50; attempt++) {
      const slug = attempt === 1 ? base : `${base.slice(0, 75)}-${attempt}`;
      try {
        return await this.deps.db.prisma.wikiSubject.create({
          data: { slug, name: options.name, category: options.category, description: options.description ?? null, featuredImageUrl: options.featured_image_url ?? null, featuredKey, accountId: actor.accountId },
        });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    }
    throw new Conflict(`name: too many subjects are already called ${options.name}`, 'name');
  }

  /** The operator's queue of subjects (admin token). */
  async reviewList(input: z.input<typeof reviewListSchema>): Promise<{ subjects: WikiSubject[]; total: number; limit: number; offset: number }> {
    const { status, limit, offset } = parseInput(reviewListSchema, input);
    const [subjects, total] = await Promise.all([
      this.deps.db.prisma.wikiSubject.findMany({ where: { status }, orderBy: { id: 'asc' }, take: limit, skip: offset }),
      this.deps.db.prisma.wikiSubject.count({ where: { status } }),
    ]);
    return { subjects, total, limit, offset };
  }

  /** The operator's decision on a pending subject; approval pays its creator the subject rate, once. */
  async review(slug: string, decision: 'approved' | 'rejected'): Promise<WikiSubject> {
    const normal = slug.normalize('NFKC').toLowerCase();
    const moved = await this.deps.db.prisma.wikiSubject.updateMany({ where: { slug: normal, status: 'pending' }, data: { status: decision, reviewedAt: new Date() } });
    const subject = await this.deps.db.prisma.wikiSubject.findUnique({ where: { slug: normal } });
    if (!subject) throw new NotFound(`no wiki subject ${slug.slice(0, 100)}`);
    if (moved.count === 0) throw new Conflict(`subject ${subject.slug} was already ${subject.status}`);
    if (decision === 'approved') await this.deps.rewards.award(subject.accountId, 'wiki_subject', `wiki-subject:${subject.id}`);
    return subject;
  }

  /** POST /api/wiki/subjects/{slug}/contribute: a pending photo of an approved subject, on an image object. */
  async contribute(actor: Actor, slug: string, upload: { body?: Buffer }, input: z.input<typeof contributeSchema>): Promise<{ media: WikiMedia; duplicate: boolean }> {
    const options = parseInput(contributeSchema, input);
    const subject = await this.subject(actor, slug);
    if (subject.status !== 'approved') throw new Conflict(`subject ${subject.slug} is ${subject.status}: photos are taken once the operator approved it`);
    if (!upload.body) throw new InvalidInput('file is required: send the photo as the multipart field "file"', 'file');
    const image = await processSharedImage(upload.body, this.deps.limits);
    const { object } = await this.deps.imageObjects.identify(fingerprintOf(image));
    const existing = await this.deps.db.prisma.wikiMedia.findUnique({ where: { subjectId_objectId: { subjectId: subject.id, objectId: object.id } } });
    if (existing) return { media: existing, duplicate: true };
    const file = await publicDerivative(image, { maxPixels: this.deps.limits.maxPixels, maxSide: WIKI_PHOTO_MAX_SIDE });
    const storageKey = `wiki/${subject.id}/${image.sha256}.${file.ext}`;
    await this.deps.blobs.put(storageKey, file.body, { contentType: file.mime, size: file.body.length });
    const seen = await this.see(file.body, actor.accountId, subject);
    try {
      const media = await this.deps.db.prisma.wikiMedia.create({
        data: {
          subjectId: subject.id,
          accountId: actor.accountId,
          objectId: object.id,
          photoType: options.photo_type,
          context: options.context ?? null,
          storageKey,
          mime: file.mime,
          width: file.width,
          height: file.height,
          ...seen,
        },
      });
      return { media, duplicate: false };
    } catch (error) {
      // The same photo of this subject twice at once: the other request made it.
      if (!isUniqueViolation(error)) throw error;
      return { media: await this.deps.db.prisma.wikiMedia.findUniqueOrThrow({ where: { subjectId_objectId: { subjectId: subject.id, objectId: object.id } } }), duplicate: true };
    }
  }

  /** GET /api/wiki/verify-queue: pending photos of approved subjects the caller may vote on, oldest first. */
  async verifyQueue(actor: Actor, input: z.input<typeof queueSchema>): Promise<WikiMedia[]> {
    const { limit } = parseInput(queueSchema, input);
    return this.deps.db.prisma.wikiMedia.findMany({
      where: { status: 'pending', accountId: { not: actor.accountId }, subject: { status: 'approved' }, votes: { none: { accountId: actor.accountId } } },
      orderBy: { id: 'asc' },
      take: limit,
    });
  }

  /** A photo the caller may see (wiki.access.ts), with its subject. */
  async media(actor: Actor, id: number): Promise<WikiMedia & { subject: WikiSubject }> {
    return wikiPhotoPolicy.findOne(actor, id, (where) => this.deps.db.prisma.wikiMedia.findFirst({ where, include: { subject: true } }));
  }

  /**
   * POST /api/wiki/metadata/{id}/vote: one vote per account and photo, never on one's own; pays the
   * voter the vote rate, and the contributor the photo rate when this vote verifies it.
   */
  async vote(actor: Actor, id: number, input: z.input<typeof voteSchema>, options: { challenge?: boolean } = {}): Promise<VoteResult> {
    const { vote } = parseInput(voteSchema, input);
    const found = await this.media(actor, id);
    if (found.accountId === actor.accountId) throw new Forbidden('you contributed this photo: others verify it');
    if (found.status !== 'pending') throw new Conflict(`wiki photo ${id} is ${found.status} already: it takes no more votes`);
    const { media, decided } = await this.deps.db.prisma.$transaction(async (tx) => {
      try {
        await tx.wikiVote.create({ data: { mediaId: id, accountId: actor.accountId, vote } });
      } catch (error) {
        if (isUniqueViolation(error)) throw new Conflict(`you voted on wiki photo ${id} already`);
        throw error;
      }
      const column = vote === 'confirm' ? 'confirms' : 'rejects';
      // Counts move only while pending: a vote after the decision is refused with its row.
      const [counted] = await tx.$queryRawUnsafe<Array<{ confirms: number; rejects: number }>>(
        `UPDATE "WikiMedia" SET "${column}" = "${column}" + 1 WHERE "id" = $1 AND "status" = 'pending' RETURNING "confirms", "rejects"`,
        id,
      );
      if (!counted) throw new Conflict(`wiki photo ${id} was decided meanwhile: it takes no more votes`);
      const status = decision(counted, this.deps.settings);
      if (!status) return { media: await tx.wikiMedia.findUniqueOrThrow({ where: { id } }), decided: false };
      const updated = await tx.wikiMedia.update({
        where: { id },
        data: { status, decidedAt: new Date(), confidence: status === 'verified' ? confidenceOf(counted, found.visionAgrees) : null },
      });
      return { media: updated, decided: true };
    });
    const award = await this.deps.rewards.award(actor.accountId, 'wiki_vote', `wiki-photo:${id}`, { challenge: options.challenge });
    if (decided && media.status === 'verified') {
      // A plain image (flat, a gradient, almost blank, tiny) earns no upload reward (docs/image-objects.md
      // "Image objects"): each is its own object by its bytes alone, so one subject could take any number.
      const object = await this.deps.imageObjects.byId(media.objectId);
      if (object && !isLowInformation(object)) await this.deps.rewards.award(media.accountId, 'wiki_photo', `wiki-photo:${id}`);
      await this.followers?.announce({ type: 'photo_verified', subjectId: media.subjectId, photoId: media.id, itemId: null, postId: null });
    }
    return { media, coinsEarned: award.status === 'paid' ? award.coins : 0, balance: award.balance, held: award.held, decided };
  }

  /**
   * GET /api/wiki/subjects/{slug}/query: verified photos of a type at or above a confidence, for a
   * price in API credits held first (402 when the account cannot pay) and taken only when the answer
   * is ready; approved royalty claims on a served photo's image object are paid here.
   */
  async query(actor: Actor, slug: string, input: z.input<typeof querySchema>): Promise<QueryResult> {
    const options = parseInput(querySchema, input);
    const subject = await this.subject(actor, slug);
    const price = this.deps.settings.queryCredits;
    const hold = price > 0 ? await this.deps.credits.hold(actor.accountId, price, { action: LedgerAction.WikiQuery, reference: `wiki-subject:${subject.id}` }) : null;
    let media: WikiMedia[];
    try {
      media = await this.verifiedMedia(subject.id, { type: options.type, minConfidence: options.min_confidence, limit: options.limit });
    } catch (error) {
      if (hold) await this.deps.credits.release(hold);
      throw error;
    }
    if (hold) await this.deps.credits.capture(hold);
    await this.payRoyalties(actor, media);
    const balance = await this.deps.credits.available(actor.accountId);
    return { subject, media, creditsCharged: price, creditsBalance: balance };
  }

  /**
   * A served photo is a use of its image object: each approved royalty claim on a community item of
   * that object pays its claimant the royalty from the service's fees, once per claim, caller and UTC
   * day (a claimant querying their own claim is no use).
   */
  private async payRoyalties(actor: Actor, media: WikiMedia[]): Promise<void> {
    if (media.length === 0) return;
    const claims = await this.deps.db.prisma.ownershipClaim.findMany({
      where: { kind: 'royalty', status: 'approved', accountId: { not: actor.accountId }, item: { objectId: { in: media.map((m) => m.objectId) } } },
    });
    const day = new Date().toISOString().slice(0, 10);
    for (const claim of claims) {
      await this.deps.ledger.transfer({
        id: `royalty:wiki:${claim.id}:${actor.accountId}:${day}`,
        currency: 'coins',
        from: { system: 'fees' },
        to: { account: claim.accountId },
        amount: Number(claim.royalty ?? 0),
        action: LedgerAction.CommunityRoyalty,
        reference: `community:${claim.itemId}`,
      });
    }
  }

  /** Vision's view of a photo and whether it names the subject; nothing when no provider could answer. */
  private async see(image: Buffer, payer: number, subject: WikiSubject) {
    if (!this.deps.analyze) return {};
    try {
      const result = await this.deps.analyze(image, payer);
      const seen = { labels: [...new Set(result.labels.map((l) => l.toLowerCase()))].slice(0, 50), words: ocrWords(result.text), caption: result.caption || null };
      const subjectWords = `${subject.name} ${subject.category}`.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 2);
      // Text read in the photo alone does not show the subject (the same rule as community tags).
      return { ...seen, visionAgrees: confirmTags(subjectWords, seen).some(showsPicture) };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      this.deps.logger.warn({ err: error }, 'wiki: image analysis unavailable; the photo has no vision agreement');
      return {};
    }
  }

}

/** Where the counts put a pending photo: verified, rejected, or still pending (null). */
export function decision(counts: { confirms: number; rejects: number }, settings: Pick<WikiSettings, 'confirmations' | 'rejections'>): 'verified' | 'rejected' | null {
  if (counts.confirms >= settings.confirmations) return 'verified';
  if (counts.rejects >= settings.rejections) return 'rejected';
  return null;
}

/** The confidence formula (top of this file), rounded to 3 decimals. */
export function confidenceOf(counts: { confirms: number; rejects: number }, visionAgrees: boolean | null): number {
  const share = counts.confirms / Math.max(1, counts.confirms + counts.rejects);
  const vision = visionAgrees === null ? 0.5 : visionAgrees ? 1 : 0;
  return Math.round((0.7 * share + 0.3 * vision) * 1000) / 1000;
}

export type { Vote };
