// Referrals (spec "Economy": GET /api/economy/referral; "Reward rates": 10 percent of referee
// earnings). Every account has a referral code, made by the database when the account is made
// (Account.referralCode); an account created with `referred_by: <code>` is the code owner's
// referral, and the rewards service pays the owner the commission on each of its rewards (a
// `referral_commission` transfer linked to the reward). This service only reads: the code, the count
// of referrals, and the commission received, summed over a partial index of commission transfers.
import type { Database } from '../../platform/database/database.js';
import { NotFound } from '../../platform/errors.js';
import type { Actor } from '../accounts/index.js';
import { requireKey } from '../access/index.js';
import { fromMinor, LedgerAction } from '../ledger/index.js';
import { ECONOMY_READ } from './economy.access.js';

export interface ReferralView {
  code: string;
  totalReferrals: number;
  /** Coins received as referral commission, ever. */
  commissionEarned: number;
}

/** Where a new user signs up with a code: a page of the front end this service does not serve. */
export function referralUrl(baseUrl: string, code: string): string {
  return `${baseUrl}/signup?ref=${encodeURIComponent(code)}`;
}

export class ReferralService {
  constructor(private readonly db: Database) {}

  /**
   * The caller's code, referrals and commission. One statement: three index lookups. The action is
   * part of the text, not a parameter: the partial index on commissions matches only a constant.
   */
  async referral(actor: Actor | null): Promise<ReferralView> {
    const checked = requireKey(actor, ECONOMY_READ);
    const [row] = await this.db.query<{ code: string; referrals: number; commission: string }>(
      `SELECT a."referralCode" AS code,
              (SELECT count(*)::int FROM "Account" r WHERE r."referredById" = a."id") AS referrals,
              (SELECT coalesce(sum(t."amount"), 0)::text FROM "LedgerTransfer" t
                WHERE t."action" = '${LedgerAction.ReferralCommission}'
                  AND t."creditAccountId" = (SELECT w."id" FROM "LedgerAccount" w WHERE w."ownerId" = a."id" AND w."currency" = 'coins')) AS commission
       FROM "Account" a WHERE a."id" = $1`,
      [checked.accountId],
    );
    if (!row) throw new NotFound('no such account');
    return { code: row.code, totalReferrals: row.referrals, commissionEarned: fromMinor(Number(row.commission)) };
  }
}
