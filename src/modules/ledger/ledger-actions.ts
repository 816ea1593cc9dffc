// What a transfer is for: the one list of the `action` names the service writes on the ledger (and
// reads back: histories, the leaderboard, referral totals). The names are stored in every transfer
// row and shown in histories, so they are stable; a new one is added here. Rewards are
// `reward:<reward action>` (reward-rates.ts has the reward actions).
import { REWARD_ACTIONS, type RewardAction } from './reward-rates.js';

export const LedgerAction = {
  /** An operator's grant of coins or credits (CLI, admin API): grants -> wallet. */
  Grant: 'grant',
  /** A referrer's share of a referred account's reward (the reward_award SQL function writes it). */
  ReferralCommission: 'referral_commission',
  /** Credits held, then spent, for an analysis by an outside vision provider. */
  Vision: 'vision',
  /** Credits held, then spent, for generated images. */
  Generate: 'generate',
  /** Credits a paid wiki subject query costs. */
  WikiQuery: 'wiki:query',
  /** A buyer's unlock of a community original: the uploader's share. */
  CommunityUnlock: 'community:unlock',
  /** The same unlock: the rest, into the fees account. */
  CommunityUnlockFee: 'community:unlock_fee',
  /** An approved royalty claim's share (of an unlock, or of a wiki query's fees). */
  CommunityRoyalty: 'community:royalty',
  /** A bounty's reward, reserved in escrow per photo slot. */
  BountyEscrow: 'bounty:escrow',
  /** A bounty slot paid out of escrow to the photo's contributor. */
  BountyClaim: 'bounty:claim',
  /** Coins converted to credits: the coins held for the bridge, and the credits delivered. */
  BridgeConvert: 'bridge_convert',
  /** A premium style preset unlocked with coins. */
  StyleUnlock: 'style_unlock',
} as const;

/** A reward's transfer: `reward:` and the reward action. */
export type RewardLedgerAction = `reward:${RewardAction}`;

export type LedgerActionName = (typeof LedgerAction)[keyof typeof LedgerAction] | RewardLedgerAction;

export function rewardLedgerAction(action: RewardAction): RewardLedgerAction {
  return `reward:${action}`;
}

/** Every action the service writes. */
export const LEDGER_ACTIONS: readonly LedgerActionName[] = [...Object.values(LedgerAction), ...REWARD_ACTIONS.map(rewardLedgerAction)];

/** What the ledger accepts as an action (it checks every transfer against it). */
export const LEDGER_ACTION_FORMAT = /^[a-z0-9_.:-]{1,64}$/;
