// The bridge's port: where the credits of a coin conversion land. Two adapters, chosen by
// BRIDGE_PARTNER: `local` (this service's own credit ledger; every account is linked to itself) and
// `http` (an external partner reached by a signed, idempotent POST). The protocol of the http
// adapter is ours (the spec only says coins convert into credits on a linked external account) and
// is documented in the README ("Economy: bridge, referral, styles").
import { createHmac } from 'node:crypto';
import { LedgerAction, type LedgerService, type TransferRequest } from '../ledger/index.js';

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';

/** One conversion, as the partner is asked to credit it. */
export interface PartnerDelivery {
  /** The conversion's id: the Idempotency-Key (every attempt sends the same one). */
  conversionId: string;
  accountId: number;
  /** The account at the partner (http); null for local. */
  partnerAccount: string | null;
  /** Credits to add, minor units, and the same in credits. */
  creditsMinor: number;
  credits: number;
  /** Coins burned for them. */
  coins: number;
  coinsPerCredit: number;
  createdAt: Date;
}

export type PartnerAnswer =
  /** The partner added the credits (or had added them for this idempotency key before). */
  | { outcome: 'confirmed'; reference: string | null }
  /** The partner will never add them (a 4xx other than 408, 425, 429): the coins are released. */
  | { outcome: 'refused'; reason: string }
  /** No answer that decides (a timeout, a network error, a 5xx, 408, 425, 429): try again later. */
  | { outcome: 'unknown'; reason: string };

export interface CreditPartner {
  readonly kind: 'local' | 'http';
  /** Whether an account must link its partner account before converting. */
  readonly needsLink: boolean;
  /** Adds the credits on the partner's side; safe to repeat with the same conversion id. */
  deliver(delivery: PartnerDelivery): Promise<PartnerAnswer>;
  /**
   * A partner inside this service's ledger: the delivery as a ledger transfer, which the bridge
   * applies in the same statement as the hold (the conversion completes in one transaction).
   */
  inLedger?(delivery: Pick<PartnerDelivery, 'conversionId' | 'accountId' | 'creditsMinor'>): TransferRequest;
}

/** Credits land in this service's credit ledger: from the bridge system account, once per conversion id. */
export class LocalCreditPartner implements CreditPartner {
  readonly kind = 'local';
  readonly needsLink = false;

  constructor(private readonly ledger: LedgerService) {}

  async deliver(delivery: PartnerDelivery): Promise<PartnerAnswer> {
    const { transfer } = await this.ledger.transfer(this.inLedger(delivery));
    return { outcome: 'confirmed', reference: transfer.id };
  }

  inLedger(delivery: Pick<PartnerDelivery, 'conversionId' | 'accountId' | 'creditsMinor'>): TransferRequest {
    return {
      id: `bridge:${delivery.conversionId}:credits`,
      currency: 'credits',
      from: { system: 'bridge' },
      to: { account: delivery.accountId },
      amount: delivery.creditsMinor,
      action: LedgerAction.BridgeConvert,
      reference: delivery.conversionId,
    };
  }
}

/** Hex HMAC-SHA256, keyed with the shared secret, of `<timestamp>.<body>` (the exact bytes sent). */
export function signPartnerRequest(secret: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The JSON body POSTed to the partner. */
export function partnerRequestBody(delivery: PartnerDelivery): string {
  return JSON.stringify({
    conversion_id: delivery.conversionId,
    partner_account: delivery.partnerAccount,
    credits: delivery.credits,
    coins: delivery.coins,
    coins_per_credit: delivery.coinsPerCredit,
    created_at: delivery.createdAt.toISOString(),
  });
}

/** A partner's words, safe to put into a message to our caller: one line, at most 200 characters. */
function cleanReason(text: string): string {
  return text.replace(/[\p{Cc}\s]+/gu, ' ').trim().slice(0, 200);
}

/** Statuses that decide nothing: the same request may succeed later. */
const RETRYABLE = new Set([408, 425, 429]);

/**
 * POSTs each conversion to the partner: JSON body, `Idempotency-Key: <conversion id>`,
 * `X-Service-Timestamp: <unix seconds>` and `X-Service-Signature: <hex HMAC-SHA256 of
 * "<timestamp>.<body>">`. 2xx confirms (an optional JSON `reference` is kept); another 4xx refuses
 * (its JSON `error` or `message` is the reason); the rest is answered "unknown" and tried again.
 */
export class HttpCreditPartner implements CreditPartner {
  readonly kind = 'http';
  readonly needsLink = true;

  constructor(private readonly options: { url: string; secret: string; timeoutMs: number }) {}

  async deliver(delivery: PartnerDelivery): Promise<PartnerAnswer> {
    const body = partnerRequestBody(delivery);
    const timestamp = String(Math.floor(Date.now() / 1000));
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [IDEMPOTENCY_HEADER]: delivery.conversionId,
          [TIMESTAMP_HEADER]: timestamp,
          [SIGNATURE_HEADER]: signPartnerRequest(this.options.secret, timestamp, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${this.options.timeoutMs} ms` : (cause ?? (error as Error).message);
      return { outcome: 'unknown', reason: cleanReason(`the credit partner could not be reached: ${reason}`) };
    }
    let json: { reference?: unknown; error?: unknown; message?: unknown } = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') json = parsed as typeof json;
    } catch {
      // Not JSON: the status alone decides.
    }
    if (response.status >= 200 && response.status < 300) {
      return { outcome: 'confirmed', reference: typeof json.reference === 'string' ? cleanReason(json.reference) : null };
    }
    if (response.status >= 400 && response.status < 500 && !RETRYABLE.has(response.status)) {
      const said = typeof json.error === 'string' ? json.error : typeof json.message === 'string' ? json.message : '';
      return { outcome: 'refused', reason: cleanReason(said ? `${said} (HTTP ${response.status})` : `HTTP ${response.status}`) };
    }
    return { outcome: 'unknown', reason: `the credit partner answered HTTP ${response.status}` };
  }
}
