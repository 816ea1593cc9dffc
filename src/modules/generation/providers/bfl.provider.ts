// Black Forest Labs FLUX (api.bfl.ai): `POST /v1/{model}` with the key in `x-key` submits a task and
// answers {id, polling_url}; `GET polling_url` answers {status, result: {sample}} until the status is
// Ready (sample: a signed URL of the image, downloaded through the SSRF-safe fetcher) or a failure
// (Error, Failed, Request Moderated, Content Moderated, Task not found). One image per task, so
// `count` images are `count` tasks at once, each with its own seed.
import { z } from 'zod';
import { FREE_SIZES } from '../generation.prompts.js';
import { ProviderError, callJson, eachImage, joinUrl, randomSeed, redact, type GenerationProvider, type ProviderRequest, type ResultDownloader } from './provider.js';

export interface BflOptions {
  apiKey: string;
  baseUrl: string;
  model: string;
  /** Wait between polls. */
  pollMs: number;
  maxImageBytes: number;
}

const submitted = z.object({ id: z.string().min(1), polling_url: z.string().optional() });
const polled = z.object({
  status: z.string(),
  result: z.object({ sample: z.string().min(1) }).passthrough().nullish(),
});

/** Statuses of a task still running (FLUX.2 adds Reasoning and Generating to Pending). */
const RUNNING = new Set(['Pending', 'Queued', 'Reasoning', 'Generating', 'Processing']);
const MODERATED = new Set(['Request Moderated', 'Content Moderated']);
/** Answers of JSON carry at most this much (a task id, a status, a URL). */
const MAX_JSON_BYTES = 1024 * 1024;

export class BflProvider implements GenerationProvider {
  readonly name = 'bfl' as const;

  constructor(
    private readonly options: BflOptions,
    private readonly download: ResultDownloader,
  ) {}

  async generate(request: ProviderRequest): Promise<Buffer[]> {
    return eachImage(request.count, () => this.one(request));
  }

  private async one(request: ProviderRequest): Promise<Buffer> {
    const key = request.apiKey ?? this.options.apiKey;
    const secrets = [key, this.options.apiKey];
    const headers = { 'x-key': key, 'Content-Type': 'application/json', Accept: 'application/json' };
    const size = FREE_SIZES[request.orientation];
    const body = { prompt: request.prompt, width: size.width, height: size.height, seed: randomSeed(), output_format: 'png', safety_tolerance: 2 };
    const answer = submitted.safeParse(
      await callJson(joinUrl(this.options.baseUrl, `v1/${this.options.model}`), { provider: this.name, method: 'POST', headers, body: JSON.stringify(body), signal: request.signal, maxBytes: MAX_JSON_BYTES, secrets }),
    );
    if (!answer.success) throw new ProviderError(this.name, 'malformed', 'bfl answered its submission without a task id');
    const pollUrl = this.pollUrl(answer.data.id, answer.data.polling_url);
    for (;;) {
      const reply = polled.safeParse(await callJson(pollUrl, { provider: this.name, headers, signal: request.signal, maxBytes: MAX_JSON_BYTES, secrets }));
      if (!reply.success) throw new ProviderError(this.name, 'malformed', 'bfl answered a poll without a status');
      const { status, result } = reply.data;
      if (status === 'Ready') {
        if (!result) throw new ProviderError(this.name, 'malformed', 'bfl reported the task ready without result.sample');
        return this.fetchSample(result.sample, request.signal, secrets);
      }
      if (MODERATED.has(status)) throw new ProviderError(this.name, 'refused', `bfl refused the prompt or its result (${status})`);
      if (!RUNNING.has(status)) throw new ProviderError(this.name, 'failed', `bfl reported the task ${status.slice(0, 60)}`);
      await sleep(this.options.pollMs, request.signal);
      if (request.signal.aborted) throw new ProviderError(this.name, 'timeout', 'bfl did not finish the task in time');
    }
  }

  /**
   * The polling_url the API answered, when it is on the API's own site (it may name a regional host
   * such as api.us1.bfl.ai): the key goes with every poll, so never to a host outside it. Otherwise,
   * or without one, the documented get_result on the configured base URL.
   */
  private pollUrl(id: string, given: string | undefined): string {
    if (given && sameSite(given, this.options.baseUrl)) return given;
    return `${joinUrl(this.options.baseUrl, 'v1/get_result')}?${new URLSearchParams({ id })}`;
  }

  private async fetchSample(url: string, signal: AbortSignal, secrets: string[]): Promise<Buffer> {
    try {
      return await this.download(url, { signal, maxBytes: this.options.maxImageBytes });
    } catch (error) {
      if (signal.aborted) throw new ProviderError(this.name, 'timeout', 'bfl did not deliver the image in time');
      throw new ProviderError(this.name, 'network', 'the image bfl made could not be downloaded', redact((error as Error).message, secrets));
    }
  }
}

/** Same scheme, and the same host or one under the same parent domain (api.bfl.ai and api.us1.bfl.ai); IP hosts must match exactly with their port. */
export function sameSite(url: string, base: string): boolean {
  let a: URL;
  let b: URL;
  try {
    a = new URL(url);
    b = new URL(base);
  } catch {
    return false;
  }
  if (a.protocol !== b.protocol) return false;
  if (a.host === b.host) return true;
  const labels = b.hostname.split('.');
  if (/^[\d.]+$/.test(b.hostname) || b.hostname.includes(':') || labels.length < 2) return false;
  const parent = labels.slice(-2).join('.');
  return a.hostname === parent || a.hostname.endsWith(`.${parent}`);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
