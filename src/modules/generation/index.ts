// Public surface of the generation module (spec "Generation"): the service, its queued job, and the
// factory the composition root builds them with. Other modules and src/services.ts use only this.
import type { Database } from '../../platform/database/database.js';
import type { SafeFetcher } from '../../platform/http/safe-fetch.js';
import type { Logger } from '../../platform/logger.js';
import type { JobQueue } from '../../platform/queue/job-queue.js';
import type { BlobStore } from '../../platform/storage/blob-store.js';
import type { StylesService } from '../economy/index.js';
import type { JobHandler, JobsService } from '../jobs/index.js';
import type { CreditsService, LedgerService } from '../ledger/index.js';
import type { MediaService } from '../media/index.js';
import { GenerationBilling } from './generation.billing.js';
import { createGenerationHandler } from './generation.job.js';
import { GenerationService } from './generation.service.js';
import type { GenerationConfig } from './generation.settings.js';
import { ProviderChain, type ChainEntry } from './provider-chain.js';
import { BflProvider } from './providers/bfl.provider.js';
import { OpenAiImagesProvider } from './providers/openai.provider.js';
import { PollinationsProvider } from './providers/pollinations.provider.js';
import type { GenerationProvider, ResultDownloader } from './providers/provider.js';

export { GenerationService, GENERATION_JOB_KIND, type GenerateResult, type BatchResult, type BatchItem, type ImageView } from './generation.service.js';
export { ProviderChain, NONE_CONFIGURED_MESSAGE, type BreakerState, type ChainResult } from './provider-chain.js';
export { GENERATION_PROVIDERS, DEFAULT_PROVIDER_ORDER, type GenerationConfig, type GenerationProviderName } from './generation.settings.js';
// The request of POST /api/generate, which the pipeline's generate step validates with too.
export { generateSchema } from './generation.input.js';
export { BflProvider, PollinationsProvider, OpenAiImagesProvider, type GenerationProvider, type ResultDownloader };

declare module '../../platform/service-registry.js' {
  interface Services {
    /** Text-to-image generation: providers in cost order with fallback, the queued job, the batch. */
    generation: GenerationService;
  }
}

export interface Generation {
  service: GenerationService;
  /** The queued job's handler (register it under GENERATION_JOB_KIND). */
  handler: JobHandler;
}

export interface GenerationFactoryDependencies {
  config: GenerationConfig;
  db: Database;
  blobs: BlobStore;
  fetcher: SafeFetcher;
  credits: CreditsService;
  ledger: LedgerService;
  styles: StylesService;
  jobs: JobsService;
  queue: JobQueue;
  media: MediaService;
  logger: Logger;
}

/** Result files that providers answer with a URL of (bfl's sample, an OpenAI url) come through the SSRF-safe fetcher. */
export function downloaderOf(fetcher: Pick<SafeFetcher, 'fetch'>): ResultDownloader {
  return async (url, { signal, maxBytes }) => {
    const answer = await fetcher.fetch(url, { signal, maxBytes, headers: { Accept: 'image/*' } });
    if (answer.status < 200 || answer.status >= 300) throw new Error(`HTTP ${answer.status}`);
    return answer.body;
  };
}

/** The configured providers in GENERATE_PROVIDER_ORDER, each with its deadline. */
export function chainEntries(config: GenerationConfig, download: ResultDownloader): ChainEntry[] {
  const maxImageBytes = config.maxImageBytes;
  const build: Record<GenerationConfig['order'][number], () => ChainEntry | undefined> = {
    pollinations: () => config.pollinations && { provider: new PollinationsProvider({ ...config.pollinations, maxImageBytes }), timeoutMs: config.pollinations.timeoutMs },
    bfl: () => config.bfl && { provider: new BflProvider({ ...config.bfl, maxImageBytes }, download), timeoutMs: config.bfl.timeoutMs },
    openai: () => config.openai && { provider: new OpenAiImagesProvider({ ...config.openai, maxImageBytes }, download), timeoutMs: config.openai.timeoutMs },
  };
  return config.order.map((name) => build[name]()).filter((entry): entry is ChainEntry => entry !== undefined);
}

export function createGeneration(deps: GenerationFactoryDependencies): Generation {
  const { config, logger } = deps;
  const entries = chainEntries(config, downloaderOf(deps.fetcher));
  const chain = new ProviderChain(entries, { breaker: config.breaker, maxPixels: config.maxPixels }, logger);
  // Long enough for every provider's deadline one after the other, and the storing after.
  const holdMs = entries.reduce((sum, e) => sum + e.timeoutMs, 0) + 5 * 60_000;
  const billing = config.creditsPerImage > 0 ? new GenerationBilling(deps.credits, deps.ledger, config.creditsPerImage, holdMs) : null;
  const service = new GenerationService({ chain, styles: deps.styles, billing, jobs: deps.jobs, queue: deps.queue, logger, batchConcurrency: config.batchConcurrency });
  const handler = createGenerationHandler({ db: deps.db, blobs: deps.blobs, chain, billing, media: deps.media, logger });
  return { service, handler };
}
