// Schedules (spec "Automation"): recurring scrapes of one page. The scheduler's tick claims a due
// schedule with one conditional UPDATE that moves next_run to the following occurrence only where
// it still holds the due value; exactly one caller (of any process) wins it and starts the scrape,
// whose job row is written in the same transaction. Several occurrences missed while the service
// was down collapse into that one run.
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { AppError, Conflict } from '../../platform/errors.js';
import { createWithinCap } from '../../platform/database/caps.js';
import type { Logger } from '../../platform/logger.js';
import { parseInput } from '../../platform/validation.js';
import type { Account, Prisma, Schedule } from '../../generated/prisma/client.js';
import type { Actor } from '../accounts/index.js';
import { schedulePolicy } from './automation.access.js';
import { SUB_KEY_SCOPES } from '../api-keys/index.js';
import type { ScrapeService } from '../scrape/index.js';
import { scrapeInputSchema } from '../scrape/index.js';
import { DEFAULT_DAY_OF_WEEK, nextOccurrence, type Frequency } from './schedule-time.js';

export type { Schedule };

export const FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export const DEFAULT_HOUR = 8;
/** Due schedules one tick takes at most; the rest wait for the next tick. */
const TICK_BATCH = 100;

const scrapeFields = scrapeInputSchema.shape;
const hourMessage = 'expected an integer from 0 to 23 (UTC hour)';
const dayMessage = 'expected an integer from 0 (Monday) to 6 (Sunday)';

export const createSchema = z
  .object({
    url: scrapeFields.url,
    name: z.string({ error: 'name is required: a label for the schedule' }).trim().min(1, 'name is required: a label for the schedule').max(100, 'expected at most 100 characters'),
    schedule: z.enum(FREQUENCIES, { error: 'expected daily, weekly or monthly' }).default('weekly'),
    hour: z.number({ error: hourMessage }).int(hourMessage).min(0, hourMessage).max(23, hourMessage).default(DEFAULT_HOUR),
    day_of_week: z.number({ error: dayMessage }).int(dayMessage).min(0, dayMessage).max(6, dayMessage).optional(),
    max_files: scrapeFields.max_files,
    sniper_mode: scrapeFields.sniper_mode,
    ai_labeling: scrapeFields.ai_labeling,
    render: scrapeFields.render,
  })
  .superRefine((value, ctx) => {
    if (value.day_of_week !== undefined && value.schedule !== 'weekly') {
      ctx.addIssue({ code: 'custom', path: ['day_of_week'], message: `day_of_week applies to weekly schedules only; leave it out of a ${value.schedule} schedule` });
    }
  });

/** Setting a schedule on or off; left out, it flips. */
export const toggleSchema = z.object({
  enabled: z.boolean({ error: 'expected true or false (or 1 or 0)' }).optional().describe('omitted: flips it'),
});

/** Page sizes of the schedule list (GraphQL connection and REST `limit`). */
export const SCHEDULES_PAGE = { defaultSize: 100, maxSize: 200 } as const;

/** Unchecked input (REST body or GraphQL input); validated by the service. */
export interface CreateScheduleInput {
  url?: string;
  name?: string;
  schedule?: string;
  hour?: number;
  day_of_week?: number;
  max_files?: number;
  sniper_mode?: boolean;
  ai_labeling?: boolean;
  render?: boolean | null;
}

export function recurrenceOf(schedule: Pick<Schedule, 'frequency' | 'hour' | 'dayOfWeek'>) {
  return { frequency: schedule.frequency as Frequency, hour: schedule.hour, dayOfWeek: schedule.dayOfWeek };
}

/**
 * Who a scheduled run acts as: the owning account with a master key's scopes. It is not a key
 * (keyId 0), and the run does not go through request quotas: creating the schedule was the request.
 */
export function scheduleActor(account: Pick<Account, 'id' | 'handle' | 'tier'>): Actor {
  return { accountId: account.id, handle: account.handle, tier: account.tier, keyId: 0, keyKind: 'master', scopes: new Set(SUB_KEY_SCOPES), requestBudget: null };
}

export class SchedulesService {
  constructor(
    private readonly db: Database,
    private readonly scrape: ScrapeService,
    private readonly logger: Logger,
    private readonly perAccount: number,
  ) {}

  async create(actor: Actor, input: CreateScheduleInput, now = new Date()): Promise<Schedule> {
    const data = parseInput(createSchema, input);
    this.scrape.checkUrl(data.url);
    // Refused now (503), not at every run: this server cannot render pages.
    if (data.render) this.scrape.checkRender();
    const dayOfWeek = data.schedule === 'weekly' ? (data.day_of_week ?? DEFAULT_DAY_OF_WEEK) : null;
    return createWithinCap(this.db, {
      name: 'schedules',
      ownerId: actor.accountId,
      limit: this.perAccount,
      count: (tx) => tx.schedule.count({ where: { accountId: actor.accountId } }),
      refuse: (count) => new Conflict(`this account already has ${count} schedules (the limit is ${this.perAccount}); delete one first`),
      create: (tx) => tx.schedule.create({
        data: {
          accountId: actor.accountId,
          name: data.name,
          url: data.url,
          frequency: data.schedule,
          hour: data.hour,
          dayOfWeek,
          maxFiles: data.max_files,
          sniperMode: data.sniper_mode,
          aiLabeling: data.ai_labeling,
          // Left out: null, each run follows the operator's RENDER_AUTO as a scrape that leaves render out does.
          render: data.render ?? null,
          enabled: true,
          nextRunAt: nextOccurrence({ frequency: data.schedule, hour: data.hour, dayOfWeek }, now),
        },
      }),
    });
  }

  /** The caller's schedule; another account's is a 404, exactly like a missing one. */
  async getOwned(actor: Actor | null, id: number, query: Pick<Prisma.ScheduleFindFirstArgs, 'select' | 'include'> = {}): Promise<Schedule> {
    return schedulePolicy.findOne(actor, id, (where) => this.db.prisma.schedule.findFirst({ ...query, where }) as Promise<Schedule | null>);
  }

  delete(actor: Actor, id: number): Promise<{ id: number }> {
    return schedulePolicy.deleteOne(actor, id, (where) => this.db.prisma.schedule.deleteMany({ where }));
  }

  /** Sets `enabled` (or flips it when not given). Enabling computes a fresh next run from now. */
  async toggle(actor: Actor, id: number, input: z.input<typeof toggleSchema>, now = new Date()): Promise<Schedule> {
    const { enabled } = parseInput(toggleSchema, input);
    const schedule = await this.getOwned(actor, id);
    const next = enabled ?? !schedule.enabled;
    if (next === schedule.enabled) return schedule;
    return this.db.prisma.schedule.update({
      where: { id },
      data: { enabled: next, nextRunAt: next ? nextOccurrence(recurrenceOf(schedule), now) : null },
    });
  }

  /** Starts the run of every due schedule this call wins; returns how many it started. */
  async tick(now = new Date()): Promise<number> {
    const due = await this.db.prisma.schedule.findMany({
      where: { enabled: true, nextRunAt: { lte: now } },
      orderBy: [{ nextRunAt: 'asc' }, { id: 'asc' }],
      take: TICK_BATCH,
      include: { account: { select: { id: true, handle: true, tier: true, status: true } } },
    });
    let started = 0;
    for (const schedule of due) {
      if (await this.runIfStillDue(schedule, now)) started++;
    }
    return started;
  }

  private async runIfStillDue(schedule: Schedule & { account: Pick<Account, 'id' | 'handle' | 'tier' | 'status'> }, now: Date): Promise<boolean> {
    // The claim and the run's job row commit together: a crash between them cannot lose the run
    // (both roll back, and the next tick claims it again), and a run never happens twice.
    const job = await this.db.prisma.$transaction(async (tx) => {
      // One UPDATE that only matches while next_run still holds the value this tick saw.
      // Concurrent ticks (here or in other processes) wait on the row lock, then find it moved.
      const { count } = await tx.schedule.updateMany({
        where: { id: schedule.id, enabled: true, nextRunAt: schedule.nextRunAt },
        data: { nextRunAt: nextOccurrence(recurrenceOf(schedule), now), lastRunAt: now, runCount: { increment: 1 } },
      });
      if (count === 0) return null;
      if (schedule.account.status !== 'active') {
        await tx.schedule.update({ where: { id: schedule.id }, data: { lastError: `run skipped: the account is ${schedule.account.status}` } });
        return null;
      }
      try {
        const recorded = await this.scrape.record(tx, scheduleActor(schedule.account), {
          url: schedule.url,
          max_files: schedule.maxFiles ?? undefined,
          sniper_mode: schedule.sniperMode,
          ai_labeling: schedule.aiLabeling,
          render: schedule.render ?? undefined,
          // A scheduled run wants the page as it is now, not a recent cached scrape.
          force: true,
        });
        await tx.schedule.update({ where: { id: schedule.id }, data: { lastJobId: recorded.id, lastError: null } });
        return recorded;
      } catch (error) {
        // Stored options the scrape refuses: this occurrence is used up, with the reason recorded.
        if (!(error instanceof AppError)) throw error;
        await tx.schedule.update({ where: { id: schedule.id }, data: { lastError: `run failed to start: ${error.message}` } });
        return null;
      }
    });
    if (!job) return false;
    try {
      await this.scrape.dispatch(job);
    } catch (error) {
      // The job row is queued and committed: workers still find it (see ScrapeService.dispatch).
      this.logger.warn({ err: error, scheduleId: schedule.id, jobId: job.id }, 'handing a scheduled run to the queue failed; it stays queued');
    }
    return true;
  }
}
