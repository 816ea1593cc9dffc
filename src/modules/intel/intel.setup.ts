// Builds the intel service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { IntelService } from './intel.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Image intel: comments and proposals on community items, resolved by their owners. */
    intel: IntelService;
  }
}

export function setupIntel({ db, ledger, rewards, community, follows }: Pick<Services, 'db' | 'ledger' | 'rewards' | 'community' | 'follows'>): Pick<Services, 'intel'> {
  const intel = new IntelService(db, ledger, rewards, community);
  // Followers of a subject hear of proposals merged on items tagged with it.
  intel.onMerged((item, postId) => follows.announceMerged(item, postId));
  return { intel };
}
