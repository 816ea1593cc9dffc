// Paywalled originals: a buyer's unlock pays the uploader (less approved royalties) and the fees
// account in one linked transfer, and who may fetch an item's original.
import type { CommunityItem } from '../../generated/prisma/client.js';
import { NotFound } from '../../platform/errors.js';
import type { Actor } from '../accounts/index.js';
import { fromMinor, LedgerAction, type Balance, type LedgerActionName, type TransferRequest } from '../ledger/index.js';
import type { CommunityListings } from './listings.service.js';
import type { CommunityDeps } from './community.deps.js';

/** The uploader's share of an unlock, in percent (spec: 80). The rest goes to the service's fees account. */
export const UPLOADER_SHARE_PERCENT = 80;

export interface UnlockResult extends Balance {
  item: CommunityItem;
  /** Coins the buyer paid now (0: free, the buyer's own item, or unlocked before). */
  charged: number;
  alreadyUnlocked: boolean;
  /** What the uploader received from this payment (80%, less any approved royalties). */
  uploaderEarned: number;
}

export class UnlocksService {
  constructor(
    private readonly deps: CommunityDeps,
    private readonly listings: CommunityListings,
  ) {}

  /**
   * POST /api/community/{id}/unlock: the buyer pays the unlock price once; the uploader gets 80% at
   * once, the fees account the rest, in one linked transfer (approved royalty claims are paid out of
   * the uploader's share in the same transfer). Unlocking again, one's own item or a free one costs nothing.
   */
  async unlock(actor: Actor, id: number): Promise<UnlockResult> {
    const item = await this.listings.get(actor, id);
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
    // One statement: the unlock's row decides (a concurrent unlock by the same buyer waits on it, then
    // finds it), and the payment commits with it or, refused, takes it back.
    const { applied, balance } = await this.deps.ledger.applyShowing(legs, { accountId: actor.accountId, currency: 'coins' }, {
      insert: 'INSERT INTO "CommunityUnlock" ("itemId", "accountId", "price") VALUES ($4, $5, $6) ON CONFLICT DO NOTHING',
      params: [id, actor.accountId, price],
    });
    if (!applied) return { item, charged: 0, alreadyUnlocked: true, uploaderEarned: 0, ...balance };
    return { item, charged: fromMinor(price), alreadyUnlocked: false, uploaderEarned: fromMinor(left), ...balance };
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
}
