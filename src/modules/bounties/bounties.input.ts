// Validation of bounty inputs (spec "Economy": subject_slug, subject_name, reward_per_photo,
// photos_needed, description, expires_days; crowdsource_id for a claim).
import { z } from 'zod';
import { int, pageArgs } from '../../platform/validation.js';
import { slugify } from '../community/index.js';
import { amountSchema, MAX_AMOUNT } from '../ledger/index.js';

export const BOUNTY_STATUSES = ['open', 'filled', 'expired', 'cancelled'] as const;
export type BountyStatus = (typeof BOUNTY_STATUSES)[number];
/** Photos one bounty may ask for: each is an escrowed slot (a pending transfer). */
export const MAX_PHOTOS_NEEDED = 100;
export const DEFAULT_EXPIRES_DAYS = 30;
export const MAX_EXPIRES_DAYS = 365;


/** A subject slug: lower-case letters (any script), digits and single hyphens. The rule is the community's (tag-confirmation.ts), so subjects and tags compare alike. */
export { slugify };

export const createBountySchema = z
  .object({
    subject_slug: z.string({ error: 'expected a subject slug' }).trim().max(80, 'expected at most 80 characters').optional(),
    subject_name: z.string({ error: 'expected a subject name' }).trim().min(1, 'expected a non-empty name').max(200, 'expected at most 200 characters').optional(),
    reward_per_photo: amountSchema('reward_per_photo is required: coins paid for each photo'),
    photos_needed: z
      .number({ error: (issue) => (issue.input === undefined ? 'photos_needed is required: how many photos the bounty pays for' : 'expected an integer') })
      .int('expected an integer')
      .min(1, 'expected at least 1')
      .max(MAX_PHOTOS_NEEDED, `expected at most ${MAX_PHOTOS_NEEDED}`),
    description: z.string().trim().max(2000, 'expected at most 2000 characters').optional(),
    expires_days: int('an integer').min(1, 'expected at least 1').max(MAX_EXPIRES_DAYS, `expected at most ${MAX_EXPIRES_DAYS}`).default(DEFAULT_EXPIRES_DAYS),
  })
  .superRefine((value, ctx) => {
    if (!value.subject_slug && !value.subject_name) ctx.addIssue({ code: 'custom', path: ['subject_slug'], message: 'subject_slug or subject_name is required: what the photos must show' });
    if (value.subject_slug !== undefined && slugify(value.subject_slug) !== value.subject_slug) {
      ctx.addIssue({ code: 'custom', path: ['subject_slug'], message: 'expected a slug: lower-case letters, digits and single hyphens, e.g. eiffel-tower' });
    }
    if (value.reward_per_photo * value.photos_needed > MAX_AMOUNT * 10_000) ctx.addIssue({ code: 'custom', path: ['reward_per_photo'], message: `expected reward_per_photo x photos_needed of at most ${MAX_AMOUNT} coins` });
  });

export const claimBountySchema = z.object({
  crowdsource_id: z
    .number({ error: (issue) => (issue.input === undefined ? 'crowdsource_id is required: the id of your AI-verified community upload' : 'expected an integer') })
    .int('expected an integer')
    .positive('expected a community item id')
    .max(2_147_483_647, 'expected an id below 2^31'),
});

export const listBountiesSchema = z.object({
  status: z.enum(BOUNTY_STATUSES, { error: `expected one of ${BOUNTY_STATUSES.join(', ')}` }).optional(),
  ...pageArgs(100, 20),
});
