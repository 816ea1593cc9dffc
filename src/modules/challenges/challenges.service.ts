// Fact-checking challenges (spec "Community": GET /api/community/challenge, POST
// /api/community/challenge/vote/{id}; "Reward rates": the challenge event's 2x multiplier). The
// operator opens a time window over a wiki category or a list of subjects (CLI `challenge`, the admin
// API); while it runs, a vote through the challenge on a pending photo of its scope is exactly a wiki
// vote (one per account and photo, counted toward verification like any other), but its vote reward
// is multiplied by the `challenge_multiplier` rate (default 2: 0.5 coins become 1.0).
//
// One challenge at a time: windows never overlap (the migration's exclusion constraint decides,
// also between concurrent creations), so "the active challenge" is always one or none. A window is
// [starts_at, ends_at); ending it early moves ends_at to that moment (to starts_at for one that had
// not started: it is then never active) and records ended_at.
import type { z } from 'zod';
import type { Challenge, Prisma } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { Conflict, InvalidInput } from '../../platform/errors.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { fromMinor, rewardAmount, type Balance, type RewardsService } from '../ledger/index.js';
import type { WikiMedia, WikiService, WikiSubject } from '../wiki/index.js';
import {
  boardSchema,
  challengeListSchema,
  challengeVoteSchema,
  createChallengeSchema,
  MAX_CHALLENGE_DAYS,
  MAX_CHALLENGE_LEAD_DAYS,
  type ChallengeScope,
  type ChallengeStatus,
} from './challenges.input.js';
import { challengePolicy } from './challenges.access.js';

export type { Challenge };

export interface ChallengesDeps {
  db: Database;
  wiki: WikiService;
  rewards: RewardsService;
}

/** GET /api/community/challenge: the active challenge (or none) and what the caller may vote on in it. */
export interface ChallengeBoard {
  challenge: Challenge | null;
  /** Coins a challenge vote pays now (vote rate x coin_multiplier x challenge_multiplier); null without a challenge. */
  coinsPerVote: number | null;
  photos: WikiMedia[];
}

export interface ChallengeVoteResult extends Balance {
  challenge: Challenge;
  media: WikiMedia;
  coinsEarned: number;
  decided: boolean;
}

const DAY_MS = 86_400_000;
/** A start this far in the past is still "now" (the operator's clock, the trip to the service). */
const START_SKEW_MS = 60_000;

/** Where a challenge stands at `now`. */
export function challengeStatus(challenge: Pick<Challenge, 'startsAt' | 'endsAt' | 'endedAt'>, now = new Date()): ChallengeStatus {
  if (challenge.endedAt || challenge.endsAt <= now) return 'ended';
  return challenge.startsAt > now ? 'scheduled' : 'active';
}

export function challengeScope(challenge: Pick<Challenge, 'category'>): ChallengeScope {
  return challenge.category === null ? 'subjects' : 'category';
}

/** Is a subject in a challenge's scope (approved, and of its category or among its subjects)? */
export function inScope(challenge: Pick<Challenge, 'category' | 'subjectIds'>, subject: Pick<WikiSubject, 'id' | 'category' | 'status'>): boolean {
  if (subject.status !== 'approved') return false;
  return challenge.category !== null ? subject.category === challenge.category : challenge.subjectIds.includes(subject.id);
}

/** The Prisma filter of the subjects in a challenge's scope. */
const scopeWhere = (challenge: Pick<Challenge, 'category' | 'subjectIds'>) => ({
  status: 'approved',
  ...(challenge.category !== null ? { category: challenge.category } : { id: { in: challenge.subjectIds } }),
});

const describeScope = (challenge: Pick<Challenge, 'category' | 'subjectIds'>) =>
  challenge.category !== null ? `category ${challenge.category}` : `${challenge.subjectIds.length} subject${challenge.subjectIds.length === 1 ? '' : 's'}`;

const iso = (date: Date) => date.toISOString();

export class ChallengesService {
  constructor(private readonly deps: ChallengesDeps) {}

  /**
   * The operator's new challenge (admin token): a title, a scope (`category` or `subjects`, not
   * both), and a window from `starts_at` (default now; not in the past, at most 365 days ahead) to
   * `ends_at` (after it, at most 90 days later) that overlaps no other challenge's (409).
   */
  async create(input: z.input<typeof createChallengeSchema>): Promise<Challenge> {
    const options = parseInput(createChallengeSchema, input);
    if (options.category === undefined && options.subjects === undefined) throw new InvalidInput('category or subjects is required: the wiki category, or the subject slugs, the challenge is about', 'category');
    if (options.category !== undefined && options.subjects !== undefined) throw new InvalidInput('subjects: give category or subjects, not both', 'subjects');
    const now = new Date();
    const startsAt = options.starts_at ?? now;
    const endsAt = options.ends_at;
    if (startsAt.getTime() < now.getTime() - START_SKEW_MS) throw new InvalidInput('starts_at: expected now or later (leave it out to start now)', 'starts_at');
    if (startsAt.getTime() > now.getTime() + MAX_CHALLENGE_LEAD_DAYS * DAY_MS) throw new InvalidInput(`starts_at: expected at most ${MAX_CHALLENGE_LEAD_DAYS} days from now`, 'starts_at');
    if (endsAt <= startsAt) throw new InvalidInput(`ends_at: expected after ${options.starts_at ? 'starts_at' : 'now (the start)'}`, 'ends_at');
    if (endsAt.getTime() - startsAt.getTime() > MAX_CHALLENGE_DAYS * DAY_MS) throw new InvalidInput(`ends_at: a challenge lasts at most ${MAX_CHALLENGE_DAYS} days`, 'ends_at');

    let subjectIds: number[] = [];
    if (options.category !== undefined) {
      const subjects = await this.deps.db.prisma.wikiSubject.count({ where: { category: options.category, status: 'approved' } });
      if (subjects === 0) throw new InvalidInput(`category: no approved wiki subject has the category ${options.category}`, 'category');
    } else {
      const slugs = [...new Set(options.subjects!.map((s) => s.normalize('NFKC').toLowerCase()))];
      const found = await this.deps.db.prisma.wikiSubject.findMany({ where: { slug: { in: slugs }, status: 'approved' }, select: { id: true, slug: true } });
      const bySlug = new Map(found.map((s) => [s.slug, s.id]));
      const missing = slugs.find((s) => !bySlug.has(s));
      if (missing !== undefined) throw new InvalidInput(`subjects: no approved wiki subject ${missing.slice(0, 200)}`, 'subjects');
      subjectIds = slugs.map((s) => bySlug.get(s)!);
    }

    // Times go in as UTC instants, whatever the session's time zone (the columns hold UTC, as Prisma writes them).
    // Creations take turns (a transaction-scoped advisory lock, taken by the statement itself before
    // its row exists): two inserts into an exclusion constraint's index at the same moment each wait
    // for the other, and PostgreSQL then ends one with a deadlock error instead of the violation.
    const window = [iso(startsAt), iso(endsAt)];
    let id: number;
    try {
      const [row] = await this.deps.db.query<{ id: number }>(
        `INSERT INTO "Challenge" ("title", "description", "category", "subjectIds", "startsAt", "endsAt")
         SELECT $1, $2, $3, ARRAY(SELECT jsonb_array_elements_text($4::jsonb)::int), ($5::timestamptz AT TIME ZONE 'UTC'), ($6::timestamptz AT TIME ZONE 'UTC')
         FROM (SELECT pg_advisory_xact_lock(hashtext('challenge:create'))) AS "turn"
         RETURNING "id"`,
        [options.title, options.description ?? null, options.category ?? null, JSON.stringify(subjectIds), ...window],
      );
      id = row!.id;
    } catch (error) {
      if ((error as { code?: string }).code !== '23P01') throw error;
      const [other] = await this.deps.db.query<{ id: number }>(
        `SELECT "id" FROM "Challenge" WHERE tsrange("startsAt", "endsAt") && tsrange(($1::timestamptz AT TIME ZONE 'UTC'), ($2::timestamptz AT TIME ZONE 'UTC')) ORDER BY "startsAt" LIMIT 1`,
        window,
      );
      const found = other ? await this.deps.db.prisma.challenge.findUnique({ where: { id: other.id } }) : null;
      throw new Conflict(
        found
          ? `the window overlaps challenge ${found.id} (${found.title.slice(0, 120)}, ${iso(found.startsAt)} to ${iso(found.endsAt)}): one challenge runs at a time; start at or after its end, or end it first`
          : 'the window overlaps another challenge: one challenge runs at a time',
      );
    }
    return this.deps.db.prisma.challenge.findUniqueOrThrow({ where: { id } });
  }

  /** The operator's list (admin token): latest start first, filtered by status. */
  async list(input: z.input<typeof challengeListSchema>): Promise<{ challenges: Challenge[]; total: number; limit: number; offset: number }> {
    const { status, limit, offset } = parseInput(challengeListSchema, input);
    const now = new Date();
    const where =
      status === 'active'
        ? { startsAt: { lte: now }, endsAt: { gt: now } }
        : status === 'scheduled'
          ? { startsAt: { gt: now }, endedAt: null }
          : status === 'ended'
            ? { OR: [{ endsAt: { lte: now } }, { endedAt: { not: null } }] }
            : {};
    const [challenges, total] = await Promise.all([
      this.deps.db.prisma.challenge.findMany({ where, orderBy: [{ startsAt: 'desc' }, { id: 'desc' }], take: limit, skip: offset }),
      this.deps.db.prisma.challenge.count({ where }),
    ]);
    return { challenges, total, limit, offset };
  }

  /** The operator ends a challenge now (a scheduled one is called off); a second end is a 409. */
  async end(id: number): Promise<Challenge> {
    const now = new Date();
    const found = (await this.deps.db.prisma.challenge.findUnique({ where: { id } })) ?? challengePolicy.notFound(id);
    if (challengeStatus(found, now) === 'ended') throw new Conflict(`challenge ${id} ended already (${iso(found.endedAt ?? found.endsAt)})`);
    // Shrinking a window never overlaps another; the guard makes a concurrent second end lose.
    const moved = await this.deps.db.prisma.challenge.updateMany({
      where: { id, endedAt: null, endsAt: found.endsAt },
      data: { endsAt: found.startsAt > now ? found.startsAt : now, endedAt: now },
    });
    if (moved.count === 0) throw new Conflict(`challenge ${id} ended already`);
    return this.deps.db.prisma.challenge.findUniqueOrThrow({ where: { id } });
  }

  /** The challenge running now, if any, among those the filter lets through (the caller's, by challenges.access.ts). */
  async active(visible: Prisma.ChallengeWhereInput, now = new Date()): Promise<Challenge | null> {
    return this.deps.db.prisma.challenge.findFirst({ where: { startsAt: { lte: now }, endsAt: { gt: now }, AND: visible }, orderBy: { id: 'asc' } });
  }

  /**
   * GET /api/community/challenge (any key): the active challenge, what a vote in it pays now, and the
   * pending photos of its scope the caller may vote on (not their own, not voted yet), oldest first.
   */
  async board(actor: Actor, input: z.input<typeof boardSchema>): Promise<ChallengeBoard> {
    const { limit } = parseInput(boardSchema, input);
    const challenge = await this.active(challengePolicy.where(actor));
    if (!challenge) return { challenge: null, coinsPerVote: null, photos: [] };
    const [photos, coinsPerVote] = await Promise.all([
      this.deps.db.prisma.wikiMedia.findMany({
        where: { status: 'pending', accountId: { not: actor.accountId }, subject: scopeWhere(challenge), votes: { none: { accountId: actor.accountId } } },
        orderBy: { id: 'asc' },
        take: limit,
      }),
      this.coinsPerVote(),
    ]);
    return { challenge, coinsPerVote, photos };
  }

  /**
   * POST /api/community/challenge/vote/{id} (`media` scope): a wiki vote on a pending photo of the
   * active challenge's scope, paid at the challenge multiplier. No active challenge, or a photo
   * outside its scope: 409 (the wiki vote route takes it at the normal rate). Then the wiki vote's
   * own rules: 404 for a photo the caller cannot see, 403 on one's own, 409 when voted or decided.
   */
  async vote(actor: Actor, id: number, input: z.input<typeof challengeVoteSchema>): Promise<ChallengeVoteResult> {
    const { vote } = parseInput(challengeVoteSchema, input);
    const challenge = await this.active(challengePolicy.where(actor));
    if (!challenge) throw new Conflict('no challenge is active now: votes pay the normal rate through the wiki vote (POST /api/wiki/metadata/{id}/vote)');
    const photo = await this.deps.wiki.media(actor, id);
    if (!inScope(challenge, photo.subject)) {
      throw new Conflict(`wiki photo ${id} is not in challenge ${challenge.id}: its subject ${photo.subject.slug} is outside the challenge's ${describeScope(challenge)}`);
    }
    const result = await this.deps.wiki.vote(actor, id, { vote }, { challenge: true });
    return { challenge, ...result };
  }

  /** Slugs of a subject-scoped challenge's subjects, in the operator's order (none for a category). */
  async subjectSlugs(challenge: Pick<Challenge, 'subjectIds'>): Promise<string[]> {
    if (challenge.subjectIds.length === 0) return [];
    const subjects = await this.deps.db.prisma.wikiSubject.findMany({ where: { id: { in: challenge.subjectIds } }, select: { id: true, slug: true } });
    const bySlug = new Map(subjects.map((s) => [s.id, s.slug]));
    return challenge.subjectIds.flatMap((id) => bySlug.get(id) ?? []);
  }

  /** Pending photos in a challenge's scope (every voter's, the caller's own too). */
  async pendingCount(challenge: Pick<Challenge, 'category' | 'subjectIds'>): Promise<number> {
    return this.deps.db.prisma.wikiMedia.count({ where: { status: 'pending', subject: scopeWhere(challenge) } });
  }

  /** What one challenge vote pays at the rates in force (before the daily cap). */
  async coinsPerVote(): Promise<number> {
    const { rates } = await this.deps.rewards.settings();
    return fromMinor(rewardAmount(rates.wiki_vote, [rates.coin_multiplier, rates.challenge_multiplier]));
  }
}
