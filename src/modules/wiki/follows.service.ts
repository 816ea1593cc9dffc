// Following wiki subjects (spec route table: POST and DELETE /api/community/subjects/{slug}/follow,
// GET /api/community/following) and what followers hear of over GraphQL (followedSubjectEvents):
// a subject's new verified photo, and a merged image-intel proposal on a community item tagged with
// the subject's slug. Events go to each follower's own topic (by account id), so a subscriber only
// ever hears of subjects it follows.
import type { Database } from '../../platform/database/database.js';
import type { EventBus, SubjectEventPayload } from '../../platform/events.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import type { Actor } from '../accounts/index.js';
import { wikiSubjectPolicy } from './wiki.access.js';
import { followingSchema } from './wiki.input.js';
import type { WikiService, WikiSubject } from './wiki.service.js';

/** What a follower hears (the event bus's subjectEvents topic). */
export type SubjectEvent = SubjectEventPayload;

export interface FollowResult {
  subject: WikiSubject;
  following: boolean;
  /** Nothing changed: already followed (follow) or not followed (unfollow). */
  unchanged: boolean;
}

export class FollowsService {
  constructor(
    private readonly db: Database,
    private readonly wiki: WikiService,
    private readonly events: EventBus,
    private readonly logger: Logger,
  ) {}

  async follow(actor: Actor, slug: string): Promise<FollowResult> {
    const subject = await this.wiki.subject(actor, slug);
    const inserted = await this.db.prisma.$executeRaw`INSERT INTO "SubjectFollow" ("subjectId", "accountId") VALUES (${subject.id}, ${actor.accountId}) ON CONFLICT DO NOTHING`;
    return { subject, following: true, unchanged: inserted === 0 };
  }

  async unfollow(actor: Actor, slug: string): Promise<FollowResult> {
    const subject = await this.wiki.subject(actor, slug);
    const removed = await this.db.prisma.subjectFollow.deleteMany({ where: { subjectId: subject.id, accountId: actor.accountId } });
    return { subject, following: false, unchanged: removed.count === 0 };
  }

  /** The subjects the caller follows, most recently followed first (subjects taken down by review are left out). */
  async following(actor: Actor, input: { limit?: number; offset?: number }): Promise<{ subjects: Array<WikiSubject & { followedAt: Date }>; total: number; limit: number; offset: number }> {
    const { limit, offset } = parseInput(followingSchema, input);
    const where = { accountId: actor.accountId, subject: wikiSubjectPolicy.where(actor) };
    const [rows, total] = await Promise.all([
      this.db.prisma.subjectFollow.findMany({ where, include: { subject: true }, orderBy: [{ createdAt: 'desc' }, { subjectId: 'desc' }], take: limit, skip: offset }),
      this.db.prisma.subjectFollow.count({ where }),
    ]);
    return { subjects: rows.map((r) => ({ ...r.subject, followedAt: r.createdAt })), total, limit, offset };
  }

  /** Tells every follower of the subject (best effort: a lost event never fails the vote that caused it). */
  async announce(event: SubjectEvent): Promise<void> {
    try {
      const followers = await this.db.prisma.subjectFollow.findMany({ where: { subjectId: event.subjectId }, select: { accountId: true } });
      for (const { accountId } of followers) this.events.publish('subjectEvents', accountId, event);
    } catch (error) {
      this.logger.warn({ err: error, event }, 'wiki: telling followers failed');
    }
  }

  /** A merged proposal on a community item: announced to the approved subjects whose slug is one of its tags. */
  async announceMerged(item: { id: number; tags: string[] }, postId: number): Promise<void> {
    if (item.tags.length === 0) return;
    const subjects = await this.db.prisma.wikiSubject.findMany({ where: { slug: { in: item.tags }, status: 'approved' }, select: { id: true } });
    for (const subject of subjects) await this.announce({ type: 'proposal_merged', subjectId: subject.id, photoId: null, itemId: item.id, postId });
  }
}
