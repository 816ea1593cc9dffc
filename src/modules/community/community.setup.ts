// Builds the community library's services and adds them to the service registry's type.
import type { Services, UploadLimits } from '../../platform/service-registry.js';
import { ClaimsService } from './claims.service.js';
import { CommunityService } from './community.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The community library and ownership claims on its items. */
    community: CommunityService;
    claims: ClaimsService;
  }
}

export type CommunitySetup = Pick<Services, 'db' | 'blobs' | 'fetcher' | 'imageObjects' | 'ledger' | 'rewards' | 'signer' | 'logger' | 'vision'> & { limits: UploadLimits };

export function setupCommunity({ vision, ...deps }: CommunitySetup): Pick<Services, 'community' | 'claims'> {
  const community = new CommunityService({
    ...deps,
    // Community items are analysed whole (labels, caption, text), paid like auto_tag.
    analyze: async (image, payer) => vision.analyze({ image, task: 'all', payer }),
    judge: (image, tags, payer) => vision.judgeTags(image, tags, payer),
  });
  return { community, claims: new ClaimsService(deps.db, community) };
}
