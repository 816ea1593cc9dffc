// The operator's coin grants (POST /api/admin/accounts/:handle/coins, adminGrantCoins, `npm run cli
// -- coins grant`): coins from the `grants` system account into a wallet, as the credits grant does
// for API credits. With an idempotency key, a repeat grants once.
import { parseInput } from '../../platform/validation.js';
import type { GrantResult, LedgerService } from '../ledger/index.js';
import { coinGrantSchema } from './economy.input.js';

export class CoinsService {
  constructor(private readonly ledger: LedgerService) {}

  /** Adds coins; the same idempotency key with another account or amount is a 409. */
  async grant(accountId: number, input: { amount: number; reference?: string | null; idempotency_key?: string | null }): Promise<GrantResult> {
    const { amount, reference, idempotency_key } = parseInput(coinGrantSchema, input);
    return this.ledger.grant('coins', accountId, { amount, reference, idempotencyKey: idempotency_key });
  }
}
