// Spec "Economy": bounties (list, post, claim) and ours: cancelling one, declared in src/modules/bounties/bounties.operations.ts.
import { restRoutesOf } from '../derive.js';
import { bountyOperations } from '../../src/modules/bounties/bounties.operations.js';

export const bountiesRoutes = restRoutesOf(bountyOperations);
