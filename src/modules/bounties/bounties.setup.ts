// Builds the bounties service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { BountiesService } from './bounties.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Coins offered for photos of a subject, escrowed in the ledger. */
    bounties: BountiesService;
  }
}

export function setupBounties({ db, ledger, community }: Pick<Services, 'db' | 'ledger' | 'community'>): Pick<Services, 'bounties'> {
  return { bounties: new BountiesService(db, ledger, community) };
}
