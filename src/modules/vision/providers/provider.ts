// What a vision provider is, how it fails, and the one HTTP helper the external ones share.
import type { InspectedImage, ProviderName, ProviderResult, VisionTask } from '../vision.types.js';
import { ProviderError, redact } from '../../../platform/http/provider-error.js';

/** The failure type is the platform's, one for every module that calls a provider. */
export { ProviderError, joinUrl, type ProviderFailure } from '../../../platform/http/provider-error.js';

export interface VisionProvider {
  readonly name: ProviderName;
  /** Whether the provider can do the task at all (OCR.space reads text only). */
  supports(task: VisionTask): boolean;
  /** `field` names the input the image came from, for messages about the image itself. */
  analyze(image: InspectedImage, task: VisionTask, field: string): Promise<ProviderResult>;
}

export interface HttpOptions {
  provider: ProviderName;
  url: string;
  headers: Record<string, string>;
  body: string | FormData;
  timeoutMs: number;
  /** Secrets to blank in anything that reaches a log line. */
  secrets: string[];
}

const MAX_ANSWER_BYTES = 10 * 1024 * 1024;

/** POSTs and parses a JSON answer; every way it can go wrong becomes a ProviderError. */
export async function postJson(options: HttpOptions): Promise<unknown> {
  const { provider, timeoutMs, secrets } = options;
  let response: Response;
  try {
    response = await fetch(options.url, { method: 'POST', headers: options.headers, body: options.body, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (error) {
    const e = error as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new ProviderError(provider, 'timeout', `${provider} did not answer within ${timeoutMs} ms`);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new ProviderError(provider, 'network', `${provider} could not be reached`, redact(cause?.code ?? cause?.message ?? e.message, secrets));
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    const e = error as Error;
    if (e.name === 'TimeoutError' || e.name === 'AbortError') throw new ProviderError(provider, 'timeout', `${provider} did not answer within ${timeoutMs} ms`);
    throw new ProviderError(provider, 'network', `${provider} broke off its answer`, redact(e.message, secrets));
  }
  if (!response.ok) {
    throw new ProviderError(provider, 'http', `${provider} answered HTTP ${response.status}`, redact(text.slice(0, 300), secrets), response.status);
  }
  if (text.length > MAX_ANSWER_BYTES) throw new ProviderError(provider, 'malformed', `${provider} answered with an oversized body`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ProviderError(provider, 'malformed', `${provider} answered something that is not JSON`, redact(text.slice(0, 300), secrets));
  }
}

export function dataUri(image: InspectedImage): string {
  return `data:${image.mime};base64,${image.bytes.toString('base64')}`;
}
