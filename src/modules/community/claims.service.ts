// Ownership claims on community items (spec route table: GET, POST /api/community/{id}/claim): a
// person says an image is theirs and asks for its removal, or for a royalty on each use of it. The
// operator reviews claims (CLI `claims list|approve|reject`, the admin API). An approved removal
// hides the item from every public surface (search, detail for others, portfolios, the leaderboard,
// unlocks, file links); an approved royalty is paid to the claimant out of the uploader's share of
// each unlock of the item (docs/rest-api.md "Community": what a use is).
import type { z } from 'zod';
import type { OwnershipClaim } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { isUniqueViolation } from '../../platform/database/errors.js';
import { Conflict, Forbidden, NotFound } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { ownershipClaimPolicy } from './community.access.js';
import { claimListSchema, claimSchema, type ClaimStatus } from './community.input.js';
import type { CommunityService } from './community.service.js';

export type { OwnershipClaim };

export class ClaimsService {
  constructor(
    private readonly db: Database,
    private readonly community: CommunityService,
  ) {}

  /** A new claim on an item the caller can see and did not contribute; one open claim per kind. */
  async submit(actor: Actor, itemId: number, input: z.input<typeof claimSchema>): Promise<OwnershipClaim> {
    const claim = parseInput(claimSchema, input);
    const item = await this.community.get(actor, itemId);
    if (item.accountId === actor.accountId) throw new Forbidden('you contributed this item: there is nothing to claim');
    try {
      return await this.db.prisma.ownershipClaim.create({
        data: { itemId, accountId: actor.accountId, kind: claim.kind, royalty: claim.royalty_coins === undefined ? null : BigInt(claim.royalty_coins), reason: claim.reason },
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const existing = await this.db.prisma.ownershipClaim.findFirstOrThrow({ where: { itemId, accountId: actor.accountId, kind: claim.kind } });
      throw new Conflict(`you already made a ${claim.kind} claim on item ${itemId} (claim ${existing.id}, ${existing.status})`, 'kind');
    }
  }

  /** Claims on an item the caller may see: their own, or every claim when the item is theirs. */
  async forItem(actor: Actor, itemId: number): Promise<OwnershipClaim[]> {
    await this.community.get(actor, itemId);
    return this.db.prisma.ownershipClaim.findMany({ where: { itemId, AND: ownershipClaimPolicy.where(actor) }, orderBy: { id: 'asc' } });
  }

  /** The operator's queue (admin token): newest first, filtered by status. */
  async list(input: z.input<typeof claimListSchema>): Promise<{ claims: OwnershipClaim[]; total: number; limit: number; offset: number }> {
    const { status, limit, offset } = parseInput(claimListSchema, input);
    const where = status ? { status } : {};
    const [claims, total] = await Promise.all([
      this.db.prisma.ownershipClaim.findMany({ where, orderBy: { id: 'desc' }, take: limit, skip: offset }),
      this.db.prisma.ownershipClaim.count({ where }),
    ]);
    return { claims, total, limit, offset };
  }

  /** The operator's decision on a pending claim; approving a removal takes the item down in the same transaction. */
  async review(claimId: number, decision: Exclude<ClaimStatus, 'pending'>): Promise<OwnershipClaim> {
    return this.db.prisma.$transaction(async (tx) => {
      const moved = await tx.ownershipClaim.updateMany({ where: { id: claimId, status: 'pending' }, data: { status: decision, reviewedAt: new Date() } });
      const claim = await tx.ownershipClaim.findUnique({ where: { id: claimId } });
      if (!claim) throw new NotFound(`no ownership claim ${claimId}`);
      if (moved.count === 0) throw new Conflict(`claim ${claimId} was already ${claim.status}`);
      if (decision === 'approved' && claim.kind === 'removal') {
        await tx.communityItem.updateMany({ where: { id: claim.itemId, removedAt: null }, data: { removedAt: new Date() } });
      }
      return claim;
    });
  }
}
