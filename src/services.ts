// Composition root of the domain services: built once per app from the configuration.
import type { Config } from './config.js';
import type { Database } from './platform/database/database.js';
import type { EventBus } from './platform/events.js';
import { AuthService } from './modules/accounts/auth.service.js';
import { AccountsService } from './modules/accounts/accounts.service.js';
import { QuotaService } from './modules/quota/quota.service.js';
import { SubKeysService } from './modules/platform/sub-keys.service.js';

export interface Services {
  config: Config;
  db: Database;
  events: EventBus;
  adminToken: string;
  auth: AuthService;
  quota: QuotaService;
  accounts: AccountsService;
  subKeys: SubKeysService;
}

export function createServices(config: Config, db: Database, events: EventBus, adminToken: string): Services {
  return {
    config,
    db,
    events,
    adminToken,
    auth: new AuthService(db),
    quota: new QuotaService(db, config.tiers),
    accounts: new AccountsService(db, Object.keys(config.tiers)),
    subKeys: new SubKeysService(db, config.subKeysPerAccount, events),
  };
}
