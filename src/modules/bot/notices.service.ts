// Durable "tell this chat when the job ends" rows (/scrape). A job may finish in any process (a
// worker on another machine); the row and the job row together say what is due, so whichever process
// runs the bot finds it by polling, and sooner when the job's event reaches it. A notice is claimed
// atomically before it is sent, so two processes never send it twice.
import type { Database } from '../../platform/database/database.js';

/** Sends after which a notice that keeps failing is given up (logged). */
export const MAX_NOTICE_ATTEMPTS = 5;
const BATCH = 20;

export interface DueNotice {
  id: number;
  jobId: number;
  chatId: number;
  accountId: number;
  attempts: number;
  state: 'completed' | 'failed';
  assetsStored: number;
  error: string | null;
}

export class BotNoticesService {
  constructor(private readonly db: Database) {}

  async record(jobId: number, chatId: number, accountId: number): Promise<void> {
    await this.db.prisma.botNotice.create({ data: { jobId, chatId: BigInt(chatId), accountId } });
  }

  /** Claims notices whose job has finished (at most BATCH); each is this caller's to send. */
  async claimDue(): Promise<DueNotice[]> {
    const rows = await this.db.query<{ id: number; job_id: number; chat_id: string; account_id: number; attempts: number; state: DueNotice['state']; assets_stored: number; error: string | null }>(
      `UPDATE "BotNotice" n SET "sentAt" = now(), attempts = n.attempts + 1
         FROM "Job" j
        WHERE j.id = n."jobId"
          AND n.id IN (SELECT d.id FROM "BotNotice" d JOIN "Job" dj ON dj.id = d."jobId"
                        WHERE d."sentAt" IS NULL AND dj.state IN ('completed', 'failed')
                        ORDER BY d.id LIMIT ${BATCH} FOR UPDATE OF d SKIP LOCKED)
        RETURNING n.id, n."jobId" AS job_id, n."chatId"::text AS chat_id, n."accountId" AS account_id, n.attempts,
                  j.state::text AS state, j."assetsStored" AS assets_stored, j.error`,
    );
    return rows.map((r) => ({ id: r.id, jobId: r.job_id, chatId: Number(r.chat_id), accountId: r.account_id, attempts: r.attempts, state: r.state, assetsStored: r.assets_stored, error: r.error }));
  }

  /** A send that failed: due again at the next look, until MAX_NOTICE_ATTEMPTS. False when given up. */
  async release(notice: DueNotice): Promise<boolean> {
    if (notice.attempts >= MAX_NOTICE_ATTEMPTS) return false;
    await this.db.prisma.botNotice.updateMany({ where: { id: notice.id }, data: { sentAt: null } });
    return true;
  }
}
