// Who may use the economy: reading (the rate, a conversion, the referral figures, the style list)
// takes any key of the account, a sub-key too; moving the account's money (converting coins,
// unlocking a style) or changing where it goes (linking a partner account) takes the master key,
// since no sub-key scope (scrape, generate, search, media) is about money. Stored economy rows are
// the account's own (conversions, its partner link): services filter them by the actor's account.
import { ANY_KEY, MASTER_KEY, type KeyRule } from '../access/index.js';

/** GET routes and queries: any valid key. */
export const ECONOMY_READ: KeyRule = ANY_KEY;
/** Money moves and links: the account's master key. */
export const ECONOMY_SPEND: KeyRule = MASTER_KEY;
