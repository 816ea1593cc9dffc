// Spec "Community": the active fact-checking challenge and the challenge vote (rewards doubled); ours:
// the operator's challenges (create, list, end). All declared in
// src/modules/challenges/challenges.operations.ts.
import { restRoutesOf } from '../derive.js';
import { challengeOperations } from '../../src/modules/challenges/challenges.operations.js';

export const challengesRoutes = restRoutesOf(challengeOperations);
