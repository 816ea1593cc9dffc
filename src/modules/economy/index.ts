// Public surface of the economy module (spec "Economy"): the coin bridge, referrals, style presets
// and the operator's coin grants. Other modules and the composition root use only this.
import type { Database } from '../../platform/database/database.js';
import type { Logger } from '../../platform/logger.js';
import type { LedgerService } from '../ledger/index.js';
import { BridgeService } from './bridge.service.js';
import { CoinsService } from './coins.service.js';
import { HttpCreditPartner, LocalCreditPartner, type CreditPartner } from './credit-partner.js';
import type { EconomyConfig } from './economy.settings.js';
import { ReferralService } from './referral.service.js';
import { StylesService } from './styles.service.js';

export { BridgeService, conversionAmounts, type ConversionView, type BridgeRateView, type BridgeLinkView } from './bridge.service.js';
export { ReferralService, referralUrl, type ReferralView } from './referral.service.js';
export { StylesService, StyleLocked, type StylePreset, type StyleView, type UnlockResult } from './styles.service.js';
export { CoinsService } from './coins.service.js';
export { HttpCreditPartner, LocalCreditPartner, signPartnerRequest, type CreditPartner, type PartnerAnswer, type PartnerDelivery } from './credit-partner.js';
export { FREE_STYLES, DEFAULT_PREMIUM_STYLES, DEFAULT_COINS_PER_CREDIT, DEFAULT_ECONOMY, type EconomyConfig, type BridgePartnerConfig } from './economy.settings.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The coin economy: the coin-to-credit bridge, referrals, style presets, the operator's coin grants. */
    economy: Economy;
  }
}

export interface Economy {
  bridge: BridgeService;
  referrals: ReferralService;
  /** Style presets; the generate route asks `requireUsable(actor, slug)`. */
  styles: StylesService;
  coins: CoinsService;
}

export function createEconomy(deps: { db: Database; ledger: LedgerService; logger: Logger; config: EconomyConfig }): Economy {
  const { db, ledger, logger, config } = deps;
  const partner: CreditPartner = config.partner.kind === 'http' ? new HttpCreditPartner(config.partner) : new LocalCreditPartner(ledger);
  return {
    bridge: new BridgeService(db, ledger, partner, config.coinsPerCredit, logger),
    referrals: new ReferralService(db),
    styles: new StylesService(db, ledger, config.premiumStyles),
    coins: new CoinsService(ledger),
  };
}
