// The community library (spec "Community"): images people give the community, each one an image
// object (the same picture contributed again by its contributor earns nothing), crowd tags with
// vision confirmation, mobile ingest with a paywalled original, unlocks that pay the uploader, the
// leaderboard and contributor portfolios. Every coin moves through the ledger: rewards through the
// rewards service (once per object, capped per day), unlocks as one linked transfer.
//
// Files: each item has a public derivative (re-encoded, every metadata field stripped, so no GPS or
// camera serial leaves with it) at `community/<account>/<sha256>.public.<ext>`; an ingest also keeps
// the original bytes as uploaded, private, at `community/<account>/<sha256>.original.<ext>`.
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { CommunityItem } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { AppError, Conflict, Forbidden, InvalidInput, NotFound } from '../../platform/errors.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { isLowInformation, type ImageObjectsService } from '../image-objects/index.js';
import { fromMinor, LedgerAction, rewardLedgerAction, type Balance, type LedgerActionName, type LedgerService, type RewardsService, type TransferRequest, type Tx } from '../ledger/index.js';
import { fetchImageBytes, fingerprintOf, gpsOf, processSharedImage, publicDerivative, type SharedImage } from '../media/index.js';
import { communityItemPolicy } from './community.access.js';
import { checkSubject, type Subject, type SubjectCheck } from './subject-evidence.js';
import { confirmTags, ocrWords, type TagConfirmation } from './tag-confirmation.js';
import {
  contributeSchema,
  ingestSchema,
  leaderboardSchema,
  myPageSchema,
  searchSchema,
  tagSchema,
  type LeaderboardPeriod,
} from './community.input.js';

export type { CommunityItem };

/** What vision says about an image: labels, a caption and the text read in it. */
export type Analyzer = (image: Buffer, payer: number) => Promise<{ labels: string[]; caption: string; text: string }>;

/** The uploader's share of an unlock, in percent (spec: 80). The rest goes to the service's fees account. */
export const UPLOADER_SHARE_PERCENT = 80;
/** Longest side of an ingest's public derivative: the full resolution is what an unlock buys. */
export const INGEST_PUBLIC_MAX_SIDE = 1280;
/** How long a signed link to an unlocked original works. */
export const ORIGINAL_LINK_SECONDS = 15 * 60;
/** Public items a portfolio shows. */
const PORTFOLIO_ITEMS = 12;
/** The answer's message for a plain upload (README "Image objects"): kept, and no upload reward. */
export const PLAIN_IMAGE_UNPAID =
  'a plain image (a flat colour, a smooth gradient, an almost blank or a tiny image) cannot be told apart from other plain images, so it earns no upload reward';
/** The rewards a contributor's community earnings count (leaderboard, portfolio). */
const COMMUNITY_REWARDS = (['community_upload', 'tagging', 'tag_verified_bonus'] as const).map(rewardLedgerAction);

export const COMMUNITY_VARIANTS = ['public', 'original'] as const;
export type CommunityVariant = (typeof COMMUNITY_VARIANTS)[number];

export interface CommunityUpload {
  body?: Buffer;
  filename?: string;
}

export interface ContributionResult extends Balance {
  item: CommunityItem;
  coinsEarned: number;
  /** The caller had already contributed this image (this or a resized, recompressed or lightly cropped copy). */
  duplicate: boolean;
  /** Why nothing was earned, when nothing was. */
  message: string | null;
}

export interface TagResult extends Balance {
  item: CommunityItem;
  coinsEarned: number;
  /** A tag of this set is confirmed by vision. */
  verified: boolean;
  /** Tags of this set that vision confirmed (each with its evidence in CommunityTagConfirmation). */
  matched: string[];
  message: string | null;
}

export interface UnlockResult extends Balance {
  item: CommunityItem;
  /** Coins the buyer paid now (0: free, the buyer's own item, or unlocked before). */
  charged: number;
  alreadyUnlocked: boolean;
  /** What the uploader received from this payment (80%, less any approved royalties). */
  uploaderEarned: number;
}

export interface LeaderboardEntry {
  rank: number;
  handle: string;
  contributions: number;
  verified: number;
  coinsEarned: number;
}

export interface Portfolio {
  handle: string;
  attribution: string;
  memberSince: Date;
  contributions: number;
  verified: number;
  recent: CommunityItem[];
  /** The owner's own view only. */
  own: (Balance & { unlisted: number; removed: number; coinsEarned: number; unlockSales: number; unlockEarnings: number }) | null;
}

export interface CommunityDeps {
  db: Database;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  imageObjects: ImageObjectsService;
  ledger: LedgerService;
  rewards: RewardsService;
  signer: UrlSigner;
  logger: Logger;
  analyze: Analyzer | null;
  /** A model provider's judgement of a tag set, or null (README "Community": vision confirmation). */
  judge?: (image: Buffer, tags: string[], payer: number) => Promise<string[] | null>;
  limits: { maxBytes: number; maxPixels: number };
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

/** What vision saw of an item: its labels, OCR words and its own caption (never the one people may edit). */
const seenOf = (item: CommunityItem) => ({ labels: item.labels, words: item.words, caption: item.visionCaption });

export function communityFilePath(id: number, variant: CommunityVariant): string {
  return `/community/${id}/${variant}`;
}

export class CommunityService {
  constructor(private readonly deps: CommunityDeps) {}

  /** POST /api/community/contribute: a file or an image_url; 2 coins for a new image object of the caller's. */
  async contribute(actor: Actor, upload: CommunityUpload, input: z.input<typeof contributeSchema>): Promise<ContributionResult> {
    const options = parseInput(contributeSchema, input);
    if (upload.body && options.image_url) throw new InvalidInput('send file or image_url, not both', 'image_url');
    let body = upload.body;
    let sourceUrl: string | null = null;
    if (!body) {
      if (!options.image_url) throw new InvalidInput('file or image_url is required: send the image as the multipart field "file", or its address as image_url', 'file');
      body = await fetchImageBytes(this.deps.fetcher, options.image_url, 'image_url', this.deps.limits.maxBytes);
      sourceUrl = options.image_url;
    }
    const processed = await processSharedImage(body, this.deps.limits);
    return this.create(actor, processed, body, {
      origin: 'contribute',
      name: options.name ?? upload.filename ?? null,
      tags: options.tags,
      sourceProvider: options.source_provider ?? null,
      sourceUrl,
      public: options.public,
      keepOriginal: false,
    });
  }

  /**
   * POST /api/community/ingest: a phone's photo. The position comes from latitude/longitude, else
   * from the photo's EXIF GPS; vision captions and labels it; the original stays private behind
   * `unlock_price`, and the public derivative is at most INGEST_PUBLIC_MAX_SIDE and stripped.
   */
  async ingest(actor: Actor, upload: CommunityUpload, input: z.input<typeof ingestSchema>): Promise<ContributionResult> {
    const options = parseInput(ingestSchema, input);
    if (!upload.body) throw new InvalidInput('file is required: send the photo as the multipart field "file"', 'file');
    const processed = await processSharedImage(upload.body, this.deps.limits);
    const position = options.latitude !== undefined && options.longitude !== undefined ? { latitude: options.latitude, longitude: options.longitude } : await gpsOf(upload.body);
    const handle = options.attribution_handle ? `@${options.attribution_handle.replace(/^@/, '')}` : `@${actor.handle}`;
    return this.create(actor, processed, upload.body, {
      origin: 'ingest',
      name: options.name ?? upload.filename ?? null,
      tags: options.tags,
      sourceProvider: null,
      sourceUrl: null,
      public: true,
      keepOriginal: true,
      latitude: position?.latitude ?? null,
      longitude: position?.longitude ?? null,
      attributionHandle: handle,
      unlockPrice: options.unlock_price,
      analyzeNow: true,
    });
  }

  /** GET /api/community/search (no key): public, listed items, newest first. */
  async search(input: z.input<typeof searchSchema>): Promise<{ items: CommunityItem[]; total: number; limit: number; offset: number }> {
    const { tag, verified, limit, offset } = parseInput(searchSchema, input);
    const where = { public: true, removedAt: null, ...(tag ? { tags: { has: tag } } : {}), ...(verified ? { verified: true } : {}) };
    const [items, total] = await Promise.all([
      this.deps.db.prisma.communityItem.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      this.deps.db.prisma.communityItem.count({ where }),
    ]);
    return { items, total, limit, offset };
  }

  /** GET /api/community/my: every item the caller contributed (unlisted and removed ones too), newest first. */
  async my(actor: Actor, input: z.input<typeof myPageSchema>): Promise<{ items: CommunityItem[]; total: number; limit: number; offset: number } & Balance> {
    const { limit, offset } = parseInput(myPageSchema, input);
    const where = { accountId: actor.accountId };
    const [items, total, balance] = await Promise.all([
      this.deps.db.prisma.communityItem.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      this.deps.db.prisma.communityItem.count({ where }),
      this.deps.ledger.balance(actor.accountId, 'coins'),
    ]);
    return { items, total, limit, offset, ...balance };
  }

  /** One item: public ones for every key, the caller's own always; removed ones only to their contributor. */
  async get(actor: Actor | null, id: number): Promise<CommunityItem> {
    return communityItemPolicy.findOne(actor, id, (where) => this.deps.db.prisma.communityItem.findFirst({ where }));
  }

  /**
   * POST /api/community/{id}/tag: adds (anyone) or replaces (the contributor only) the item's tags.
   * Vision's evidence confirms each tag of the set on its own; tags that leave the item lose their
   * confirmation, and the item is verified while one of its tags is confirmed. Pays a tagger once
   * per item (the tagging rate, when the set adds a tag the item did not have), and the bonus once
   * per item when a tag this tagger added is newly confirmed; tagging one's own items earns nothing.
   */
  async tag(actor: Actor, id: number, input: z.input<typeof tagSchema>): Promise<TagResult> {
    const { tags, action } = parseInput(tagSchema, input);
    let item = await this.get(actor, id);
    if (item.removedAt) throw new Conflict(`community item ${id} was taken down by an ownership claim: it takes no more tags`);
    if (action === 'replace' && item.accountId !== actor.accountId) throw new Forbidden("action: only the item's contributor may replace its tags; others add");
    item = await this.analyzed(item, actor.accountId);
    const evidence = await this.confirm(item, tags, actor.accountId);
    const day = todayUtc();
    const { updated, added, newlyConfirmed } = await this.deps.db.prisma.$transaction(async (tx) => {
      // The row lock orders taggings of one item: each sees the tags the one before left.
      const [current] = await tx.$queryRaw<Array<{ tags: string[] }>>`SELECT "tags" FROM "CommunityItem" WHERE "id" = ${id} FOR UPDATE`;
      const before = new Set(current?.tags ?? item.tags);
      const next = action === 'replace' ? tags : [...new Set([...before, ...tags])].slice(0, 50);
      await tx.$executeRaw`INSERT INTO "CommunityTagging" ("itemId", "accountId", "day", "tags", "verified") VALUES (${id}, ${actor.accountId}, ${day}::date, ${tags}, ${evidence.length > 0})
                           ON CONFLICT ("itemId", "accountId", "day") DO NOTHING`;
      const result = await this.retag(tx, id, next, evidence, actor.accountId);
      return { ...result, added: next.filter((tag) => !before.has(tag)) };
    });
    const matched = evidence.map((c) => c.tag).filter((tag) => updated.tags.includes(tag));
    const answer = { item: updated, verified: matched.length > 0, matched };
    const unpaid = async (message: string) => ({ ...answer, coinsEarned: 0, ...(await this.deps.ledger.balance(actor.accountId, 'coins')), message });
    if (item.accountId === actor.accountId) return unpaid(`you contributed item ${id}: tagging your own items earns nothing`);
    if (added.length === 0) return unpaid(`item ${id} had every one of these tags already: a tag set earns when it adds a tag`);
    const object = `community:${id}`;
    const base = await this.deps.rewards.award(actor.accountId, 'tagging', object);
    let coins = base.status === 'paid' ? base.coins : 0;
    let balance: Balance = base;
    let message: string | null = base.status === 'replayed' ? `this account was already paid for tagging item ${id} (a tagger is paid once per item)` : (base.message ?? null);
    if (added.some((tag) => newlyConfirmed.includes(tag)) && base.status !== 'capped') {
      const bonus = await this.deps.rewards.award(actor.accountId, 'tag_verified_bonus', object);
      if (bonus.status === 'paid') coins += bonus.coins;
      balance = bonus;
    }
    if (coins > 0) message = null;
    return { ...answer, coinsEarned: coins, balance: balance.balance, held: balance.held, message };
  }

  /**
   * Sets an item's tags in the caller's transaction: confirmations of tags that left go, the
   * given confirmations of tags it has are recorded (the first evidence stays), and `verified`
   * follows (a confirmed tag remains). Returns the item and the tags confirmed by this call.
   */
  private async retag(tx: Tx, id: number, tags: string[], evidence: readonly TagConfirmation[], accountId: number): Promise<{ updated: CommunityItem; newlyConfirmed: string[] }> {
    await tx.communityTagConfirmation.deleteMany({ where: { itemId: id, tag: { notIn: tags } } });
    const kept = evidence.filter((c) => tags.includes(c.tag));
    const made = kept.length
      ? await tx.communityTagConfirmation.createManyAndReturn({
          data: kept.map((c) => ({ itemId: id, tag: c.tag, key: c.key, evidence: c.evidence, matched: c.matched.slice(0, 200), accountId })),
          skipDuplicates: true,
          select: { tag: true },
        })
      : [];
    const confirmed = await tx.communityTagConfirmation.count({ where: { itemId: id } });
    const updated = await tx.communityItem.update({ where: { id }, data: { tags, verified: confirmed > 0 } });
    return { updated, newlyConfirmed: made.map((c) => c.tag) };
  }

  /**
   * Tags written by another rule (a merged intel proposal), in the caller's transaction: confirmed
   * against what vision saw of the item (no model is asked, nothing is paid).
   */
  async setTags(tx: Tx, item: CommunityItem, tags: string[], accountId: number): Promise<CommunityItem> {
    const evidence = confirmTags(tags, seenOf(item));
    return (await this.retag(tx, item.id, tags, evidence, accountId)).updated;
  }

  /** Whether the item shows the subject (subject-evidence.ts), in the caller's transaction with `tx`. */
  async showsSubject(itemId: number, subject: Subject, tx?: Tx): Promise<SubjectCheck> {
    return checkSubject(tx ?? this.deps.db, itemId, subject);
  }

  /**
   * POST /api/community/{id}/unlock: the buyer pays the unlock price once; the uploader gets 80% at
   * once, the fees account the rest, in one linked transfer (approved royalty claims are paid out of
   * the uploader's share in the same transfer). Unlocking again, one's own item or a free one costs nothing.
   */
  async unlock(actor: Actor, id: number): Promise<UnlockResult> {
    const item = await this.get(actor, id);
    const price = Number(item.unlockPrice);
    const balanceNow = () => this.deps.ledger.balance(actor.accountId, 'coins');
    if (item.removedAt) throw new NotFound(`no community item ${id}`);
    if (price === 0 || item.accountId === actor.accountId) return { item, charged: 0, alreadyUnlocked: false, uploaderEarned: 0, ...(await balanceNow()) };
    const royalties = await this.deps.db.prisma.ownershipClaim.findMany({ where: { itemId: id, kind: 'royalty', status: 'approved' }, orderBy: { id: 'asc' } });
    const share = Math.floor((price * UPLOADER_SHARE_PERCENT) / 100);
    const prefix = `unlock:${id}:${actor.accountId}`;
    const legs: TransferRequest[] = [];
    const leg = (suffix: string, from: number, to: TransferRequest['to'], amount: number, action: LedgerActionName) =>
      amount > 0 && legs.push({ id: `${prefix}:${suffix}`, currency: 'coins', from: { account: from }, to, amount, action, reference: `community:${id}` });
    leg('uploader', actor.accountId, { account: item.accountId }, share, LedgerAction.CommunityUnlock);
    leg('fee', actor.accountId, { system: 'fees' }, price - share, LedgerAction.CommunityUnlockFee);
    let left = share;
    for (const claim of royalties) {
      const amount = Math.min(Number(claim.royalty ?? 0), left);
      left -= amount;
      leg(`royalty:${claim.id}`, item.accountId, { account: claim.accountId }, amount, LedgerAction.CommunityRoyalty);
    }
    const paid = await this.deps.db.prisma.$transaction(async (tx) => {
      const inserted = await tx.$executeRaw`INSERT INTO "CommunityUnlock" ("itemId", "accountId", "price") VALUES (${id}, ${actor.accountId}, ${price}) ON CONFLICT DO NOTHING`;
      if (inserted === 0) return false;
      await this.deps.ledger.transferLinked(legs, { tx });
      return true;
    });
    if (!paid) return { item, charged: 0, alreadyUnlocked: true, uploaderEarned: 0, ...(await balanceNow()) };
    return { item, charged: fromMinor(price), alreadyUnlocked: false, uploaderEarned: fromMinor(left), ...(await balanceNow()) };
  }

  /**
   * Of these items, the ones whose original the actor may fetch: its contributor, a buyer, or any
   * key when it is free. Two queries for a whole page.
   */
  async readableOriginals(actor: Actor | null, ids: readonly number[]): Promise<Map<number, CommunityItem>> {
    const readable = new Map<number, CommunityItem>();
    if (!actor || ids.length === 0) return readable;
    const [items, unlocks] = await Promise.all([
      this.deps.db.prisma.communityItem.findMany({ where: { id: { in: [...ids] }, originalKey: { not: null }, removedAt: null } }),
      this.deps.db.prisma.communityUnlock.findMany({ where: { itemId: { in: [...ids] }, accountId: actor.accountId }, select: { itemId: true } }),
    ]);
    const bought = new Set(unlocks.map((u) => u.itemId));
    for (const item of items) if (item.accountId === actor.accountId || item.unlockPrice === 0n || bought.has(item.id)) readable.set(item.id, item);
    return readable;
  }

  /** GET /api/community/leaderboard: contributors ranked by their listed (public, not removed) contributions in the period (rolling: 24 h, 7 d, 30 d, all). */
  async leaderboard(input: z.input<typeof leaderboardSchema>): Promise<{ period: LeaderboardPeriod; since: Date | null; entries: LeaderboardEntry[] }> {
    const { period, limit } = parseInput(leaderboardSchema, input);
    const days = { day: 1, week: 7, month: 30, all: null }[period];
    const since = days === null ? null : new Date(Date.now() - days * 86_400_000);
    const rows = await this.deps.db.query<{ handle: string; account_id: number; contributions: number; verified: number; coins: string }>(
      `WITH ranked AS (
         SELECT i."accountId" AS account_id, count(*)::int AS contributions, count(*) FILTER (WHERE i."verified")::int AS verified
         FROM "CommunityItem" i
         WHERE i."public" AND i."removedAt" IS NULL AND ($1::timestamp IS NULL OR i."createdAt" >= $1::timestamp)
         GROUP BY i."accountId"
         ORDER BY contributions DESC, verified DESC, account_id
         LIMIT $2)
       SELECT a."handle", r.account_id, r.contributions, r.verified,
              coalesce((SELECT sum(t."amount") FROM "LedgerAccount" w JOIN "LedgerTransfer" t ON t."creditAccountId" = w."id"
                        WHERE w."ownerId" = r.account_id AND w."currency" = 'coins' AND t."kind" IN ('single', 'post')
                          AND t."action" = ANY($3::text[]) AND ($1::timestamp IS NULL OR t."createdAt" >= $1::timestamp)), 0)::text AS coins
       FROM ranked r JOIN "Account" a ON a."id" = r.account_id
       ORDER BY r.contributions DESC, r.verified DESC, r.account_id`,
      [since?.toISOString() ?? null, limit, COMMUNITY_REWARDS],
    );
    return {
      period,
      since,
      entries: rows.map((r, index) => ({ rank: index + 1, handle: r.handle, contributions: r.contributions, verified: r.verified, coinsEarned: fromMinor(Number(r.coins)) })),
    };
  }

  /** A contributor's portfolio: public (by handle, no key) or the caller's own (with private figures). */
  async portfolio(target: { handle: string } | { actor: Actor }): Promise<Portfolio> {
    const account =
      'actor' in target
        ? await this.deps.db.prisma.account.findUnique({ where: { id: target.actor.accountId } })
        : await this.deps.db.prisma.account.findFirst({ where: { handle: { equals: target.handle.replace(/^@/, ''), mode: 'insensitive' }, status: 'active' } });
    if (!account) throw new NotFound(`no contributor ${'actor' in target ? target.actor.handle : target.handle}`);
    const listed = { accountId: account.id, public: true, removedAt: null };
    const [contributions, verified, recent] = await Promise.all([
      this.deps.db.prisma.communityItem.count({ where: listed }),
      this.deps.db.prisma.communityItem.count({ where: { ...listed, verified: true } }),
      this.deps.db.prisma.communityItem.findMany({ where: listed, orderBy: { id: 'desc' }, take: PORTFOLIO_ITEMS }),
    ]);
    let own: Portfolio['own'] = null;
    if ('actor' in target) {
      const [balance, unlisted, removed, [earned]] = await Promise.all([
        this.deps.ledger.balance(account.id, 'coins'),
        this.deps.db.prisma.communityItem.count({ where: { accountId: account.id, public: false, removedAt: null } }),
        this.deps.db.prisma.communityItem.count({ where: { accountId: account.id, removedAt: { not: null } } }),
        this.deps.db.query<{ rewards: string; sales: number; proceeds: string }>(
          `SELECT coalesce(sum(t."amount") FILTER (WHERE t."action" = ANY($2::text[])), 0)::text AS rewards,
                  count(*) FILTER (WHERE t."action" = $3)::int AS sales,
                  coalesce(sum(t."amount") FILTER (WHERE t."action" = $3), 0)::text AS proceeds
           FROM "LedgerAccount" w JOIN "LedgerTransfer" t ON t."creditAccountId" = w."id"
           WHERE w."ownerId" = $1 AND w."currency" = 'coins' AND t."kind" IN ('single', 'post')`,
          [account.id, COMMUNITY_REWARDS, LedgerAction.CommunityUnlock],
        ),
      ]);
      own = {
        ...balance,
        unlisted,
        removed,
        coinsEarned: fromMinor(Number(earned?.rewards ?? 0)),
        unlockSales: earned?.sales ?? 0,
        unlockEarnings: fromMinor(Number(earned?.proceeds ?? 0)),
      };
    }
    return { handle: account.handle, attribution: `@${account.handle}`, memberSince: account.createdAt, contributions, verified, recent, own };
  }

  /** A signed link to a file of the item: the public derivative (no expiry) or the original (15 minutes). */
  fileUrl(item: Pick<CommunityItem, 'id' | 'storageKey'>, variant: CommunityVariant): string {
    const version = createHash('sha256').update(item.storageKey).digest('hex').slice(0, 16);
    if (variant === 'public') return this.deps.signer.sign(communityFilePath(item.id, variant), { v: version });
    return this.deps.signer.sign(communityFilePath(item.id, variant), { v: version, exp: Math.floor(Date.now() / 1000) + ORIGINAL_LINK_SECONDS });
  }

  /** Opens a file behind a signed link (no key: the signature is the capability). */
  async openSigned(idText: string, variantText: string, query: Record<string, unknown>) {
    const id = Number(idText);
    const refused = new Forbidden('invalid or missing signature');
    if (!Number.isSafeInteger(id) || !COMMUNITY_VARIANTS.includes(variantText as CommunityVariant)) throw refused;
    const variant = variantText as CommunityVariant;
    if (!this.deps.signer.verify(communityFilePath(id, variant), query)) throw refused;
    if (variant === 'original' && !(Number(query.exp) * 1000 > Date.now())) throw new Forbidden('this link has expired: ask for the item again');
    const item = await this.deps.db.prisma.communityItem.findUnique({ where: { id } });
    if (!item || item.removedAt) throw new NotFound(`no community item ${id}`);
    if (query.v !== createHash('sha256').update(item.storageKey).digest('hex').slice(0, 16)) throw new Forbidden('this link is for an earlier file');
    const key = variant === 'original' ? item.originalKey : item.storageKey;
    const blob = key ? await this.deps.blobs.get(key) : null;
    if (!blob) throw new NotFound(`no ${variant} file for community item ${id}`);
    return { item, mime: variant === 'original' ? (item.originalMime ?? 'application/octet-stream') : item.mime, ...blob };
  }

  /**
   * The tags of a set that vision confirms, each with its evidence: a model provider's judgement
   * (when one is configured and the tagger can pay for it) and the item's labels, OCR words and
   * caption, through the synonym table (tag-confirmation.ts).
   */
  private async confirm(item: CommunityItem, tags: string[], payer: number): Promise<TagConfirmation[]> {
    let judged: string[] | null = null;
    if (this.deps.judge) {
      const image = await this.publicBytes(item);
      judged = image ? await this.deps.judge(image, tags, payer) : null;
    }
    return confirmTags(tags, seenOf(item), judged);
  }

  private async publicBytes(item: CommunityItem): Promise<Buffer | null> {
    const blob = await this.deps.blobs.get(item.storageKey);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The item with vision's labels, caption and OCR words (analysed once, on first need). */
  private async analyzed(item: CommunityItem, payer: number): Promise<CommunityItem> {
    if (item.analyzedAt || !this.deps.analyze) return item;
    const image = await this.publicBytes(item);
    if (!image) return item;
    const seen = await this.see(image, payer);
    if (!seen) return item;
    return this.deps.db.prisma.communityItem.update({ where: { id: item.id }, data: seen });
  }

  /** Vision's view of an image, or null when no provider could answer (the item stays unverified). */
  private async see(image: Buffer, payer: number): Promise<{ labels: string[]; caption: string | null; visionCaption: string | null; words: string[]; analyzedAt: Date } | null> {
    if (!this.deps.analyze) return null;
    try {
      const result = await this.deps.analyze(image, payer);
      return { labels: [...new Set(result.labels.map((l) => l.toLowerCase()))].slice(0, 50), caption: result.caption || null, visionCaption: result.caption || null, words: ocrWords(result.text), analyzedAt: new Date() };
    } catch (error) {
      // No provider could answer, or none could read this image: the item stays unverified, the call goes on.
      if (!(error instanceof AppError)) throw error;
      this.deps.logger.warn({ err: error }, 'community: image analysis unavailable; item left unverified');
      return null;
    }
  }

  private async create(
    actor: Actor,
    processed: SharedImage,
    uploaded: Buffer,
    fields: {
      origin: 'contribute' | 'ingest';
      name: string | null;
      tags: string[];
      sourceProvider: string | null;
      sourceUrl: string | null;
      public: boolean;
      keepOriginal: boolean;
      latitude?: number | null;
      longitude?: number | null;
      attributionHandle?: string;
      unlockPrice?: number;
      analyzeNow?: boolean;
    },
  ): Promise<ContributionResult> {
    const { object } = await this.deps.imageObjects.identify(fingerprintOf(processed));
    // A plain image (flat, a gradient, almost blank, tiny) cannot be told apart from other plain images: kept, never paid.
    const plain = isLowInformation(processed) || isLowInformation(object) ? PLAIN_IMAGE_UNPAID : null;
    // The caller gave this object before (or gives it at this moment): a duplicate, and a plain one is never paid.
    const again = async (earlier: CommunityItem) => (plain ? { ...(await this.unpaid(actor, earlier, plain)), duplicate: true } : this.duplicate(actor, earlier));
    const existing = await this.deps.db.prisma.communityItem.findUnique({ where: { accountId_objectId: { accountId: actor.accountId, objectId: object.id } } });
    if (existing) return again(existing);

    const base = `community/${actor.accountId}/${processed.sha256}`;
    const publicFile = await publicDerivative(processed, { maxPixels: this.deps.limits.maxPixels, maxSide: fields.origin === 'ingest' ? INGEST_PUBLIC_MAX_SIDE : null });
    const storageKey = `${base}.public.${publicFile.ext}`;
    await this.deps.blobs.put(storageKey, publicFile.body, { contentType: publicFile.mime, size: publicFile.body.length });
    let originalKey: string | null = null;
    const originalMime = fields.keepOriginal ? (processed.original?.mime ?? processed.mime) : null;
    if (fields.keepOriginal) {
      originalKey = `${base}.original.${processed.original?.ext ?? processed.ext}`;
      await this.deps.blobs.put(originalKey, uploaded, { contentType: originalMime!, size: uploaded.length });
    }
    const seen = fields.analyzeNow ? await this.see(publicFile.body, actor.accountId) : null;
    let item: CommunityItem;
    try {
      item = await this.deps.db.prisma.communityItem.create({
        data: {
          accountId: actor.accountId,
          objectId: object.id,
          origin: fields.origin,
          name: fields.name,
          tags: fields.tags,
          sourceProvider: fields.sourceProvider,
          sourceUrl: fields.sourceUrl,
          public: fields.public,
          storageKey,
          mime: publicFile.mime,
          width: publicFile.width,
          height: publicFile.height,
          originalKey,
          originalMime,
          latitude: fields.latitude ?? null,
          longitude: fields.longitude ?? null,
          attributionHandle: fields.attributionHandle ?? `@${actor.handle}`,
          unlockPrice: BigInt(fields.unlockPrice ?? 0),
          ...(seen ?? {}),
        },
      });
    } catch (error) {
      // The same object arrived twice at once from this account: the other request made the item.
      if (!isUniqueViolation(error)) throw error;
      const winner = await this.deps.db.prisma.communityItem.findUniqueOrThrow({ where: { accountId_objectId: { accountId: actor.accountId, objectId: object.id } } });
      if (winner.storageKey !== storageKey) await this.deps.blobs.delete(storageKey);
      if (originalKey && winner.originalKey !== originalKey) await this.deps.blobs.delete(originalKey);
      return again(winner);
    }
    if (plain) return this.unpaid(actor, item, plain);
    const award = await this.deps.rewards.award(actor.accountId, 'community_upload', `image-object:${object.id}`);
    return { item, coinsEarned: award.status === 'paid' ? award.coins : 0, balance: award.balance, held: award.held, duplicate: false, message: award.status === 'paid' ? null : (award.message ?? 'this image object was rewarded before') };
  }

  /** An item kept without an upload reward, with why. */
  private async unpaid(actor: Actor, item: CommunityItem, message: string): Promise<ContributionResult> {
    return { item, coinsEarned: 0, ...(await this.deps.ledger.balance(actor.accountId, 'coins')), duplicate: false, message };
  }

  /**
   * The caller gave this object before: nothing is earned. The award is asked again so that an
   * upload whose payment a crash interrupted is paid on the retry (the award is idempotent).
   */
  private async duplicate(actor: Actor, item: CommunityItem): Promise<ContributionResult> {
    const award = await this.deps.rewards.award(actor.accountId, 'community_upload', `image-object:${item.objectId}`);
    const coins = award.status === 'paid' ? award.coins : 0;
    return {
      item,
      coinsEarned: coins,
      balance: award.balance,
      held: award.held,
      duplicate: true,
      message: coins > 0 ? null : `you already contributed this image (community item ${item.id}): nothing earned`,
    };
  }
}
