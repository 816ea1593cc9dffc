// Spec "Economy": the coin bridge (rate, convert), referrals and style presets; ours beside them:
// linking the caller's account at the credit partner, reading one conversion, and the operator's
// coin grant (admin token; the CLI's `coins grant`). Bounties are the community module's. All
// declared in src/modules/economy/economy.operations.ts.
import { restRoutesOf } from '../derive.js';
import { economyOperations } from '../../src/modules/economy/economy.operations.js';

export const economyRoutes = restRoutesOf(economyOperations);
