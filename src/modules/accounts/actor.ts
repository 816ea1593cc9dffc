import type { SubKeyScope } from '../api-keys/index.js';

/** Who is calling: the account behind the presented key, and what that key may do. */
export interface Actor {
  accountId: number;
  handle: string;
  tier: string;
  keyId: number;
  keyKind: 'master' | 'sub';
  /** Master keys carry every sub-key scope. */
  scopes: ReadonlySet<SubKeyScope>;
  /**
   * Sub-keys only: how many accepted requests the key may make in its life (the REST field
   * `credit_limit`; not money, which the ledger keeps).
   */
  requestBudget: number | null;
}
