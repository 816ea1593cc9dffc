// What the ledger refuses, as typed service errors (402 for money the wallet does not have).
import { AppError, ErrorCode } from '../../platform/errors.js';
import { fromMinor, type Currency } from './money.js';

/** A wallet lacks the funds a transfer needs: 402, code INSUFFICIENT_CREDITS or INSUFFICIENT_COINS. */
export class InsufficientFunds extends AppError {
  constructor(
    readonly currency: Currency,
    /** Minor units the transfer needed. */
    readonly needed: number,
    /** Minor units the wallet could spend (balance minus reserved). */
    readonly available: number,
    message = `this needs ${fromMinor(needed)} ${currency} and the account has ${fromMinor(available)} ${currency} available`,
  ) {
    super(message, 402, currency === 'credits' ? ErrorCode.InsufficientCredits : ErrorCode.InsufficientCoins);
  }
}

/** Too few API credits (402 INSUFFICIENT_CREDITS). */
export class InsufficientCredits extends InsufficientFunds {
  constructor(needed: number, available: number, message?: string) {
    super('credits', needed, available, message);
  }
}
