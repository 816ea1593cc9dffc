// Image intel (spec "Wiki": /api/wiki/image/{id}/intel and /api/wiki/image/intel/{id}/resolve): what
// people know about a community item, posted on it under the policy its owner (its contributor) set.
//
// - open (the default): text alone is a comment, published at once (approved) and paid the intel
//   comment rate; a post with changes is a proposal.
// - restricted: every post is a proposal, pending until the owner resolves it; it is paid the intel
//   proposal rate when submitted, and the merged rate more when the owner approves it.
// - locked: no posts (409).
// The owner's own posts are published at once (a post with changes is merged at once) and earn
// nothing. Approving a proposal changes the item's metadata as proposed, moves the proposal's status
// and pays the proposer, in one transaction: concurrent approvals pay once, the others are 409s.
// Every payment goes through the rewards service under the rewards' daily caps: a comment or a
// proposal's submission once per author and item (`intel:item:<item id>`), a merge once per post
// (`intel:<post id>`). An author posts the same text and changes on an item once; texts are the same
// when they match after case, whitespace and punctuation are folded ("nice pic." after "Nice pic").
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { IntelPost, Prisma } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { Conflict, Forbidden, InvalidInput } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { communityItemPolicy, type CommunityItem, type CommunityService } from '../community/index.js';
import { type AwardResult, type Balance, type LedgerService, type RewardsService, type Tx } from '../ledger/index.js';
import { intelPostPolicy } from './intel.access.js';
import {
  intelPageSchema,
  policySchema,
  postSchema,
  proposalsSchema,
  resolveSchema,
  type IntelChanges,
  type IntelKind,
  type IntelPolicy,
  type IntelStatus,
} from './intel.input.js';

export type { IntelPost };

export interface IntelPostResult extends Balance {
  post: IntelPost;
  /** Coins paid to the author by this post (0: their own image, the daily cap, or a rate of 0). */
  coinsEarned: number;
  /** Why nothing was earned, when nothing was. */
  message: string | null;
}

export interface IntelResolution {
  post: IntelPost;
  /** The item after the resolution (changed as proposed when merged). */
  item: CommunityItem;
  /** Coins paid to the proposer by this merge (0 when rejected or capped). */
  proposerPaid: number;
  message: string | null;
}

export interface IntelPage {
  item: CommunityItem;
  posts: IntelPost[];
  total: number;
  limit: number;
  offset: number;
}

const OWN_IMAGE = 'your own image: intel on it earns nothing';

/**
 * What the post says, made comparable: case folded, punctuation and symbols dropped, whitespace
 * collapsed (Unicode NFKC first), so "nice pic." after "Nice pic" is the same post; changes with
 * their keys sorted.
 */
function fingerprintOf(text: string | undefined, changes: IntelChanges | undefined): string {
  const normal = foldText(text ?? '');
  const proposed = changes ? JSON.stringify(Object.fromEntries(Object.entries(changes).sort(([a], [b]) => a.localeCompare(b)))) : '';
  return createHash('sha256').update(`${normal}\n${proposed}`).digest('hex');
}

/** Text as duplicates are compared: NFKC, lower case, only letters, digits and single spaces. */
function foldText(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase('en').replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** The proposed values that differ from the item's. */
function newValues(item: CommunityItem, changes: IntelChanges): IntelChanges {
  const differs: IntelChanges = {};
  if (changes.caption !== undefined && changes.caption !== item.caption) differs.caption = changes.caption;
  if (changes.name !== undefined && changes.name !== item.name) differs.name = changes.name;
  if (changes.tags !== undefined && changes.tags.join('\n') !== item.tags.join('\n')) differs.tags = changes.tags;
  if (changes.latitude !== undefined && (changes.latitude !== item.latitude || changes.longitude !== item.longitude)) {
    differs.latitude = changes.latitude;
    differs.longitude = changes.longitude;
  }
  return differs;
}

/** The stored changes of a proposal, as the input schema made them. */
export function changesOf(post: Pick<IntelPost, 'changes'>): IntelChanges | null {
  return post.changes && typeof post.changes === 'object' && !Array.isArray(post.changes) ? (post.changes as IntelChanges) : null;
}

export class IntelService {
  constructor(
    private readonly db: Database,
    private readonly ledger: LedgerService,
    private readonly rewards: RewardsService,
    private readonly community: CommunityService,
  ) {}

  private mergeListener: ((item: { id: number; tags: string[] }, postId: number) => Promise<void>) | undefined;

  /** Told of each merged proposal after it committed (the wiki tells the followers of the item's subjects). */
  onMerged(listener: (item: { id: number; tags: string[] }, postId: number) => Promise<void>): void {
    this.mergeListener = listener;
  }

  /**
   * POST /api/wiki/image/{id}/intel: a comment or a proposal on an item the caller can see, as its
   * policy says; paid once per author and item (not on one's own image).
   */
  async post(actor: Actor, itemId: number, input: z.input<typeof postSchema>): Promise<IntelPostResult> {
    const { text, changes } = parseInput(postSchema, input);
    const item = await this.community.get(actor, itemId);
    if (item.removedAt) throw new Conflict(`community item ${itemId} was taken down by an ownership claim: it takes no intel`);
    const policy = item.intelPolicy as IntelPolicy;
    if (policy === 'locked') throw new Conflict(`image ${itemId} is locked: its owner takes no intel on it`);
    if (changes && Object.keys(newValues(item, changes)).length === 0) throw new InvalidInput('changes: every proposed value is the image’s already', 'changes');
    const own = item.accountId === actor.accountId;
    const kind: IntelKind = changes || (policy === 'restricted' && !own) ? 'proposal' : 'comment';
    const status: IntelStatus = kind === 'comment' ? 'approved' : own ? 'merged' : 'pending';
    const fingerprint = fingerprintOf(text, changes);
    let award: AwardResult | null = null;
    let post: IntelPost;
    try {
      post = await this.db.prisma.$transaction(async (tx) => {
        const made = await tx.intelPost.create({
          data: {
            itemId,
            accountId: actor.accountId,
            kind,
            text: text ?? null,
            changes: changes ? (changes as Prisma.InputJsonObject) : undefined,
            status,
            fingerprint,
            resolvedAt: status === 'merged' ? new Date() : null,
          },
        });
        if (status === 'merged') await this.apply(tx, item, changes!, actor.accountId);
        // Paid once per author and item (not per post): many small posts on one image earn what one does.
        if (!own) award = await this.rewards.award(actor.accountId, kind === 'comment' ? 'intel_comment' : 'intel_proposal', `intel:item:${itemId}`, { tx });
        return made;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const earlier = await this.db.prisma.intelPost.findFirst({ where: { itemId, accountId: actor.accountId, fingerprint } });
      throw new Conflict(`you already posted this intel on image ${itemId}${earlier ? ` (intel post ${earlier.id}, ${earlier.status})` : ''}`, text !== undefined ? 'text' : 'changes');
    }
    const paid = award as AwardResult | null;
    if (!paid) return { post, coinsEarned: 0, ...(await this.ledger.balance(actor.accountId, 'coins')), message: OWN_IMAGE };
    const coins = paid.status === 'paid' ? paid.coins : 0;
    return { post, coinsEarned: coins, balance: paid.balance, held: paid.held, message: coins > 0 ? null : (paid.message ?? `your ${kind === 'comment' ? 'comments' : 'proposals'} on image ${itemId} were paid before: one is paid per image`) };
  }

  /**
   * POST /api/wiki/image/intel/{id}/resolve: the image's owner approves (merges) or rejects a
   * pending proposal. Merging changes the item and pays the proposer in the transaction that moves
   * the status, so it happens once; a second resolution is a 409. Others get the 404 of a missing one.
   */
  async resolve(actor: Actor, postId: number, input: z.input<typeof resolveSchema>): Promise<IntelResolution> {
    const { action } = parseInput(resolveSchema, input);
    const where = intelPostPolicy.where(actor, 'change');
    const resolution = await this.db.prisma.$transaction(async (tx) => {
      const found = await tx.intelPost.findFirst({ where: { id: postId, AND: where }, include: { item: true } });
      if (!found) return intelPostPolicy.notFound(postId);
      const { item, ...proposal } = found;
      if (proposal.kind !== 'proposal') throw new Conflict(`intel post ${postId} is a comment, published when it was posted: there is nothing to resolve`);
      const status: IntelStatus = action === 'approve' ? 'merged' : 'rejected';
      if (status === 'merged' && item.removedAt) throw new Conflict(`community item ${item.id} was taken down by an ownership claim: nothing can be merged into it`);
      // The status moves once: a concurrent resolution waits for this row, then finds it resolved.
      const moved = await tx.intelPost.updateMany({ where: { id: postId, status: 'pending' }, data: { status, resolvedAt: new Date() } });
      const post = await tx.intelPost.findUniqueOrThrow({ where: { id: postId } });
      if (moved.count === 0) throw new Conflict(`intel proposal ${postId} was already ${post.status}`);
      if (status === 'rejected') return { post, item, proposerPaid: 0, message: null };
      const changes = changesOf(post);
      const merged = changes ? await this.apply(tx, item, changes, post.accountId) : item;
      const award = await this.rewards.award(post.accountId, 'intel_merged', `intel:${postId}`, { tx });
      const paid = award.status === 'paid' ? award.coins : 0;
      return { post, item: merged, proposerPaid: paid, message: paid > 0 ? null : (award.message ?? null) };
    });
    if (resolution.post.status === 'merged') await this.mergeListener?.(resolution.item, postId);
    return resolution;
  }

  /** POST /api/wiki/image/{id}/policy: the item's owner sets its intel policy; pending proposals stay pending. */
  async setPolicy(actor: Actor, itemId: number, input: z.input<typeof policySchema>): Promise<CommunityItem> {
    const { policy } = parseInput(policySchema, input);
    const item = await this.community.get(actor, itemId);
    const changed = await this.db.prisma.communityItem.updateManyAndReturn({ where: { id: item.id, AND: communityItemPolicy.where(actor, 'change') }, data: { intelPolicy: policy } });
    if (changed.length === 0) throw new Forbidden(`policy: only the contributor of image ${itemId} sets its intel policy`);
    return changed[0]!;
  }

  /** One post the caller may read. */
  async get(actor: Actor | null, id: number): Promise<IntelPost> {
    return intelPostPolicy.findOne(actor, id, (where) => this.db.prisma.intelPost.findFirst({ where }));
  }

  /** GET /api/wiki/image/{id}/intel: the item's published intel (approved comments, merged proposals), newest first. */
  async published(actor: Actor, itemId: number, input: z.input<typeof intelPageSchema>): Promise<IntelPage> {
    const { limit, offset } = parseInput(intelPageSchema, input);
    const item = await this.community.get(actor, itemId);
    return this.page(item, { itemId, status: { in: ['approved', 'merged'] } }, limit, offset);
  }

  /**
   * GET /api/wiki/image/{id}/proposals: the item's proposals of a status (default pending), oldest
   * first: all of them for its owner; for others their own (and merged ones, which are published).
   */
  async proposals(actor: Actor, itemId: number, input: z.input<typeof proposalsSchema>): Promise<IntelPage> {
    const { status, limit, offset } = parseInput(proposalsSchema, input);
    const item = await this.community.get(actor, itemId);
    return this.page(item, { itemId, kind: 'proposal', status, AND: intelPostPolicy.where(actor) }, limit, offset, 'asc');
  }

  private async page(item: CommunityItem, where: Prisma.IntelPostWhereInput, limit: number, offset: number, order: 'asc' | 'desc' = 'desc'): Promise<IntelPage> {
    const [posts, total] = await Promise.all([
      this.db.prisma.intelPost.findMany({ where, orderBy: { id: order }, take: limit, skip: offset }),
      this.db.prisma.intelPost.count({ where }),
    ]);
    return { item, posts, total, limit, offset };
  }

  /**
   * Writes the proposed values into the item (in the caller's transaction). Tags go through the
   * community's rule, so tags that leave lose their vision confirmation and new ones are checked.
   */
  private async apply(tx: Tx, item: CommunityItem, changes: IntelChanges, proposer: number): Promise<CommunityItem> {
    const updated = await tx.communityItem.update({
      where: { id: item.id },
      data: {
        ...(changes.caption !== undefined ? { caption: changes.caption } : {}),
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.latitude !== undefined && changes.longitude !== undefined ? { latitude: changes.latitude, longitude: changes.longitude } : {}),
      },
    });
    return changes.tags !== undefined ? this.community.setTags(tx, updated, changes.tags, proposer) : updated;
  }
}
