// How an export talks to a destination that can refuse: the three outcomes of a failed request,
// and the retry loop for the one that may be tried again (throttled, or the server could not serve).
import { DelegateBackoff, handleType, retry, type IRetryBackoffContext } from 'cockatiel';

/** What exists at the destination for an item, as far as it got. */
export interface RemoteFile {
  remoteId: string | null;
  remoteUrl: string | null;
}

/** This item failed; the others go on. `remote`: what it left at the destination (uploaded, not attached). */
export class ItemFailed extends Error {
  constructor(
    message: string,
    readonly remote?: RemoteFile,
  ) {
    super(message);
  }
}

/**
 * The destination refuses the whole export (credentials refused, shop frozen or locked, site
 * unreachable or not WordPress): the items not sent yet fail with this message, none is tried.
 */
export class DestinationRefused extends Error {}

/** Worth another try after `waitMs` (Retry-After, the throttle's refill) or the usual backoff. */
export class TryAgain extends Error {
  constructor(
    message: string,
    readonly waitMs: number | null = null,
  ) {
    super(message);
  }
}

/** The longest wait a destination may ask for before the item is given up instead. */
export const MAX_WAIT_MS = 60_000;
const BASE_DELAY_MS = 500;
const MAX_BACKOFF_MS = 15_000;

export interface RetryOptions {
  retries: number;
  signal?: AbortSignal;
}

/** Runs `work` until it succeeds, throws something other than TryAgain, or the retries run out (cockatiel's retry policy). */
export async function retrying<T>(work: () => Promise<T>, { retries, signal }: RetryOptions): Promise<T> {
  let tries = 0;
  const policy = retry(handleType(TryAgain), {
    maxAttempts: retries,
    // The destination's own wait (Retry-After, the throttle's refill) when it named one, else exponential backoff.
    backoff: new DelegateBackoff<IRetryBackoffContext<unknown>>(({ attempt, result }) => {
      const asked = 'error' in result && result.error instanceof TryAgain ? result.error.waitMs : null;
      return asked ?? backoff(attempt - 1);
    }),
  });
  try {
    return await policy.execute(async () => {
      tries++;
      try {
        return await work();
      } catch (error) {
        // A wait longer than an export may hold a worker gives the item up at once.
        if (error instanceof TryAgain && error.waitMs !== null && error.waitMs > MAX_WAIT_MS) {
          throw new ItemFailed(`${error.message} (it asked to wait ${Math.ceil(error.waitMs / 1000)} s, longer than ${MAX_WAIT_MS / 1000} s)`);
        }
        throw error;
      }
    }, signal);
  } catch (error) {
    if (error instanceof TryAgain) throw new ItemFailed(`${error.message} (gave up after ${tries} tries)`);
    throw error;
  }
}

/** 0.5 s, 1 s, 2 s ... (at most 15 s), each stretched or shrunk by up to a fifth. */
function backoff(attempt: number): number {
  return Math.round(Math.min(MAX_BACKOFF_MS, BASE_DELAY_MS * 2 ** attempt) * (0.8 + 0.4 * Math.random()));
}

/** Retry-After in milliseconds: seconds or an HTTP date (RFC 9110); null when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
