// Public surface of the quota module: what other modules use of it (a lint rule keeps them to it).
export { subKeyCounterKey, QuotaService } from './quota.service.js';
export { AdmissionService, type Admitted, type DataVersions } from './admission.service.js';
export { setupQuota } from './quota.setup.js';
export { OPERATOR_TIER, withOperatorTier } from './quota.settings.js';
