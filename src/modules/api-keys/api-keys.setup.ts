// Builds the sub-keys service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { SubKeysService } from './sub-keys.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    subKeys: SubKeysService;
  }
}

export function setupApiKeys({ db, events, keyWatch, perAccount }: Pick<Services, 'db' | 'events' | 'keyWatch'> & { perAccount: number }): Pick<Services, 'subKeys'> {
  return { subKeys: new SubKeysService(db, perAccount, events, keyWatch) };
}
