// Public surface of the image intel module. Other modules import only this.
export { IntelService, changesOf, type IntelPost, type IntelPostResult, type IntelResolution, type IntelPage } from './intel.service.js';
export { intelPostPolicy } from './intel.access.js';
export { INTEL_POLICIES, INTEL_KINDS, INTEL_STATUSES, INTEL_ACTIONS, PROPOSAL_STATUSES, type IntelPolicy, type IntelChanges } from './intel.input.js';
export { setupIntel } from './intel.setup.js';
