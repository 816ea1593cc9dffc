// Validation of challenge inputs (snake_case REST fields; GraphQL passes the same names). Rules that
// depend on the clock or the wiki (a window in the future, subjects that exist) are the service's.
import { z } from 'zod';
import { limitArg, pageArgs, text } from '../../platform/validation.js';

export const CHALLENGE_STATUSES = ['scheduled', 'active', 'ended'] as const;
export const CHALLENGE_SCOPES = ['category', 'subjects'] as const;
/** The wiki's vote choices (src/modules/wiki/wiki.input.ts VOTES). */
export const CHALLENGE_VOTES = ['confirm', 'reject'] as const;
export type ChallengeStatus = (typeof CHALLENGE_STATUSES)[number];
export type ChallengeScope = (typeof CHALLENGE_SCOPES)[number];

/** The longest window, and how far ahead one may start. */
export const MAX_CHALLENGE_DAYS = 90;
export const MAX_CHALLENGE_LEAD_DAYS = 365;
export const MAX_CHALLENGE_SUBJECTS = 100;


/** A date (midnight UTC) or a date and time with Z or an offset: a time without a zone is ambiguous. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}(?::?\d{2})?))?$/i;
const INSTANT_HELP = 'expected an ISO 8601 time with Z or an offset, e.g. 2026-12-01T18:00:00Z';
const instant = (required?: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined && required ? required : INSTANT_HELP) })
    .trim()
    .max(40, INSTANT_HELP)
    .regex(ISO_INSTANT, INSTANT_HELP)
    .transform((value, ctx) => {
      const date = new Date(value.replace(' ', 'T'));
      if (Number.isNaN(date.getTime())) {
        ctx.addIssue({ code: 'custom', message: INSTANT_HELP });
        return z.NEVER;
      }
      return date;
    });

const slug = z.string({ error: 'expected a subject slug' }).trim().min(1, 'expected a subject slug').max(200, 'expected a subject slug');

export const createChallengeSchema = z.object({
  title: z.string({ error: 'title is required: what the challenge is called' }).trim().min(1, 'title is required: what the challenge is called').max(120, 'expected at most 120 characters'),
  description: text(4000).optional(),
  /** The scope, either: every approved subject of a wiki category ... */
  category: z.string({ error: 'expected a wiki category' }).trim().toLowerCase().min(1, 'expected a wiki category').max(60, 'expected at most 60 characters').optional(),
  /** ... or these subjects (slugs). */
  subjects: z
    .array(slug, { error: 'expected an array of subject slugs' })
    .min(1, 'expected at least one subject slug')
    .max(MAX_CHALLENGE_SUBJECTS, `expected at most ${MAX_CHALLENGE_SUBJECTS} subjects`)
    .optional(),
  /** Default: now. */
  starts_at: instant().optional(),
  ends_at: instant('ends_at is required: when the challenge ends (ISO 8601, e.g. 2026-12-01T18:00:00Z)'),
});

export const challengeListSchema = z.object({
  status: z.enum(CHALLENGE_STATUSES, { error: `expected one of ${CHALLENGE_STATUSES.join(', ')}` }).optional(),
  ...pageArgs(200, 50, { maxOffset: 100_000 }),
});

export const boardSchema = z.object({
  limit: limitArg(100, 20),
});

export const challengeVoteSchema = z.object({
  vote: z.enum(CHALLENGE_VOTES, { error: (issue) => (issue.input === undefined ? `vote is required: ${CHALLENGE_VOTES.join(' or ')}` : `expected ${CHALLENGE_VOTES.join(' or ')}`) }),
});
