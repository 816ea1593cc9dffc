// next_run arithmetic in UTC: the day before and after the hour, month ends, year ends, leap days.
import { describe, expect, it } from 'vitest';
import { nextOccurrence, type Recurrence } from '../../src/modules/automation/schedule-time.js';

const at = (iso: string) => new Date(iso);
const next = (recurrence: Recurrence, from: string) => nextOccurrence(recurrence, at(from)).toISOString();

describe('daily', () => {
  const daily = (hour: number): Recurrence => ({ frequency: 'daily', hour });

  it('runs today when the hour is still ahead, tomorrow once it has passed', () => {
    expect(next(daily(8), '2026-03-10T07:59:59.999Z')).toBe('2026-03-10T08:00:00.000Z');
    expect(next(daily(8), '2026-03-10T08:00:00.001Z')).toBe('2026-03-11T08:00:00.000Z');
    expect(next(daily(8), '2026-03-10T23:00:00.000Z')).toBe('2026-03-11T08:00:00.000Z');
  });

  it('is strictly after the given moment (a due run never comes out as its own next run)', () => {
    expect(next(daily(8), '2026-03-10T08:00:00.000Z')).toBe('2026-03-11T08:00:00.000Z');
  });

  it('handles hours 0 and 23', () => {
    expect(next(daily(0), '2026-03-10T00:00:00.000Z')).toBe('2026-03-11T00:00:00.000Z');
    expect(next(daily(0), '2026-03-10T23:59:00.000Z')).toBe('2026-03-11T00:00:00.000Z');
    expect(next(daily(23), '2026-03-10T22:59:00.000Z')).toBe('2026-03-10T23:00:00.000Z');
  });

  it('crosses month ends, leap days and year ends', () => {
    expect(next(daily(8), '2026-01-31T09:00:00.000Z')).toBe('2026-02-01T08:00:00.000Z');
    expect(next(daily(8), '2026-02-28T09:00:00.000Z')).toBe('2026-03-01T08:00:00.000Z');
    expect(next(daily(8), '2028-02-28T09:00:00.000Z')).toBe('2028-02-29T08:00:00.000Z');
    expect(next(daily(8), '2026-04-30T09:00:00.000Z')).toBe('2026-05-01T08:00:00.000Z');
    expect(next(daily(8), '2026-12-31T09:00:00.000Z')).toBe('2027-01-01T08:00:00.000Z');
  });

  it('ignores the local time zone of the process', () => {
    // 23:30 in UTC is already the next day east of Greenwich; the arithmetic must not care.
    expect(next(daily(1), '2026-06-30T23:30:00.000Z')).toBe('2026-07-01T01:00:00.000Z');
  });
});

describe('weekly (0 = Monday .. 6 = Sunday)', () => {
  const weekly = (dayOfWeek: number, hour = 8): Recurrence => ({ frequency: 'weekly', hour, dayOfWeek });
  // 2026-03-09 is a Monday.

  it('runs later the same day when it is the day and the hour is ahead', () => {
    expect(next(weekly(0), '2026-03-09T07:00:00.000Z')).toBe('2026-03-09T08:00:00.000Z');
  });

  it('runs a week later when it is the day and the hour has passed (or is now)', () => {
    expect(next(weekly(0), '2026-03-09T08:00:00.000Z')).toBe('2026-03-16T08:00:00.000Z');
    expect(next(weekly(0), '2026-03-09T10:00:00.000Z')).toBe('2026-03-16T08:00:00.000Z');
  });

  it('finds every weekday from a Wednesday', () => {
    const from = '2026-03-11T12:00:00.000Z'; // Wednesday
    expect([0, 1, 2, 3, 4, 5, 6].map((day) => next(weekly(day), from))).toEqual([
      '2026-03-16T08:00:00.000Z', // Monday
      '2026-03-17T08:00:00.000Z', // Tuesday
      '2026-03-18T08:00:00.000Z', // Wednesday: today's 08:00 has passed
      '2026-03-12T08:00:00.000Z', // Thursday
      '2026-03-13T08:00:00.000Z', // Friday
      '2026-03-14T08:00:00.000Z', // Saturday
      '2026-03-15T08:00:00.000Z', // Sunday
    ]);
    for (const [day, iso] of [0, 1, 2, 3, 4, 5, 6].map((d) => [d, next(weekly(d), from)] as const)) {
      expect((new Date(iso).getUTCDay() + 6) % 7).toBe(day);
    }
  });

  it('treats Sunday as 6 and defaults to Monday', () => {
    expect(next(weekly(6, 20), '2026-03-15T19:00:00.000Z')).toBe('2026-03-15T20:00:00.000Z'); // a Sunday
    expect(next({ frequency: 'weekly', hour: 8 }, '2026-03-11T12:00:00.000Z')).toBe('2026-03-16T08:00:00.000Z');
  });

  it('crosses month and year ends', () => {
    expect(next(weekly(0), '2026-12-30T12:00:00.000Z')).toBe('2027-01-04T08:00:00.000Z'); // Wednesday -> Monday
    expect(next(weekly(4), '2026-12-31T09:00:00.000Z')).toBe('2027-01-01T08:00:00.000Z'); // Thursday -> Friday
    expect(next(weekly(1), '2026-03-31T09:00:00.000Z')).toBe('2026-04-07T08:00:00.000Z'); // Tuesday, hour passed
  });
});

describe('monthly (day 1)', () => {
  const monthly = (hour: number): Recurrence => ({ frequency: 'monthly', hour });

  it('runs on the 1st of this month when that is still ahead', () => {
    expect(next(monthly(8), '2026-03-01T07:00:00.000Z')).toBe('2026-03-01T08:00:00.000Z');
  });

  it('runs on the 1st of next month otherwise', () => {
    expect(next(monthly(8), '2026-03-01T08:00:00.000Z')).toBe('2026-04-01T08:00:00.000Z');
    expect(next(monthly(8), '2026-03-15T12:00:00.000Z')).toBe('2026-04-01T08:00:00.000Z');
    expect(next(monthly(8), '2026-01-31T23:59:59.999Z')).toBe('2026-02-01T08:00:00.000Z');
    expect(next(monthly(0), '2028-02-29T12:00:00.000Z')).toBe('2028-03-01T00:00:00.000Z');
  });

  it('crosses the year end', () => {
    expect(next(monthly(8), '2026-12-01T09:00:00.000Z')).toBe('2027-01-01T08:00:00.000Z');
    expect(next(monthly(23), '2026-12-31T23:30:00.000Z')).toBe('2027-01-01T23:00:00.000Z');
  });
});
