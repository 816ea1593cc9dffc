// Validation of wiki inputs (spec "Wiki": snake_case REST fields; GraphQL passes the same names).
import { z } from 'zod';
import { absoluteHttpUrl, limitArg, pageArgs, text, zeroOrOne } from '../../platform/validation.js';

export const SUBJECT_STATUSES = ['pending', 'approved', 'rejected'] as const;
export const MEDIA_STATUSES = ['pending', 'verified', 'rejected'] as const;
export const VOTES = ['confirm', 'reject'] as const;
export const SUBJECT_SORTS = ['recent', 'popular'] as const;
export type SubjectStatus = (typeof SUBJECT_STATUSES)[number];
export type MediaStatus = (typeof MEDIA_STATUSES)[number];
export type Vote = (typeof VOTES)[number];


export const listSubjectsSchema = z.object({
  q: text(200).optional(),
  category: text(60).toLowerCase().optional(),
  /** 1: only subjects with verified media (a Boolean in GraphQL). */
  verified: zeroOrOne.optional(),
  sort: z.enum(SUBJECT_SORTS, { error: `expected one of ${SUBJECT_SORTS.join(', ')}` }).default('recent'),
  ...pageArgs(100, 20, { maxOffset: 100_000 }),
});

export const createSubjectSchema = z.object({
  name: z.string({ error: 'name is required: what the subject is called' }).trim().min(1, 'name is required: what the subject is called').max(120, 'expected at most 120 characters'),
  category: z
    .string({ error: 'category is required, e.g. landmark, building, artwork' })
    .trim()
    .toLowerCase()
    .min(1, 'category is required, e.g. landmark, building, artwork')
    .max(60, 'expected at most 60 characters'),
  description: text(4000).optional(),
  featured_image_url: absoluteHttpUrl('expected a URL')
    .optional(),
});

/** A photo type: a short word such as exterior, interior, detail, aerial, historic (default general). */
export const contributeSchema = z.object({
  photo_type: z
    .string({ error: 'expected a string' })
    .trim()
    .toLowerCase()
    .regex(/^[\p{L}\p{N}][\p{L}\p{N} _-]{0,39}$/u, 'expected a photo type of 1 to 40 letters, digits, spaces, _ or -, e.g. exterior')
    .default('general'),
  context: text(2000).optional(),
});

export const queueSchema = z.object({
  limit: limitArg(100, 20),
});

export const voteSchema = z.object({
  vote: z.enum(VOTES, { error: (issue) => (issue.input === undefined ? `vote is required: ${VOTES.join(' or ')}` : `expected ${VOTES.join(' or ')}`) }),
});

export const querySchema = z.object({
  type: z.string({ error: 'expected a photo type' }).trim().toLowerCase().max(40, 'expected at most 40 characters').optional(),
  min_confidence: z.number({ error: 'expected a number from 0 to 1' }).min(0, 'expected a number from 0 to 1').max(1, 'expected a number from 0 to 1').default(0.6),
  limit: limitArg(50, 10),
});

export const reviewListSchema = z.object({
  status: z.enum(SUBJECT_STATUSES, { error: `expected one of ${SUBJECT_STATUSES.join(', ')}` }).default('pending'),
  ...pageArgs(200, 50),
});

export const followingSchema = z.object({
  ...pageArgs(200, 50),
});
