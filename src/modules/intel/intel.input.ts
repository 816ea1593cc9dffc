// Validation of image intel inputs (snake_case REST fields; GraphQL passes the same names).
import { z } from 'zod';
import { pageArgs } from '../../platform/validation.js';
import { tagsSchema } from '../media/index.js';

/** An image's intel policy: open (posts are comments, published at once), restricted (posts are proposals), locked (no posts). */
export const INTEL_POLICIES = ['open', 'restricted', 'locked'] as const;
export const INTEL_KINDS = ['comment', 'proposal'] as const;
/** comment: approved; proposal: pending, then merged or rejected. */
export const INTEL_STATUSES = ['approved', 'pending', 'merged', 'rejected'] as const;
export const PROPOSAL_STATUSES = ['pending', 'merged', 'rejected'] as const;
/** What the image's owner does with a pending proposal. */
export const INTEL_ACTIONS = ['approve', 'reject'] as const;
/** The metadata of a community item a proposal may change. */
export const INTEL_FIELDS = ['caption', 'tags', 'name', 'latitude', 'longitude'] as const;

export type IntelPolicy = (typeof INTEL_POLICIES)[number];
export type IntelKind = (typeof INTEL_KINDS)[number];
export type IntelStatus = (typeof INTEL_STATUSES)[number];
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export type IntelAction = (typeof INTEL_ACTIONS)[number];

export const MAX_INTEL_TEXT = 2000;
/** Tags an item keeps at most (the community's limit). */
export const MAX_ITEM_TAGS = 50;


const text = z
  .string({ error: 'expected text' })
  .trim()
  .min(1, 'expected text with at least one character that is not a space')
  .max(MAX_INTEL_TEXT, `expected at most ${MAX_INTEL_TEXT} characters`)
  // Posts are compared with punctuation folded away: one without a letter or digit says nothing.
  .refine((value) => /[\p{L}\p{N}]/u.test(value), 'expected text with at least one letter or digit');

const coordinate = (max: number) =>
  z
    .number({ error: `expected a number from -${max} to ${max}` })
    .min(-max, `expected a number from -${max} to ${max}`)
    .max(max, `expected a number from -${max} to ${max}`);

/** The proposed values: each field given is the item's value after a merge (tags: the whole set). */
export const changesSchema = z
  .strictObject(
    {
      caption: z.string({ error: 'expected text' }).trim().min(1, 'expected a non-empty caption').max(2000, 'expected at most 2000 characters').optional(),
      tags: tagsSchema.pipe(z.array(z.string()).max(MAX_ITEM_TAGS, `expected at most ${MAX_ITEM_TAGS} tags`)).optional(),
      name: z.string({ error: 'expected text' }).trim().min(1, 'expected a non-empty name').max(255, 'expected at most 255 characters').optional(),
      latitude: coordinate(90).optional(),
      longitude: coordinate(180).optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `${issue.keys.join(', ')}: unknown field; a proposal changes ${INTEL_FIELDS.join(', ')}` : `expected an object of ${INTEL_FIELDS.join(', ')}`,
    },
  )
  .superRefine((value, ctx) => {
    if (Object.values(value).every((v) => v === undefined)) ctx.addIssue({ code: 'custom', message: `expected at least one of ${INTEL_FIELDS.join(', ')}` });
    if ((value.latitude === undefined) !== (value.longitude === undefined)) {
      ctx.addIssue({ code: 'custom', path: [value.latitude === undefined ? 'latitude' : 'longitude'], message: 'latitude and longitude go together: send both or neither' });
    }
  });

export type IntelChanges = z.output<typeof changesSchema>;

/** A post: text (a comment, or a proposal's note), changes (a proposal), or both; at least one. */
export const postSchema = z
  .object({
    text: text.optional(),
    changes: changesSchema.optional(),
  })
  .superRefine((value, ctx) => {
    if (value.text === undefined && value.changes === undefined) {
      ctx.addIssue({ code: 'custom', path: ['text'], message: 'text or changes is required: a comment needs text, a proposal changes (and may have text)' });
    }
  });

export const policySchema = z.object({
  policy: z.enum(INTEL_POLICIES, { error: (issue) => (issue.input === undefined ? `policy is required: one of ${INTEL_POLICIES.join(', ')}` : `expected one of ${INTEL_POLICIES.join(', ')}`) }),
});

export const resolveSchema = z.object({
  action: z.enum(INTEL_ACTIONS, { error: (issue) => (issue.input === undefined ? `action is required: one of ${INTEL_ACTIONS.join(', ')}` : `expected one of ${INTEL_ACTIONS.join(', ')}`) }),
});

export const intelPageSchema = z.object({
  ...pageArgs(100, 20, { maxOffset: 100_000 }),
});

export const proposalsSchema = intelPageSchema.extend({
  status: z.enum(PROPOSAL_STATUSES, { error: `expected one of ${PROPOSAL_STATUSES.join(', ')}` }).default('pending'),
});
