// The bounty operations, each declared once (docs/architecture.md): the list (any key), posting and
// cancelling one (master key: they move the poster's coins), and claiming one with an upload (media
// scope, like contributing). GraphQL fields and REST rows are made from these; the rules live in
// bounties.service.ts. Shapes the spec leaves "not shown" are ours (README "Economy: bounties").
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../access/index.js';
import { BountyClaimRef, BountyPageRef, BountyRef, BountyStatusEnum } from './bounties.schema.js';
import { claimBountySchema, createBountySchema, listBountiesSchema } from './bounties.input.js';

export const bountyOperations = defineOperations({
  bounties: defineQuery({
    key: ANY_KEY,
    input: listBountiesSchema,
    args: { status: BountyStatusEnum },
    output: BountyPageRef,
    run: ({ ctx, actor, input }) => ctx.services.bounties.list(actor, input),
    rest: {
      route: 'GET /api/economy/bounties',
      operationName: 'ListBounties',
      summary: 'Bounties, newest first: status (open, filled, expired, cancelled), limit (default 20, max 100), offset',
    },
  }),
  createBounty: defineMutation({
    key: MASTER_KEY,
    input: createBountySchema,
    output: BountyRef,
    run: ({ ctx, actor, input }) => ctx.services.bounties.create(actor, input),
    rest: {
      route: 'POST /api/economy/bounties',
      summary: 'Post a bounty (subject_slug or subject_name, reward_per_photo, photos_needed up to 100, description, expires_days default 30): reward x photos is escrowed at once',
      errors: { 402: 'too few coins for reward_per_photo x photos_needed' },
      successStatus: 201,
    },
  }),
  claimBounty: defineMutation({
    key: SCOPE.media,
    ids: { id: 'bounty' },
    input: claimBountySchema,
    output: BountyClaimRef,
    run: ({ ctx, actor, id, input }) => ctx.services.bounties.claim(actor, id, input),
    rest: {
      route: 'POST /api/economy/bounties/:bounty_id/claim',
      params: { bounty_id: 'id' },
      summary:
        'Claim a bounty with your own community upload that shows its subject (crowdsource_id): a vision-confirmed tag of it, not OCR text alone, or a verified wiki photo of it on the same image; the reward is paid at once',
      errors: {
        400: 'the upload has no tag of the subject (and no verified wiki photo of it is of the same image)',
        403: "the upload is someone else's, or the caller posted the bounty",
        404: 'no such bounty (looked up before the upload), or no such upload',
        409: 'the bounty is filled, expired or cancelled; the upload claimed before; or its tag of the subject is not confirmed by vision, or only by text read in the image',
      },
    },
  }),
  cancelBounty: defineMutation({
    key: MASTER_KEY,
    ids: { id: 'bounty' },
    output: BountyRef,
    run: ({ ctx, actor, id }) => ctx.services.bounties.cancel(actor, id),
    rest: {
      route: 'POST /api/economy/bounties/:id/cancel',
      summary: 'Cancel your open bounty: the escrow not yet paid returns to you',
      errors: { 409: 'the bounty is not open' },
    },
  }),
});
