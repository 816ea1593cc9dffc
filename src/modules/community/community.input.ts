// Validation of community inputs (snake_case REST fields; GraphQL passes the same names).
import { z } from 'zod';
import { amountSchema, toMinor } from '../ledger/index.js';
import { tagsSchema } from '../media/index.js';
import { absoluteHttpUrl, finiteNumber, formText, limitArg, pageArgs, zeroOrOne } from '../../platform/validation.js';

export const COMMUNITY_TAG_ACTIONS = ['add', 'replace'] as const;
export const LEADERBOARD_PERIODS = ['day', 'week', 'month', 'all'] as const;
export const CLAIM_KINDS = ['removal', 'royalty'] as const;
export const CLAIM_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type LeaderboardPeriod = (typeof LEADERBOARD_PERIODS)[number];
export type ClaimKind = (typeof CLAIM_KINDS)[number];
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];

/** The largest unlock price (coins) a contributor may set. */
export const MAX_UNLOCK_PRICE = 100_000;
/** Royalty per use (spec "Reward rates": 0.1 to 10 coins). */
export const ROYALTY_MIN = 0.1;
export const ROYALTY_MAX = 10;


export const communityPageSchema = z.object({
  ...pageArgs(100, 20, { maxOffset: 100_000 }),
});

export const searchSchema = communityPageSchema.extend({
  tag: z.string().trim().toLowerCase().min(1, 'expected a non-empty tag').max(50, 'expected at most 50 characters').optional(),
  /** 1: only AI-verified items (a Boolean in GraphQL). */
  verified: zeroOrOne.optional(),
});

export const myPageSchema = z.object({
  ...pageArgs(200, 50),
});

const name = z.string().trim().min(1, 'expected a non-empty name').max(255, 'expected at most 255 characters');

export const contributeSchema = z.object({
  name: name.optional(),
  tags: tagsSchema.default([]),
  source_provider: z.string().trim().min(1, 'expected a non-empty provider name').max(100, 'expected at most 100 characters').optional(),
  /** Ours: false keeps the item out of the public search (it stays reachable by id for its contributor). */
  public: z.boolean({ error: 'expected true or false' }).default(true),
  image_url: absoluteHttpUrl('expected a URL')
    .optional(),
});

/** A coordinate sent as a string (the spec's type) or a number. */
const coordinate = (max: number) => {
  const expected = `expected a number from -${max} to ${max}`;
  return finiteNumber(expected).pipe(z.number().min(-max, expected).max(max, expected));
};

const unlockPriceExpected = `expected a number of coins from 0 to ${MAX_UNLOCK_PRICE} with at most 4 decimals`;
const unlockPrice = finiteNumber(unlockPriceExpected).transform((number, ctx) => {
  const minor = number >= 0 && number <= MAX_UNLOCK_PRICE ? toMinor(number) : undefined;
  if (minor === undefined) {
    ctx.addIssue({ code: 'custom', message: unlockPriceExpected });
    return z.NEVER;
  }
  return minor;
});

export const ingestSchema = z
  .object({
    latitude: coordinate(90).optional(),
    longitude: coordinate(180).optional(),
    attribution_handle: z
      .string()
      .trim()
      .regex(/^@?[A-Za-z0-9_.-]{1,64}$/, 'expected a handle: 1 to 64 of letters, digits, _ . - (with or without a leading @)')
      .optional(),
    unlock_price: unlockPrice.default(0),
    name: name.optional(),
    tags: tagsSchema.default([]),
  })
  .superRefine((value, ctx) => {
    if ((value.latitude === undefined) !== (value.longitude === undefined)) {
      ctx.addIssue({ code: 'custom', path: [value.latitude === undefined ? 'latitude' : 'longitude'], message: 'latitude and longitude go together: send both or neither' });
    }
  });

/**
 * Ingest's multipart form: the photo, and the position and price as form text (the spec's type; the
 * GraphQL price is a Float). The service checks the whole by ingestSchema (pairing included).
 */
export const ingestFormSchema = z.object({
  ...ingestSchema.shape,
  file: z.file({ error: 'file is required: send the photo as the multipart field "file"' }),
  latitude: formText(ingestSchema.shape.latitude.unwrap()).optional().describe('-90 to 90; with longitude'),
  longitude: formText(ingestSchema.shape.longitude.unwrap()).optional().describe('-180 to 180; with latitude'),
  unlock_price: formText(ingestSchema.shape.unlock_price.unwrap()).optional().describe('coins, 0 (default) to 100000, at most 4 decimals'),
});

export const tagSchema = z.object({
  tags: tagsSchema.refine((tags) => tags.length > 0, 'tags is required: a non-empty array of strings').pipe(z.array(z.string()).max(20, 'expected at most 20 tags in one set')),
  action: z.enum(COMMUNITY_TAG_ACTIONS, { error: `expected one of ${COMMUNITY_TAG_ACTIONS.join(', ')}` }).default('add'),
});

export const leaderboardSchema = z.object({
  period: z.enum(LEADERBOARD_PERIODS, { error: `expected one of ${LEADERBOARD_PERIODS.join(', ')}` }).default('week'),
  limit: limitArg(100, 10),
});

export const claimSchema = z
  .object({
    kind: z.enum(CLAIM_KINDS, { error: (issue) => (issue.input === undefined ? `kind is required: one of ${CLAIM_KINDS.join(', ')}` : `expected one of ${CLAIM_KINDS.join(', ')}`) }),
    royalty_coins: amountSchema('royalty_coins is required for a royalty claim').optional(),
    reason: z.string({ error: 'reason is required: why the image is yours' }).trim().min(1, 'reason is required: why the image is yours').max(2000, 'expected at most 2000 characters'),
  })
  .superRefine((value, ctx) => {
    if (value.kind === 'royalty') {
      if (value.royalty_coins === undefined) ctx.addIssue({ code: 'custom', path: ['royalty_coins'], message: `royalty_coins is required for a royalty claim: ${ROYALTY_MIN} to ${ROYALTY_MAX} coins per use` });
      else if (value.royalty_coins < toMinor(ROYALTY_MIN)! || value.royalty_coins > toMinor(ROYALTY_MAX)!) ctx.addIssue({ code: 'custom', path: ['royalty_coins'], message: `expected ${ROYALTY_MIN} to ${ROYALTY_MAX} coins per use` });
    } else if (value.royalty_coins !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['royalty_coins'], message: 'royalty_coins is only for a royalty claim' });
    }
  });

export const claimListSchema = z.object({
  status: z.enum(CLAIM_STATUSES, { error: `expected one of ${CLAIM_STATUSES.join(', ')}` }).optional(),
  ...pageArgs(200, 50),
});
