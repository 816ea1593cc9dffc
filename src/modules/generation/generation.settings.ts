// What configuration says about image generation (src/config.ts reads it): the providers, their
// order, timeouts, the circuit breaker, limits and the price. A leaf module (zod and the platform's
// input helpers only), so the configuration reads it without loading the generation services.
import { z } from 'zod';
import { boolish, optionalSecret } from '../../platform/env.js';
import { hasAtMost4Decimals } from '../../platform/validation.js';

export const GENERATION_PROVIDERS = ['pollinations', 'bfl', 'openai'] as const;
export type GenerationProviderName = (typeof GENERATION_PROVIDERS)[number];

/** The cost order of the spec: the free one, then about 0.04 per image, then the third. */
export const DEFAULT_PROVIDER_ORDER: GenerationProviderName[] = ['pollinations', 'bfl', 'openai'];

export interface GenerationConfig {
  /** Order the configured providers are tried in. */
  order: GenerationProviderName[];
  /** Counts as configured only when enabled (it needs no key, and the service never calls out unasked). */
  pollinations?: { baseUrl: string; token?: string; model: string; timeoutMs: number };
  bfl?: { apiKey: string; baseUrl: string; model: string; timeoutMs: number; pollMs: number };
  /** Configured by a key, or by a base URL alone (a compatible local server that needs none). */
  openai?: { apiKey?: string; baseUrl: string; model: string; timeoutMs: number };
  /** Consecutive failures that open a provider's circuit, and how long it stays open. */
  breaker: { failures: number; cooldownMs: number };
  /** API credits per delivered image (0: generation is free). */
  creditsPerImage: number;
  /** Largest image a provider may hand back, in bytes and in pixels (width x height). */
  maxImageBytes: number;
  maxPixels: number;
  /** Descriptions of one POST /api/replace/batch generated at once. */
  batchConcurrency: number;
}

const timeout = (fallback: number) => z.coerce.number().int().min(100).max(600_000).default(fallback);
const httpUrl = (name: string) => z.string().url(`${name} must be an http(s) URL`).regex(/^https?:\/\//i, `${name} must be an http(s) URL`);

const providerOrder = z.string().transform((text, ctx) => {
  const names = text.split(',').map((n) => n.trim()).filter(Boolean);
  const bad = names.find((n) => !(GENERATION_PROVIDERS as readonly string[]).includes(n));
  if (bad || names.length === 0 || new Set(names).size !== names.length) {
    ctx.addIssue({ code: 'custom', message: `GENERATE_PROVIDER_ORDER: a comma-separated list of distinct ${GENERATION_PROVIDERS.join(', ')}${bad ? ` (not ${bad})` : ''}` });
    return z.NEVER;
  }
  return names as GenerationProviderName[];
});

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** The GENERATE_* variables, spread into the configuration's schema. */
export const generationEnvShape = {
  GENERATE_PROVIDER_ORDER: providerOrder.default(DEFAULT_PROVIDER_ORDER).describe('order in which the configured generation providers are tried (cost order: free, about 0.04 per image, the third) ([Generation](rest-api.md#generation))'),
  GENERATE_POLLINATIONS_ENABLED: boolish.default(false).describe('turns the free provider on (Pollinations needs no key, and the service never calls the internet unasked)'),
  GENERATE_POLLINATIONS_BASE_URL: httpUrl('GENERATE_POLLINATIONS_BASE_URL').default('https://image.pollinations.ai').describe("base URL of Pollinations' image API (`GET /prompt/{prompt}`)"),
  GENERATE_POLLINATIONS_TOKEN: optionalSecret.describe('optional Pollinations token (higher rate limits), sent as `Authorization: Bearer`'),
  GENERATE_POLLINATIONS_MODEL: z.string().min(1).max(100).default('flux').describe('Pollinations model'),
  GENERATE_POLLINATIONS_TIMEOUT_MS: timeout(60_000).describe('deadline of one Pollinations attempt (all its images), then the next provider'),
  GENERATE_BFL_API_KEY: optionalSecret.describe('enables Black Forest Labs FLUX (`x-key`)'),
  GENERATE_BFL_BASE_URL: httpUrl('GENERATE_BFL_BASE_URL').default('https://api.bfl.ai').describe('base URL of the BFL API (regional: `https://api.eu.bfl.ai`, `https://api.us.bfl.ai`)'),
  GENERATE_BFL_MODEL: z.string().regex(/^[a-z0-9][a-z0-9.-]{0,99}$/, 'GENERATE_BFL_MODEL: an endpoint name such as flux-pro-1.1').default('flux-pro-1.1').describe('BFL endpoint (`POST /v1/{model}`); FLUX1.1 [pro] costs about 0.04 per image'),
  GENERATE_BFL_TIMEOUT_MS: timeout(120_000).describe('deadline of one BFL attempt: submissions, polls and downloads'),
  GENERATE_BFL_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000).describe('wait between two polls of a BFL task'),
  GENERATE_OPENAI_API_KEY: optionalSecret.describe('enables the OpenAI-compatible images API (bearer key)'),
  GENERATE_OPENAI_BASE_URL: httpUrl('GENERATE_OPENAI_BASE_URL').optional().meta({ description: 'base URL of that API; set alone (no key) it enables a compatible local server that needs none', shownDefault: `\`${DEFAULT_OPENAI_BASE_URL}\`` }),
  GENERATE_OPENAI_MODEL: z.string().min(1).max(100).default('gpt-image-1').describe("image model (`gpt-image-*`, `dall-e-3`, `dall-e-2`, or a local server's model)"),
  GENERATE_OPENAI_TIMEOUT_MS: timeout(120_000).describe('deadline of one attempt with that API'),
  GENERATE_BREAKER_FAILURES: z.coerce.number().int().min(1).max(1000).default(3).describe("consecutive failures that open a provider's circuit (it is then passed over)"),
  GENERATE_BREAKER_COOLDOWN_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000).describe('how long an open circuit stays open; then one trial call closes it again or keeps it open'),
  GENERATE_CREDITS_PER_IMAGE: z.coerce
    .number()
    .min(0)
    .max(1000)
    .refine(hasAtMost4Decimals, 'GENERATE_CREDITS_PER_IMAGE may have at most 4 decimals')
    .default(1)
    .describe('API credits per delivered image (0 to 1000, at most 4 decimals; 0 makes generation free)'),
  GENERATE_MAX_IMAGE_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024).describe('largest image a provider may hand back (its download is cut off beyond)'),
  GENERATE_MAX_PIXELS: z.coerce.number().int().positive().default(25_000_000).describe("largest image (width × height) a provider may hand back; larger ones count as that provider's failure"),
  GENERATE_BATCH_CONCURRENCY: z.coerce.number().int().min(1).max(10).default(3).describe('descriptions of one `POST /api/replace/batch` generated at once (1 to 10)'),
};

type GenerationEnv = z.output<z.ZodObject<typeof generationEnvShape>>;

export function generationConfigFrom(e: GenerationEnv): GenerationConfig {
  return {
    order: e.GENERATE_PROVIDER_ORDER,
    pollinations: e.GENERATE_POLLINATIONS_ENABLED
      ? { baseUrl: e.GENERATE_POLLINATIONS_BASE_URL, token: e.GENERATE_POLLINATIONS_TOKEN, model: e.GENERATE_POLLINATIONS_MODEL, timeoutMs: e.GENERATE_POLLINATIONS_TIMEOUT_MS }
      : undefined,
    bfl: e.GENERATE_BFL_API_KEY
      ? { apiKey: e.GENERATE_BFL_API_KEY, baseUrl: e.GENERATE_BFL_BASE_URL, model: e.GENERATE_BFL_MODEL, timeoutMs: e.GENERATE_BFL_TIMEOUT_MS, pollMs: e.GENERATE_BFL_POLL_MS }
      : undefined,
    openai:
      e.GENERATE_OPENAI_API_KEY || e.GENERATE_OPENAI_BASE_URL
        ? { apiKey: e.GENERATE_OPENAI_API_KEY, baseUrl: e.GENERATE_OPENAI_BASE_URL ?? DEFAULT_OPENAI_BASE_URL, model: e.GENERATE_OPENAI_MODEL, timeoutMs: e.GENERATE_OPENAI_TIMEOUT_MS }
        : undefined,
    breaker: { failures: e.GENERATE_BREAKER_FAILURES, cooldownMs: e.GENERATE_BREAKER_COOLDOWN_MS },
    creditsPerImage: e.GENERATE_CREDITS_PER_IMAGE,
    maxImageBytes: e.GENERATE_MAX_IMAGE_BYTES,
    maxPixels: e.GENERATE_MAX_PIXELS,
    batchConcurrency: e.GENERATE_BATCH_CONCURRENCY,
  };
}
