// The fallback machinery: the configured providers in cost order (GENERATE_PROVIDER_ORDER), each
// behind a circuit breaker (cockatiel: GENERATE_BREAKER_FAILURES consecutive failures open it for
// GENERATE_BREAKER_COOLDOWN_MS, then one trial call decides) and a deadline of its own. The first
// provider that delivers at least one image answers; one that fails, times out, or answers
// something that is not an image is passed over for the next. What a provider hands back is checked
// and converted to PNG here (sharp, bounded in pixels), so a non-image counts as that provider's failure.
import { BrokenCircuitError, CircuitState, ConsecutiveBreaker, IsolatedCircuitError, circuitBreaker, handleWhen, type CircuitBreakerPolicy } from 'cockatiel';
import type { Logger } from '../../platform/logger.js';
import { AppError, ErrorCode, InvalidInput, Unavailable } from '../../platform/errors.js';
import { loadSharp } from '../../platform/sharp.js';
import { GENERATION_PROVIDERS, type GenerationProviderName } from './generation.settings.js';
import { ProviderError, type GenerationProvider, type Orientation } from './providers/provider.js';

export interface ChainEntry {
  provider: GenerationProvider;
  /** Deadline of one attempt: every call, poll and download of it. */
  timeoutMs: number;
}

export interface ChainSettings {
  breaker: { failures: number; cooldownMs: number };
  maxPixels: number;
}

export interface ChainRequest {
  /** The prompt with the style worked in. */
  prompt: string;
  orientation: Orientation;
  count: number;
  /** vendor_key as the caller sent it (see vendorFor). */
  vendorKey?: string;
  /** The caller went away (a job stopped): attempts end. */
  signal?: AbortSignal;
}

export interface GeneratedImage {
  png: Buffer;
  width: number;
  height: number;
}

export interface ChainResult {
  provider: GenerationProviderName;
  images: GeneratedImage[];
}

export type BreakerState = 'closed' | 'open' | 'half_open';

export const NONE_CONFIGURED_MESSAGE =
  'no image generation provider is configured: set GENERATE_POLLINATIONS_ENABLED=true (free, no key), GENERATE_BFL_API_KEY or GENERATE_OPENAI_API_KEY (or GENERATE_OPENAI_BASE_URL for a compatible server); GENERATE_PROVIDER_ORDER sets the order';

const VENDOR_PREFIX = new RegExp(`^(${GENERATION_PROVIDERS.join('|')}):(.+)$`, 's');

interface Link extends ChainEntry {
  breaker: CircuitBreakerPolicy;
}

/** How one provider call ended, for the metrics (GET /metrics counts them). */
export type ProviderCallOutcome = 'ok' | 'failed' | 'cooling';

export class ProviderChain {
  private readonly links: Link[];
  /** Told of every provider call's outcome; set by whoever counts them (src/http/metrics.ts). */
  onCall?: (provider: GenerationProviderName, outcome: ProviderCallOutcome) => void;

  constructor(
    entries: ChainEntry[],
    private readonly settings: ChainSettings,
    private readonly logger: Logger,
  ) {
    this.links = entries.map((entry) => {
      // Moderation is the prompt's fault, not an outage: it does not count against the provider.
      const breaker = circuitBreaker(
        handleWhen((error) => error instanceof ProviderError && error.failure !== 'refused'),
        { halfOpenAfter: settings.breaker.cooldownMs, breaker: new ConsecutiveBreaker(settings.breaker.failures) },
      );
      const name = entry.provider.name;
      breaker.onBreak(() => logger.warn({ provider: name, cooldownMs: settings.breaker.cooldownMs }, 'generation provider keeps failing: passed over until its cool-down ends'));
      breaker.onReset(() => logger.info({ provider: name }, 'generation provider answers again'));
      return { ...entry, breaker };
    });
  }

  /** The configured providers, in the order they are tried. */
  names(): GenerationProviderName[] {
    return this.links.map((l) => l.provider.name);
  }

  states(): Array<{ name: GenerationProviderName; state: BreakerState }> {
    return this.links.map((l) => ({ name: l.provider.name, state: stateOf(l.breaker) }));
  }

  /** 503 with the settings to set when no provider is configured. */
  requireConfigured(): void {
    if (this.links.length === 0) throw new Unavailable(NONE_CONFIGURED_MESSAGE);
  }

  /**
   * Which provider a vendor_key is for: `<provider>:<key>` names one (pollinations, bfl, openai);
   * a key without such a prefix is for the first configured provider in the order. 400 when the
   * provider named is not configured here. The key itself is never stored or logged.
   */
  vendorFor(vendorKey: string | undefined): { provider: GenerationProviderName; key: string } | undefined {
    if (vendorKey === undefined) return undefined;
    const prefixed = VENDOR_PREFIX.exec(vendorKey);
    const named = prefixed?.[1] as GenerationProviderName | undefined;
    const key = prefixed ? prefixed[2]! : vendorKey;
    if (named) {
      if (!this.links.some((l) => l.provider.name === named)) throw new InvalidInput(`vendor_key: provider ${named} is not configured on this server (configured: ${this.names().join(', ') || 'none'})`, 'vendor_key');
      return { provider: named, key };
    }
    this.requireConfigured();
    return { provider: this.links[0]!.provider.name, key };
  }

  async generate(request: ChainRequest): Promise<ChainResult> {
    this.requireConfigured();
    const vendor = this.vendorFor(request.vendorKey);
    const failures: ProviderError[] = [];
    let cooling = 0;
    for (const link of this.links) {
      const name = link.provider.name;
      const apiKey = vendor?.provider === name ? vendor.key : undefined;
      try {
        // The caller's own key neither trips nor resets the server's circuit (its failures may be its key's).
        const images = apiKey
          ? await this.whenClosed(link, () => this.attempt(link, request, apiKey))
          : await link.breaker.execute(() => this.attempt(link, request, undefined));
        this.onCall?.(name, 'ok');
        return { provider: name, images };
      } catch (error) {
        if (error instanceof BrokenCircuitError || error instanceof IsolatedCircuitError) {
          this.onCall?.(name, 'cooling');
          cooling++;
          this.logger.debug({ provider: name }, 'generation provider is cooling down; passed over');
          continue;
        }
        this.onCall?.(name, 'failed');
        if (!(error instanceof ProviderError)) throw error;
        failures.push(error);
        this.logger.warn({ provider: name, failure: error.failure, reason: error.message, upstreamStatus: error.upstreamStatus, detail: error.detail }, 'generation provider failed; trying the next one');
      }
    }
    if (failures.length === 0 && cooling > 0) {
      const seconds = Math.ceil(this.settings.breaker.cooldownMs / 1000);
      throw new AppError(`every configured generation provider failed repeatedly and is cooling down; try again in up to ${seconds} s`, 503, ErrorCode.Unavailable, undefined, { 'Retry-After': String(seconds) });
    }
    throw new AppError(`every generation provider failed: ${failures.map((f) => f.message).join('; ')}`, 502, ErrorCode.ProviderFailed);
  }

  private async whenClosed<T>(link: Link, run: () => Promise<T>): Promise<T> {
    const state = link.breaker.state;
    if (state === CircuitState.Open || state === CircuitState.Isolated) throw new BrokenCircuitError();
    return run();
  }

  /** One provider's try within its deadline: its images, checked and converted to PNG. */
  private async attempt(link: Link, request: ChainRequest, apiKey: string | undefined): Promise<GeneratedImage[]> {
    const name = link.provider.name;
    const deadline = AbortSignal.timeout(link.timeoutMs);
    const signal = request.signal ? AbortSignal.any([deadline, request.signal]) : deadline;
    // A provider that does not heed the signal somewhere is cut off all the same.
    const timedOut = new Promise<never>((_, reject) => {
      const stop = () => reject(new ProviderError(name, 'timeout', `${name} did not deliver within ${link.timeoutMs} ms`));
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
    timedOut.catch(() => {});
    const work = (async () => {
      const raw = await link.provider.generate({ prompt: request.prompt, orientation: request.orientation, count: request.count, signal, apiKey });
      const images: GeneratedImage[] = [];
      let bad: string | undefined;
      for (const bytes of raw.slice(0, request.count)) {
        try {
          images.push(await this.toPng(bytes));
        } catch (error) {
          bad ??= (error as Error).message;
        }
      }
      if (images.length === 0) throw new ProviderError(name, 'malformed', `${name} answered something that is not an image`, bad?.slice(0, 200));
      if (bad) this.logger.warn({ provider: name, detail: bad.slice(0, 200) }, 'generation provider answered some images that are not images; kept the others');
      return images;
    })();
    try {
      return await Promise.race([work, timedOut]);
    } finally {
      work.catch(() => {});
    }
  }

  /** The bytes as PNG, whatever the provider sent; refuses what is not an image or is larger than GENERATE_MAX_PIXELS. */
  private async toPng(bytes: Buffer): Promise<GeneratedImage> {
    const sharp = await loadSharp();
    const { data, info } = await sharp(bytes, { limitInputPixels: this.settings.maxPixels, failOn: 'error' }).rotate().png().toBuffer({ resolveWithObject: true });
    return { png: data, width: info.width, height: info.height };
  }
}

function stateOf(breaker: CircuitBreakerPolicy): BreakerState {
  switch (breaker.state) {
    case CircuitState.Closed:
      return 'closed';
    case CircuitState.HalfOpen:
      return 'half_open';
    default:
      return 'open';
  }
}
