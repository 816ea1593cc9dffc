// Crowd tags (POST /api/community/{id}/tag): each tag confirmed or not by what vision saw of the
// item, and the tagging rewards; and tags another rule writes (a merged intel proposal).
import type { z } from 'zod';
import type { CommunityItem } from '../../generated/prisma/client.js';
import { Conflict, Forbidden } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import type { Balance, Tx } from '../ledger/index.js';
import type { CommunityListings } from './listings.service.js';
import { seenOf, type CommunityVision } from './item-vision.js';
import type { CommunityDeps } from './community.deps.js';
import { tagSchema } from './community.input.js';
import { confirmTags, type TagConfirmation } from './tag-confirmation.js';

export interface TagResult extends Balance {
  item: CommunityItem;
  coinsEarned: number;
  /** A tag of this set is confirmed by vision. */
  verified: boolean;
  /** Tags of this set that vision confirmed (each with its evidence in CommunityTagConfirmation). */
  matched: string[];
  message: string | null;
}

const todayUtc = () => new Date().toISOString().slice(0, 10);

export class TaggingService {
  constructor(
    private readonly deps: CommunityDeps,
    private readonly listings: CommunityListings,
    private readonly vision: CommunityVision,
  ) {}

  /**
   * POST /api/community/{id}/tag: adds (anyone) or replaces (the contributor only) the item's tags.
   * Vision's evidence confirms each tag of the set on its own; tags that leave the item lose their
   * confirmation, and the item is verified while one of its tags is confirmed. Pays a tagger once
   * per item (the tagging rate, when the set adds a tag the item did not have), and the bonus once
   * per item when a tag this tagger added is newly confirmed; tagging one's own items earns nothing.
   */
  async tag(actor: Actor, id: number, input: z.input<typeof tagSchema>): Promise<TagResult> {
    const { tags, action } = parseInput(tagSchema, input);
    let item = await this.listings.get(actor, id);
    if (item.removedAt) throw new Conflict(`community item ${id} was taken down by an ownership claim: it takes no more tags`);
    if (action === 'replace' && item.accountId !== actor.accountId) throw new Forbidden("action: only the item's contributor may replace its tags; others add");
    item = await this.vision.analyzed(item, actor.accountId);
    const evidence = await this.vision.confirm(item, tags, actor.accountId);
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
}
