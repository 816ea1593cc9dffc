// Public surface of the accounts module: what other modules use of it (a lint rule keeps them to it).
export { type Actor } from './actor.js';
export { SUB_KEY_PREFIX, displayPrefix, generateKey, keyMatches } from './api-key.js';
export { AccountsService } from './accounts.service.js';
export { AuthService, actorFrom, keyStateRefusal, type KeyState } from './auth.service.js';
export { KeyWatch } from './key-watch.js';
export { setupAccounts } from './accounts.setup.js';
