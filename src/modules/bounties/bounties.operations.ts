// The bounty operations, each declared once (docs/architecture.md): the list (any key), posting and
// cancelling one (master key: they move the poster's coins), and claiming one with an upload (media
// scope, like contributing). GraphQL fields and REST rows are made from these; the rules live in
// bounties.service.ts. Shapes the spec leaves "not shown" are ours (README "Economy: bounties").
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { BountyClaimRef, BountyPageRef, BountyRef, BountyStatusEnum } from './bounties.schema.js';
import { BOUNTY_STATUSES, claimBountySchema, createBountySchema, listBountiesSchema } from './bounties.input.js';

const bounty = answerFrom(
  z
    .object({
      id,
      poster: z.string().nullable().describe("the poster's handle"),
      subject_slug: z.string(),
      subject_name: z.string(),
      description: z.string().nullable(),
      reward_per_photo: z.number(),
      photos_needed: count,
      photos_claimed: count,
      escrow_remaining: z.number().describe('coins still escrowed; 0 once filled, expired or cancelled'),
      status: z.enum(BOUNTY_STATUSES),
      mine: z.boolean().describe('the caller posted it'),
      expires_at: timestamp,
      closed_at: timestamp.nullable(),
      created_at: timestamp,
    })
    .meta({ id: 'Bounty', description: 'Coins offered for photos of a subject, escrowed when posted' }),
  { id: 'databaseId' },
);

export const bountyOperations = {
  bounties: defineOperation({
    kind: 'query',
    name: 'bounties',
    key: ANY_KEY,
    input: listBountiesSchema,
    args: { status: BountyStatusEnum },
    output: BountyPageRef,
    run: ({ ctx, actor, input }) => ctx.services.bounties.list(actor, input),
    rest: {
      method: 'GET',
      path: '/api/economy/bounties',
      operationName: 'ListBounties',
      summary: 'Bounties, newest first: status (open, filled, expired, cancelled), limit (default 20, max 100), offset',
      response: z.object({ bounties: z.array(bounty), total: count, limit: count, offset: count }),
    },
  }),
  createBounty: defineOperation({
    kind: 'mutation',
    name: 'createBounty',
    key: MASTER_KEY,
    input: createBountySchema,
    output: BountyRef,
    run: ({ ctx, actor, input }) => ctx.services.bounties.create(actor, input),
    rest: {
      method: 'POST',
      path: '/api/economy/bounties',
      summary: 'Post a bounty (subject_slug or subject_name, reward_per_photo, photos_needed up to 100, description, expires_days default 30): reward x photos is escrowed at once',
      response: bounty,
      errors: { 402: 'too few coins for reward_per_photo x photos_needed' },
      successStatus: 201,
    },
  }),
  claimBounty: defineOperation({
    kind: 'mutation',
    name: 'claimBounty',
    key: SCOPE.media,
    ids: { id: 'bounty' },
    input: claimBountySchema,
    output: BountyClaimRef,
    run: ({ ctx, actor, id, input }) => ctx.services.bounties.claim(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/economy/bounties/:bounty_id/claim',
      params: { bounty_id: 'id' },
      summary:
        'Claim a bounty with your own community upload that shows its subject (crowdsource_id): a vision-confirmed tag of it, not OCR text alone, or a verified wiki photo of it on the same image; the reward is paid at once',
      response: answerFrom(
        z.object({ bounty_id: id, crowdsource_id: id, paid: z.number(), balance: balance.describe("the claimant's spendable coins after (held coins not included)"), held, bounty }),
        { bounty_id: 'bounty.databaseId', crowdsource_id: 'itemId' },
      ),
      errors: {
        400: 'the upload has no tag of the subject (and no verified wiki photo of it is of the same image)',
        403: "the upload is someone else's, or the caller posted the bounty",
        404: 'no such bounty (looked up before the upload), or no such upload',
        409: 'the bounty is filled, expired or cancelled; the upload claimed before; or its tag of the subject is not confirmed by vision, or only by text read in the image',
      },
    },
  }),
  cancelBounty: defineOperation({
    kind: 'mutation',
    name: 'cancelBounty',
    key: MASTER_KEY,
    ids: { id: 'bounty' },
    output: BountyRef,
    run: ({ ctx, actor, id }) => ctx.services.bounties.cancel(actor, id),
    rest: {
      method: 'POST',
      path: '/api/economy/bounties/:id/cancel',
      summary: 'Cancel your open bounty: the escrow not yet paid returns to you',
      response: bounty,
      errors: { 409: 'the bounty is not open' },
    },
  }),
};
