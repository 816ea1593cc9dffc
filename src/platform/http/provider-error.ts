// How an outside provider (an image generator, a vision or web-detection API) failed to deliver, and
// the two text helpers their HTTP clients share. One type for every module that calls a provider:
// generation's chain and vision's fallback both catch it, each reading the kinds that concern it.

/**
 * - timeout: no answer in time (the attempt's deadline or the caller going away);
 * - network: the host could not be reached, or broke off its answer;
 * - http: a non-2xx answer (`upstreamStatus` holds it);
 * - malformed: not the documented JSON, not an image, an oversized answer;
 * - failed: the provider (or the local analysis) reported that the task failed;
 * - upstream: the provider answered but could not do this input (vision: an error in the body, no content);
 * - refused: moderation refused the prompt or its result (generation: not an outage, so it does
 *   not count against the provider's circuit).
 */
export type ProviderFailure = 'timeout' | 'network' | 'http' | 'malformed' | 'failed' | 'upstream' | 'refused';

/**
 * A provider that did not deliver: the caller tries the next one or answers 502. `message` is safe
 * for callers (never a key, never the provider's raw answer); `detail` is for the log (truncated,
 * keys blanked).
 */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly failure: ProviderFailure,
    message: string,
    readonly detail?: string,
    readonly upstreamStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The text with every secret in it blanked, for a log line. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let result = text;
  for (const secret of secrets) if (secret) result = result.split(secret).join('[redacted]');
  return result;
}

/** Joins a base URL and a path without doubling or losing the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
