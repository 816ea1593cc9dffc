// When a schedule runs next, in UTC, always on the hour: daily at `hour`; weekly on `dayOfWeek`
// (0 = Monday to 6 = Sunday, the spec's numbering) at `hour`; monthly on day 1 at `hour`.
// Plain UTC arithmetic: no time zones, so no daylight-saving gaps or repeats.

export type Frequency = 'daily' | 'weekly' | 'monthly';

export interface Recurrence {
  frequency: Frequency;
  hour: number;
  /** Weekly only (0 = Monday); ignored otherwise. */
  dayOfWeek?: number | null;
}

/** The day of the month monthly schedules run on. */
export const MONTHLY_DAY = 1;
/** Weekly schedules without day_of_week run on Mondays. */
export const DEFAULT_DAY_OF_WEEK = 0;

/** The first occurrence strictly after `from`. */
export function nextOccurrence(recurrence: Recurrence, from: Date): Date {
  const { frequency, hour } = recurrence;
  const y = from.getUTCFullYear();
  const m = from.getUTCMonth();
  const d = from.getUTCDate();
  if (frequency === 'daily') {
    const today = new Date(Date.UTC(y, m, d, hour));
    return today > from ? today : new Date(Date.UTC(y, m, d + 1, hour));
  }
  if (frequency === 'weekly') {
    // JavaScript counts from Sunday = 0; the spec from Monday = 0.
    const mondayBased = (from.getUTCDay() + 6) % 7;
    const ahead = ((recurrence.dayOfWeek ?? DEFAULT_DAY_OF_WEEK) - mondayBased + 7) % 7;
    const candidate = new Date(Date.UTC(y, m, d + ahead, hour));
    return candidate > from ? candidate : new Date(Date.UTC(y, m, d + ahead + 7, hour));
  }
  // Date.UTC rolls month 12 over into January of the next year.
  const thisMonth = new Date(Date.UTC(y, m, MONTHLY_DAY, hour));
  return thisMonth > from ? thisMonth : new Date(Date.UTC(y, m + 1, MONTHLY_DAY, hour));
}
