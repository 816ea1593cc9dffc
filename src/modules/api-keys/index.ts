// Public surface of the api-keys module: what other modules use of it (a lint rule keeps them to it).
export { SUB_KEY_SCOPES, isSubKeyScope, type SubKeyScope } from './scopes.js';
export { SubKeysService } from './sub-keys.service.js';
export { setupApiKeys } from './api-keys.setup.js';
