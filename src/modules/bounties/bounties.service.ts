// Bounties (spec "Economy"): a poster offers reward_per_photo coins for each of photos_needed photos
// of a subject. The whole budget is escrowed at once, as one pending transfer per photo (a slot) from
// the poster to the escrow account, so the coins are reserved in the poster's wallet and nothing can
// spend them twice. A claim takes the claimant's own community upload that shows the subject: it
// posts the next slot and pays the claimant from escrow in one linked batch, in the one statement
// that records the claim (bounty_claim(): each upload claims once; the last slot goes to exactly one
// claim, the bounty row being locked; the answer's balance is the one the claim left). Expiry (the scheduler's sweep) and cancellation void the slots
// left, returning their coins to the poster.
//
// "Of that subject": the community's one rule (subject-evidence.ts): the subject (its slug or name,
// through the tag keys) is among the upload's tags that vision confirmed by what it sees, not by text
// read in the image alone, or a verified wiki photo of the subject is of the same image object
// (README "Economy: bounties").
import type { z } from 'zod';
import type { Bounty } from '../../generated/prisma/client.js';
import { utcFromJson, type Database } from '../../platform/database/database.js';
import { modelRows, type ModelRows } from '../../platform/database/model-rows.js';
import { pageAndTotal } from '../../platform/database/page-and-total.js';
import { Conflict, Forbidden, InvalidInput, NotFound } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { SUBJECT_CHECK_SQL, subjectCheckOf, subjectKeysOf, type CommunityService, type SubjectCheck } from '../community/index.js';
import { fromMinor, LedgerAction, type Balance, type LedgerService, type Tx } from '../ledger/index.js';
import { bountyPolicy } from './bounties.access.js';
import { claimBountySchema, createBountySchema, listBountiesSchema, slugify } from './bounties.input.js';

export type { Bounty };

export interface BountyClaimResult extends Balance {
  bounty: Bounty;
  itemId: number;
  /** Coins paid to the claimant. */
  paid: number;
}

const DAY_MS = 86_400_000;
/** Escrow slots stay reserved a day past the bounty's expiry, so the sweep (not the ledger's own expiry) closes them. */
const SLOT_GRACE_MS = DAY_MS;

const slotId = (bountyId: number | string, slot: number | string) => `bounty:${bountyId}:slot:${slot}`;
/** Stand-ins in ledger legs that the SQL replaces: the new bounty's id, the slot a claim takes (no id or reference holds them otherwise). */
const BOUNTY_ID = '{bounty}';
const SLOT = '{slot}';

/** A Bounty row as to_jsonb() answers it (timestamps without zone, the bigint as a number). */
type RawBounty = Omit<Bounty, 'rewardPerPhoto' | 'expiresAt' | 'closedAt' | 'createdAt'> & { rewardPerPhoto: number; expiresAt: string; closedAt: string | null; createdAt: string };

function bountyOf(raw: RawBounty): Bounty {
  return {
    ...raw,
    rewardPerPhoto: BigInt(raw.rewardPerPhoto),
    expiresAt: utcFromJson(raw.expiresAt),
    closedAt: raw.closedAt === null ? null : utcFromJson(raw.closedAt),
    createdAt: utcFromJson(raw.createdAt),
  };
}

/** What bounty_claim() answers. */
interface ClaimAnswer {
  refused?: 'missing' | 'own' | 'closed' | 'not_shown' | 'claimed';
  bounty?: RawBounty;
  check?: Parameters<typeof subjectCheckOf>[0];
  applied?: Parameters<LedgerService['resultOf']>[0];
}

export class BountiesService {
  constructor(
    private readonly db: Database,
    private readonly ledger: LedgerService,
    private readonly community: CommunityService,
  ) {
    this.rows = modelRows<Bounty>(db.prisma, 'Bounty');
  }

  private readonly rows: ModelRows<Bounty>;

  /**
   * A new bounty with its budget escrowed; too few coins is a 402 and nothing is written. One
   * statement: the row's INSERT and ledger_apply() of its slots, whose ids name the new row's id
   * ('{bounty}' in the legs), so a refused escrow rolls the row back with it.
   */
  async create(actor: Actor, input: z.input<typeof createBountySchema>): Promise<Bounty> {
    const options = parseInput(createBountySchema, input);
    const slug = options.subject_slug || slugify(options.subject_name!);
    if (!slug) throw new InvalidInput('subject_name: expected letters or digits to make a slug of', 'subject_name');
    const expiresAt = new Date(Date.now() + options.expires_days * DAY_MS);
    const slots = this.ledger.legsOf(
      Array.from({ length: options.photos_needed }, (_, slot) => ({
        id: slotId(BOUNTY_ID, slot),
        currency: 'coins' as const,
        from: { account: actor.accountId },
        to: { system: 'escrow' as const },
        amount: options.reward_per_photo,
        action: LedgerAction.BountyEscrow,
        reference: `bounty:${BOUNTY_ID}`,
        pending: { expiresInMs: expiresAt.getTime() - Date.now() + SLOT_GRACE_MS },
      })),
    );
    const { bounty } = await this.ledger.call<{ bounty: RawBounty }>(
      `WITH b AS (
         INSERT INTO "Bounty" ("accountId", "subjectSlug", "subjectName", "description", "rewardPerPhoto", "photosNeeded", "expiresAt", "createdAt")
         VALUES ($2, $3, $4, $5, $6::bigint, $7, $8::timestamp(3), timezone('UTC', now())) RETURNING *)
       SELECT jsonb_build_object('bounty', to_jsonb(b), 'applied', ledger_apply(replace($1, '${BOUNTY_ID}', b."id"::text)::jsonb))::text AS r FROM b`,
      [
        JSON.stringify(slots),
        actor.accountId,
        slug,
        options.subject_name ?? slug.replace(/-/g, ' '),
        options.description ?? null,
        String(options.reward_per_photo),
        options.photos_needed,
        expiresAt.toISOString(),
      ],
    );
    return bountyOf(bounty);
  }

  /** Bounties, newest first, by status; any key reads them (bounties.access.ts). */
  async list(actor: Actor, input: z.input<typeof listBountiesSchema>): Promise<{ bounties: Bounty[]; total: number; limit: number; offset: number }> {
    const { status, limit, offset } = parseInput(listBountiesSchema, input);
    // The page and its count in one statement on the driver (Prisma's compile of the same findMany was
    // most of a cold list's CPU, bench/RESULTS.md): every key reads every bounty (bountyPolicy.read),
    // so status is the filter.
    const { rows, total } = await pageAndTotal(this.db, {
      select: this.rows.columns,
      from: '"Bounty"',
      where: status ? '"status" = $1' : 'true',
      orderBy: '"id" DESC',
      params: status ? [status] : [],
      limit,
      offset,
    });
    return { bounties: rows.map(this.rows.row), total, limit, offset };
  }

  async get(actor: Actor, id: number): Promise<Bounty> {
    return bountyPolicy.findOne(actor, id, (where) => this.db.prisma.bounty.findFirst({ where }));
  }

  /**
   * Pays the claimant for one upload of theirs that shows the subject (community subjectEvidence:
   * a confirmed tag of the subject that is not text alone, or a verified wiki photo of it on the same
   * image object), at once. The bounty is looked up first: a missing one is a 404 whatever the upload.
   */
  async claim(actor: Actor, bountyId: number, input: z.input<typeof claimBountySchema>): Promise<BountyClaimResult> {
    const { crowdsource_id: itemId } = parseInput(claimBountySchema, input);
    const bounty = await this.get(actor, bountyId);
    const item = await this.community.get(actor, itemId);
    if (item.accountId !== actor.accountId) throw new Forbidden('crowdsource_id: a bounty is claimed with your own upload');
    if (item.removedAt) throw new NotFound(`no community item ${itemId}`);
    // One statement (bounty_claim(), prisma/migrations/*_bounty_statements): the locks, the subject
    // check after them, the claim, the bounty's advance and the payment, or a refusal that wrote nothing.
    const keys = subjectKeysOf([{ slug: bounty.subjectSlug, name: bounty.subjectName }]);
    const legs = this.ledger.legsOf([
      { post: slotId(bountyId, SLOT) },
      { id: `${slotId(bountyId, SLOT)}:paid`, currency: 'coins', from: { system: 'escrow' }, to: { account: actor.accountId }, amount: Number(bounty.rewardPerPhoto), action: LedgerAction.BountyClaim, reference: `community:${itemId}` },
    ]);
    const answer = await this.ledger.call<ClaimAnswer>('SELECT bounty_claim($1, $2, $3, $4, $5::text[], $6)::text AS r', [
      bountyId,
      itemId,
      actor.accountId,
      SUBJECT_CHECK_SQL,
      keys,
      JSON.stringify(legs),
    ]);
    switch (answer.refused) {
      case undefined:
        break;
      case 'missing':
        throw new NotFound(`no bounty ${bountyId}`);
      case 'own':
        throw new Forbidden('you posted this bounty: it is for other people’s photos');
      case 'closed': {
        const { status } = answer.bounty!;
        throw new Conflict(`bounty ${bountyId} is ${status === 'open' ? 'expired' : status}: it takes no more claims`);
      }
      case 'not_shown':
        throw notShown(itemId, bounty, subjectCheckOf(answer.check, keys) as Extract<SubjectCheck, { shows: false }>);
      case 'claimed':
        throw new Conflict(`crowdsource_id: community item ${itemId} has claimed a bounty already (each upload claims once)`, 'crowdsource_id');
    }
    const claimed = bountyOf(answer.bounty!);
    const { wallets } = this.ledger.resultOf(answer.applied!);
    return { bounty: claimed, itemId, paid: fromMinor(claimed.rewardPerPhoto), ...(await this.ledger.balanceAfter(actor.accountId, 'coins', wallets)) };
  }

  /** The poster closes an open bounty: the slots not claimed go back to the poster. */
  async cancel(actor: Actor, bountyId: number): Promise<Bounty> {
    return this.db.prisma.$transaction(async (tx) => {
      const yours = await tx.bounty.findFirst({ where: { id: bountyId, AND: bountyPolicy.where(actor, 'change') }, select: { id: true } });
      const [locked] = yours ? await tx.$queryRaw<Bounty[]>`SELECT * FROM "Bounty" WHERE "id" = ${bountyId} FOR UPDATE` : [];
      if (!locked) throw new NotFound(`no bounty ${bountyId} of yours`);
      if (locked.status !== 'open') throw new Conflict(`bounty ${bountyId} is ${locked.status} already`);
      return this.close(tx, locked, 'cancelled');
    });
  }

  /** The scheduler's sweep: open bounties past their expiry become expired and return their rest. Returns how many. */
  async expireDue(limit = 100): Promise<number> {
    const due = await this.db.prisma.bounty.findMany({ where: { status: 'open', expiresAt: { lt: new Date() } }, select: { id: true }, orderBy: { expiresAt: 'asc' }, take: limit });
    let expired = 0;
    for (const { id } of due) {
      const closed = await this.db.prisma.$transaction(async (tx) => {
        const [locked] = await tx.$queryRaw<Bounty[]>`SELECT * FROM "Bounty" WHERE "id" = ${id} FOR UPDATE`;
        if (!locked || locked.status !== 'open') return false;
        await this.close(tx, locked, 'expired');
        return true;
      });
      if (closed) expired++;
    }
    return expired;
  }

  /** What was escrowed and not paid: (photos needed - claimed) x reward, in coins. */
  static remaining(bounty: Bounty): number {
    return fromMinor(BigInt(bounty.photosNeeded - bounty.photosClaimed) * bounty.rewardPerPhoto);
  }

  private async close(tx: Tx, bounty: Bounty, status: 'cancelled' | 'expired'): Promise<Bounty> {
    const slots = Array.from({ length: bounty.photosNeeded - bounty.photosClaimed }, (_, i) => ({ void: slotId(bounty.id, bounty.photosClaimed + i) }));
    if (slots.length > 0) await this.ledger.applyLinked(slots, { tx });
    return tx.bounty.update({ where: { id: bounty.id }, data: { status, closedAt: new Date() } });
  }
}

/** Why an upload does not show the bounty's subject, as the claim's 4xx. */
function notShown(itemId: number, bounty: Pick<Bounty, 'subjectSlug' | 'subjectName'>, check: Extract<SubjectCheck, { shows: false }>): Error {
  const wiki = `or a verified wiki photo of ${bounty.subjectSlug} of the same image`;
  if (check.tag === null) {
    return new InvalidInput(`crowdsource_id: the upload is not of ${bounty.subjectName}: none of its tags is "${bounty.subjectSlug}" or "${bounty.subjectName}" (${wiki} is needed)`, 'crowdsource_id');
  }
  if (check.evidence === 'text') {
    return new Conflict(
      `crowdsource_id: community item ${itemId}'s tag "${check.tag}" is confirmed only by text read in the image (OCR), which does not show ${bounty.subjectName}: a claim needs the tag confirmed by what vision sees (a label, a model's judgement or the caption), ${wiki}`,
      'crowdsource_id',
    );
  }
  return new Conflict(
    `crowdsource_id: community item ${itemId}'s tag "${check.tag}" is not AI-verified: a claim needs the subject among the upload's vision-confirmed tags (tag it so that vision can confirm it), ${wiki}`,
    'crowdsource_id',
  );
}
