// What generation costs, through the ledger: the price of every image asked for is held before any
// provider is called (the ledger's 402 when the account cannot pay), and afterwards only the images
// delivered are charged while the rest of the hold is released, in one linked ledger batch (void the
// hold, charge what was delivered). A failed generation costs nothing; a hold left behind by a crash
// expires and the ledger's sweep releases it.
import { LedgerAction, toMinor, type CreditHold, type CreditsService, type LedgerService, type Tx } from '../ledger/index.js';

export interface Charge {
  /** The transfer id (idempotency key): a retry with the same id charges once. */
  id: string;
  images: number;
  reference?: string;
}

export class GenerationBilling {
  constructor(
    private readonly credits: CreditsService,
    private readonly ledger: LedgerService,
    /** API credits per delivered image (above 0; a price of 0 means no billing at all). */
    readonly creditsPerImage: number,
    /** Longest a generation may hold credits (all providers' timeouts and the downloads). */
    private readonly holdMs: number,
  ) {}

  /** Reserves the price of `images` images; throws the ledger's 402 InsufficientCredits when the account cannot pay. */
  async hold(accountId: number, images: number, reference: string): Promise<CreditHold> {
    return this.credits.hold(accountId, images * this.creditsPerImage, { action: LedgerAction.Generate, reference, expiresInMs: this.holdMs });
  }

  /** Credits the account can spend now (for a refusal at request time of a job that would hold later). */
  async available(accountId: number): Promise<number> {
    return this.credits.available(accountId);
  }

  /**
   * Ends a hold: charges the delivered images (each charge its own transfer) and releases the rest,
   * together or not at all; in `tx` when given, so that what was delivered and its charge commit as one.
   */
  async settle(hold: CreditHold, accountId: number, charges: Charge[], options: { tx?: Tx } = {}): Promise<void> {
    const delivered = charges.filter((c) => c.images > 0);
    if (delivered.length === 0) {
      await this.ledger.void(hold.id, options);
      return;
    }
    await this.ledger.applyLinked(
      [
        { void: hold.id },
        ...delivered.map((charge) => ({
          id: charge.id,
          currency: 'credits' as const,
          from: { account: accountId },
          to: { system: 'fees' as const },
          amount: toMinor(charge.images * this.creditsPerImage)!,
          action: LedgerAction.Generate,
          reference: charge.reference ?? null,
        })),
      ],
      options,
    );
  }

  /** Releases the whole hold (nothing was delivered, or the work stopped). */
  async release(hold: CreditHold): Promise<void> {
    await this.credits.release(hold);
  }
}
