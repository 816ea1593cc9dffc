// Public surface of the bounties module. Other modules import only this.
export { BountiesService, type Bounty, type BountyClaimResult } from './bounties.service.js';
export { BOUNTY_STATUSES, slugify } from './bounties.input.js';
export { bountyPolicy } from './bounties.access.js';
export { setupBounties } from './bounties.setup.js';
