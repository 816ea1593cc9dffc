// Bounties as callers see them, stated once: each answer object (REST names, src/platform/wire.ts)
// and the GraphQL type made from it (src/graphql/answer-object.ts). The operations on them are
// declared in bounties.operations.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { answerDescription, answeredBy, answerEnum, answerFields, answerObject, handleOf } from '../../graphql/answer-object.js';
import { answerFrom, balance, count, held, id, timestamp } from '../../platform/wire.js';
import { balanceFields } from '../ledger/ledger.schema.js';
import { fromMinor } from '../ledger/index.js';
import { BOUNTY_STATUSES } from './bounties.input.js';
import { BountiesService, type Bounty, type BountyClaimResult } from './bounties.service.js';

export const BountyStatusEnum = answerEnum('BountyStatus', { values: BOUNTY_STATUSES });

export const bounty = answerFrom(
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

export const BountyRef = answeredBy(builder.prismaObject('Bounty', {
  description: answerDescription(bounty),
  fields: (t) =>
    answerFields(t, bounty, {
      poster: handleOf((b: Bounty) => b.accountId),
      reward_per_photo: { resolve: (b: Bounty) => fromMinor(b.rewardPerPhoto) },
      escrow_remaining: { resolve: (b) => (b.status === 'open' ? BountiesService.remaining(b) : 0) },
      mine: { resolve: (b, _a, ctx) => b.accountId === ctx.actor?.accountId },
    }),
}), bounty);

export const bountyPage = z.object({ bounties: z.array(bounty), total: count, limit: count, offset: count });
export const BountyPageRef = answerObject<{ bounties: Bounty[]; total: number; limit: number; offset: number }>('BountyPage', bountyPage);

export const bountyClaim = answerFrom(
  z.object({ bounty_id: id, crowdsource_id: id, paid: z.number(), balance: balance.describe("the claimant's spendable coins after (held coins not included)"), held, bounty }),
  { bounty_id: 'bounty.databaseId', crowdsource_id: 'itemId' },
);
export const BountyClaimRef = answerObject<BountyClaimResult>('BountyClaimResult', bountyClaim, {
  fields: (t) => ({ paid: { description: 'Coins paid to the claimant' }, ...balanceFields(t) }),
});
