// Spec "Economy": bounties (list, post, claim) and ours: cancelling one. Shapes the spec leaves
// "not shown" are ours (README "Economy: bounties").
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { ANY_KEY, MASTER_KEY, SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import { CancelBountyDocument, ClaimBountyDocument, CreateBountyDocument, ListBountiesDocument, type BountyFieldsFragment } from '../generated/operations.js';
import { balance, count, id, idParams, timestamp, held } from '../schemas.js';
import { objectId } from '../../src/platform/validation.js';
import { BOUNTY_STATUSES } from '../../src/modules/bounties/index.js';
import { claimBountySchema, createBountySchema, listBountiesSchema } from '../../src/modules/bounties/bounties.input.js';

const bounty = z
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
  .meta({ id: 'Bounty', description: 'Coins offered for photos of a subject, escrowed when posted' });

const bountyJson = (b: BountyFieldsFragment): z.input<typeof bounty> => ({
  id: b.databaseId,
  poster: b.poster ?? null,
  subject_slug: b.subjectSlug,
  subject_name: b.subjectName,
  description: b.description ?? null,
  reward_per_photo: b.rewardPerPhoto,
  photos_needed: b.photosNeeded,
  photos_claimed: b.photosClaimed,
  escrow_remaining: b.escrowRemaining,
  status: b.status,
  mine: b.mine,
  expires_at: b.expiresAt,
  closed_at: b.closedAt ?? null,
  created_at: b.createdAt,
});

export const bountiesRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/economy/bounties',
    auth: 'key',
    key: ANY_KEY,
    summary: 'Bounties, newest first: status (open, filled, expired, cancelled), limit (default 20, max 100), offset',
    operation: ListBountiesDocument,
    request: { query: listBountiesSchema },
    response: z.object({ bounties: z.array(bounty), total: count, limit: count, offset: count }),
    variables: ({ query }) => ({ status: query.status, limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const page = unwrap(data.bounties);
      return { bounties: page.bounties.map(bountyJson), total: page.total, limit: page.limit, offset: page.offset };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/bounties',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Post a bounty (subject_slug or subject_name, reward_per_photo, photos_needed up to 100, description, expires_days default 30): reward x photos is escrowed at once',
    operation: CreateBountyDocument,
    request: { body: createBountySchema },
    response: bounty,
    errors: { 402: 'too few coins for reward_per_photo x photos_needed' },
    variables: ({ body }) => ({
      subjectSlug: body.subject_slug,
      subjectName: body.subject_name,
      rewardPerPhoto: body.reward_per_photo,
      photosNeeded: body.photos_needed,
      description: body.description,
      expiresDays: body.expires_days,
    }),
    successStatus: 201,
    shape: (data) => bountyJson(unwrap(data.createBounty)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/bounties/:bounty_id/claim',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Claim a bounty with your own community upload that shows its subject (crowdsource_id): a vision-confirmed tag of it, not OCR text alone, or a verified wiki photo of it on the same image; the reward is paid at once',
    operation: ClaimBountyDocument,
    request: { params: z.object({ bounty_id: objectId.describe('the bounty id') }), body: claimBountySchema },
    response: z.object({ bounty_id: id, crowdsource_id: id, paid: z.number(), balance: balance.describe("the claimant's spendable coins after (held coins not included)"), held, bounty }),
    errors: {
      400: 'the upload has no tag of the subject (and no verified wiki photo of it is of the same image)',
      403: "the upload is someone else's, or the caller posted the bounty",
      404: 'no such bounty (looked up before the upload), or no such upload',
      409: 'the bounty is filled, expired or cancelled; the upload claimed before; or its tag of the subject is not confirmed by vision, or only by text read in the image',
    },
    variables: ({ params, body }) => ({ id: pathId(params, 'bounty', 'bounty_id'), crowdsourceId: body.crowdsource_id }),
    shape: (data) => {
      const r = unwrap(data.claimBounty);
      return { bounty_id: r.bounty.databaseId, crowdsource_id: r.itemId, paid: r.paid, balance: r.balance, held: r.held, bounty: bountyJson(r.bounty) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/economy/bounties/:id/cancel',
    auth: 'key',
    key: MASTER_KEY,
    summary: 'Cancel your open bounty: the escrow not yet paid returns to you',
    operation: CancelBountyDocument,
    request: { params: idParams('bounty') },
    response: bounty,
    errors: { 409: 'the bounty is not open' },
    variables: ({ params }) => ({ id: pathId(params, 'bounty') }),
    shape: (data) => bountyJson(unwrap(data.cancelBounty)),
  }),
];
