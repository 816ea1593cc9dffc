// Builds the accounts module's services and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { AccountsService } from './accounts.service.js';
import { AuthService } from './auth.service.js';
import { KeyWatch } from './key-watch.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    auth: AuthService;
    /** Ends open subscriptions of keys that may no longer be used (revoked, rotated, expired, suspended), on every process. */
    keyWatch: KeyWatch;
    accounts: AccountsService;
  }
}

export function setupAccounts({ db, events, logger, tierNames }: Pick<Services, 'db' | 'events' | 'logger'> & { tierNames: string[] }): Pick<Services, 'auth' | 'keyWatch' | 'accounts'> {
  const keyWatch = new KeyWatch(db, events, logger);
  return { auth: new AuthService(db), keyWatch, accounts: new AccountsService(db, tierNames, keyWatch) };
}
