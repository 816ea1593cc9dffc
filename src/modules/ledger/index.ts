// Public surface of the ledger module (money: coins and API credits). Other modules import only this.
export { LedgerService, balanceOf, type Balance, type Tx, type LedgerOptions, type Party, type TransferRequest, type Transfer, type Wallet, type WalletEntry, type WalletState, type ApplyResult, type GrantResult, type LedgerOperation } from './ledger.service.js';
export { CreditsService, type CreditSummary, type CreditEntryView, type CreditHold, grantSchemaFor } from './credits.service.js';
export { RewardsService, awardTransferId, rewardAmount, type AwardResult, type AwardOptions, type AwardStatus, type RewardSettings } from './rewards.service.js';
export { LedgerAction, LEDGER_ACTIONS, rewardLedgerAction, type LedgerActionName, type RewardLedgerAction } from './ledger-actions.js';
export { InsufficientFunds, InsufficientCredits } from './ledger.errors.js';
export { CURRENCIES, SYSTEM_ACCOUNTS, UNITS_PER_WHOLE, MAX_AMOUNT, amountSchema, fromMinor, toMinor, type Currency, type SystemAccount } from './money.js';
export {
  DEFAULT_REWARD_RATES,
  DEFAULT_REWARD_DAILY_CAPS,
  REWARD_ACTIONS,
  type RewardAction,
  type RewardRates,
  type RewardCaps,
  type RewardRateKey,
} from './reward-rates.js';
export { setupLedger } from './ledger.setup.js';
