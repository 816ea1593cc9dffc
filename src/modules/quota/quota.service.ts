// Request quotas (spec "Limits"): per account a daily count that resets at midnight UTC and a
// per-minute burst, both from the account's tier; per sub-key its lifetime request budget (the REST
// field credit_limit), which a refused request gets back (refundBudget). All of a
// request's counters move together in one SQL call (consume_quota), so a request refused by one
// limit is not counted against the others, counters survive restarts, and concurrent requests at a
// boundary let exactly the limit through. A library such as rate-limiter-flexible keeps each limiter
// apart and cannot refuse all-or-nothing across them, which is why this is our own.
import type { Database } from '../../platform/database/database.js';
import { QuotaExceeded } from '../../platform/errors.js';
import type { TierLimits } from './quota.settings.js';
import type { Actor } from '../accounts/index.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** Lifetime counters (sub-key credit) use one fixed window. */
const FOREVER = new Date(0);

export interface Counter {
  key: string;
  windowStart: Date;
  /** Undefined for lifetime counters. */
  windowMs?: number;
  limit: number;
  what: string;
}

export interface QuotaState {
  /** Response headers describing the tightest limit (IETF RateLimit header fields). */
  headers: Record<string, string>;
}

export function subKeyCounterKey(keyId: number): string {
  return `key:${keyId}`;
}

export class QuotaService {
  constructor(
    private readonly db: Database,
    private readonly tiers: Record<string, TierLimits>,
  ) {}

  limitsFor(tier: string): TierLimits {
    return this.tiers[tier] ?? this.tiers.standard ?? { daily: 20, perMinute: 60 };
  }

  /** Counts one request for the actor, or throws 429 without counting it anywhere. */
  async consume(actor: Actor, now = new Date()): Promise<QuotaState> {
    const counters = this.countersFor(actor, now);
    const rows = await this.db.query<{ counts: number[]; refused_at: number }>(
      'SELECT counts, refused_at FROM consume_quota($1::text[], $2::timestamp(3)[], $3::int[])',
      counterParameters(counters),
    );
    return this.judge(counters, rows[0]!.counts, rows[0]!.refused_at, now);
  }

  /**
   * The answer to consume_quota's result for these counters: the RateLimit headers, or 429 naming
   * the limit that refused (`refusedAt`, 1-based; 0 when none did).
   */
  judge(counters: Counter[], counts: number[], refusedAt: number, now: Date): QuotaState {
    const headers = rateLimitHeaders(counters, counts, now);
    if (refusedAt > 0) {
      const refused = counters[refusedAt - 1]!;
      if (refused.windowMs === undefined) {
        throw new QuotaExceeded(`${refused.what} of ${refused.limit} requests is used up; create a new sub-key`, headers);
      }
      const retryAfter = secondsUntil(refused.windowStart.getTime() + refused.windowMs, now);
      throw new QuotaExceeded(`${refused.what} of ${refused.limit} requests exceeded; retry in ${retryAfter} s`, {
        ...headers,
        'Retry-After': String(retryAfter),
      });
    }
    return { headers };
  }

  /**
   * One unit of each of these counters of the service's own (not request quotas) in the same window,
   * all or none, taken atomically and durably with consume_quota: `taken` is false, and nothing is
   * counted, once a window holds its `limit`; `retryAfterSeconds` says when the window ends. Used
   * where an attempt must be counted before slow work (gallery passwords and links).
   */
  async take(counters: ReadonlyArray<{ key: string; limit: number }>, windowMs: number, now = new Date()): Promise<{ taken: boolean; retryAfterSeconds: number }> {
    const windowStart = windowOf(now, windowMs);
    const rows = await this.db.query<{ refused_at: number }>('SELECT refused_at FROM consume_quota($1::text[], $2::timestamp(3)[], $3::int[])', [
      counters.map((c) => c.key),
      counters.map(() => windowStart.toISOString()),
      counters.map((c) => c.limit),
    ]);
    return { taken: rows[0]!.refused_at === 0, retryAfterSeconds: secondsUntil(windowStart.getTime() + windowMs, now) };
  }

  /** Forgets the current window of such a counter (a right password clears the wrong ones). */
  async forget(key: string, windowMs: number, now = new Date()): Promise<void> {
    const windowStart = windowOf(now, windowMs);
    await this.db.query(`DELETE FROM "UsageCounter" WHERE "key" = $1 AND "windowStart" = $2::timestamp(3)`, [key, windowStart.toISOString()]);
  }

  /** Gives one unit of such a counter's current window back (an attempt that turned out right). */
  async giveBack(key: string, windowMs: number, now = new Date()): Promise<void> {
    const windowStart = windowOf(now, windowMs);
    await this.db.query(`UPDATE "UsageCounter" SET "count" = "count" - 1 WHERE "key" = $1 AND "windowStart" = $2::timestamp(3) AND "count" > 0`, [key, windowStart.toISOString()]);
  }

  /**
   * Gives back the unit of the sub-key's request budget that a refused request took (see
   * src/graphql/request-budget.ts). The daily and per-minute counts stay: every request made with a
   * valid key counts there, refused or not, since they protect the service.
   */
  async refundBudget(actor: Actor): Promise<void> {
    if (!hasBudget(actor)) return;
    await this.db.query(
      `UPDATE "UsageCounter" SET count = count - 1 WHERE "key" = $1 AND "windowStart" = '1970-01-01' AND count > 0`,
      [subKeyCounterKey(actor.keyId)],
    );
  }

  /**
   * Deletes windows that have ended (minutes after a few minutes, days after two days); lifetime
   * counters stay. Without it an active account would leave 1,440 minute rows a day behind.
   * Returns how many rows went. Harmless when several processes run it at once.
   */
  async sweep(now = new Date()): Promise<number> {
    const rows = await this.db.query<{ swept: number }>(
      `WITH gone AS (
         DELETE FROM "UsageCounter"
         WHERE "windowStart" > '1970-01-01'
           AND ("windowStart" < $1::timestamp(3) OR ("key" LIKE '%:minute' AND "windowStart" < $2::timestamp(3)))
         RETURNING 1)
       SELECT count(*)::int AS swept FROM gone`,
      [new Date(now.getTime() - 2 * DAY_MS).toISOString(), new Date(now.getTime() - 5 * MINUTE_MS).toISOString()],
    );
    return rows[0]?.swept ?? 0;
  }

  /** Gives back the units requests took of each counter (they were counted under limits that had changed). */
  async giveBackAll(counters: Counter[], units = 1): Promise<void> {
    await this.db.query(
      `UPDATE "UsageCounter" c SET "count" = GREATEST(0, c."count" - $3::int)
         FROM unnest($1::text[], $2::timestamp(3)[]) AS taken("key", "windowStart")
        WHERE c."key" = taken."key" AND c."windowStart" = taken."windowStart"`,
      [...counterParameters(counters).slice(0, 2), units],
    );
  }

  /** A request's counters for the actor, always in the order consume_quota relies on. */
  countersFor(actor: Actor, now: Date): Counter[] {
    const limits = this.limitsFor(actor.tier);
    const day = windowOf(now, DAY_MS);
    const minute = windowOf(now, MINUTE_MS);
    // Always in this order (account day, account minute, key): consume_quota relies on one global order.
    const counters: Counter[] = [
      { key: `acct:${actor.accountId}:day`, windowStart: day, windowMs: DAY_MS, limit: limits.daily, what: `daily limit (${actor.tier} tier)` },
      { key: `acct:${actor.accountId}:minute`, windowStart: minute, windowMs: MINUTE_MS, limit: limits.perMinute, what: `burst limit per minute (${actor.tier} tier)` },
    ];
    if (hasBudget(actor)) {
      counters.push({ key: subKeyCounterKey(actor.keyId), windowStart: FOREVER, limit: actor.requestBudget!, what: 'request budget of this sub-key (credit_limit)' });
    }
    return counters;
  }
}

/** consume_quota's parameters for these counters: keys, window starts, limits. */
export function counterParameters(counters: Counter[]): [string[], string[], number[]] {
  return [counters.map((c) => c.key), counters.map((c) => c.windowStart.toISOString()), counters.map((c) => c.limit)];
}

/** The start of the fixed window of this length that holds `now`. */
function windowOf(now: Date, windowMs: number): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

function hasBudget(actor: Actor): boolean {
  return actor.keyKind === 'sub' && actor.requestBudget !== null;
}

function secondsUntil(endMs: number, now: Date): number {
  return Math.max(1, Math.ceil((endMs - now.getTime()) / 1000));
}

function rateLimitHeaders(counters: Counter[], counts: number[], now: Date): Record<string, string> {
  const windowed = counters.filter((c) => c.windowMs !== undefined);
  let tightest = windowed[0]!;
  let tightestRemaining = Infinity;
  windowed.forEach((c) => {
    const remaining = Math.max(0, c.limit - (counts[counters.indexOf(c)] ?? 0));
    if (remaining < tightestRemaining) {
      tightest = c;
      tightestRemaining = remaining;
    }
  });
  const headers: Record<string, string> = {
    'RateLimit-Policy': windowed.map((c) => `${c.limit};w=${c.windowMs! / 1000}`).join(', '),
    'RateLimit-Limit': String(tightest.limit),
    'RateLimit-Remaining': String(tightestRemaining),
    'RateLimit-Reset': String(secondsUntil(tightest.windowStart.getTime() + tightest.windowMs!, now)),
  };
  const credit = counters.find((c) => c.windowMs === undefined);
  if (credit) headers['X-Credit-Remaining'] = String(Math.max(0, credit.limit - (counts[counters.indexOf(credit)] ?? 0)));
  return headers;
}
