// Builds the quota module's services and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { AdmissionService } from './admission.service.js';
import { QuotaService } from './quota.service.js';
import type { TierLimits } from './quota.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    quota: QuotaService;
    /** Authentication and quota of a request with a key, in one round trip for a key seen before. */
    admission: AdmissionService;
  }
}

export function setupQuota({ db, auth, tiers }: Pick<Services, 'db' | 'auth'> & { tiers: Record<string, TierLimits> }): Pick<Services, 'quota' | 'admission'> {
  const quota = new QuotaService(db, tiers);
  return { quota, admission: new AdmissionService(db, auth, quota) };
}
