// Public surface of the challenges module. Other modules import only this.
export { ChallengesService, challengeScope, challengeStatus, inScope, type Challenge, type ChallengeBoard, type ChallengeVoteResult } from './challenges.service.js';
export { challengePolicy } from './challenges.access.js';
export { setupChallenges } from './challenges.setup.js';
