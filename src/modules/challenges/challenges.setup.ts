// Builds the challenges service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { ChallengesService } from './challenges.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Fact-checking challenges: windows in which wiki votes pay the challenge multiplier. */
    challenges: ChallengesService;
  }
}

export function setupChallenges({ db, wiki, rewards }: Pick<Services, 'db' | 'wiki' | 'rewards'>): Pick<Services, 'challenges'> {
  return { challenges: new ChallengesService({ db, wiki, rewards }) };
}
