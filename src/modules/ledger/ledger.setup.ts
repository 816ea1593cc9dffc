// Builds the ledger module's services and adds them to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { CreditsService } from './credits.service.js';
import type { RewardsConfig } from './ledger.settings.js';
import { LedgerService } from './ledger.service.js';
import { RewardsService } from './rewards.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Money: the ledger (coins and credits), API credits, rewards. */
    ledger: LedgerService;
    credits: CreditsService;
    rewards: RewardsService;
  }
}

export function setupLedger({ db, settings }: Pick<Services, 'db'> & { settings: RewardsConfig }): Pick<Services, 'ledger' | 'credits' | 'rewards'> {
  const ledger = new LedgerService(db);
  return { ledger, credits: new CreditsService(ledger), rewards: new RewardsService(db, ledger, settings) };
}
