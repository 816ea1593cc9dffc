// Giving images to the library: a contribution (a file or an image URL) or a phone's ingest (with
// its position and a paywalled original). Each item is one image object of its contributor's: the
// same picture given again is a duplicate and earns nothing, and a plain one is kept unpaid.
//
// Files: each item has a public derivative (re-encoded, every metadata field stripped, so no GPS or
// camera serial leaves with it) at `community/<account>/<sha256>.public.<ext>`; an ingest also keeps
// the original bytes as uploaded, private, at `community/<account>/<sha256>.original.<ext>`.
import type { z } from 'zod';
import type { CommunityItem } from '../../generated/prisma/client.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { InvalidInput } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { isLowInformation } from '../image-objects/index.js';
import type { Balance } from '../ledger/index.js';
import { fetchImageBytes, fingerprintOf, gpsOf, processSharedImage, publicDerivative, type SharedImage } from '../images/index.js';
import type { CommunityDeps } from './community.deps.js';
import { contributeSchema, ingestSchema } from './community.input.js';
import type { CommunityVision } from './item-vision.js';

/** Longest side of an ingest's public derivative: the full resolution is what an unlock buys. */
export const INGEST_PUBLIC_MAX_SIDE = 1280;

/** The answer's message for a plain upload (docs/image-objects.md "Image objects"): kept, and no upload reward. */
export const PLAIN_IMAGE_UNPAID =
  'a plain image (a flat colour, a smooth gradient, an almost blank or a tiny image) cannot be told apart from other plain images, so it earns no upload reward';

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

export class ContributionsService {
  constructor(
    private readonly deps: CommunityDeps,
    private readonly vision: CommunityVision,
  ) {}

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
    const seen = fields.analyzeNow ? await this.vision.see(publicFile.body, actor.accountId) : null;
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
