// Reads and validates the whole environment in one place. Every variable is listed in the README.
// The service-wide variables (server, database, storage, outgoing fetches, GraphQL limits) are here;
// each module owns its own in <module>.settings.ts (schema, defaults, messages), composed below in
// the order the variables have always been checked and listed. Modules never import this file: the
// composition root (src/services.ts, src/app.ts) hands each one its settings.
import { resolve } from 'node:path';
import { z } from 'zod';
import { boolish } from './platform/env.js';
import { quotaEnvShape, tiersFrom, type TierLimits } from './modules/quota/quota.settings.js';
import { ledgerEnvShape, rewardsConfigFrom, type RewardsConfig } from './modules/ledger/ledger.settings.js';
import { apiKeysEnvShape } from './modules/api-keys/api-keys.settings.js';
import { jobsConfigFrom, jobsEnvShape, type JobsConfig } from './modules/jobs/jobs.settings.js';
import { scrapeConfigFrom, scrapeEnvShape, type ScrapeConfig } from './modules/scrape/scrape.settings.js';
import { automationConfigFrom, automationEnvShape, type ExportsConfig, type SchedulesConfig, type WebhooksConfig } from './modules/automation/automation.settings.js';
import { visionConfigFrom, visionEnvShape, type VisionConfig } from './modules/vision/vision.settings.js';
import { imagingConfigFrom, imagingEnvShape, type TransformConfig, type WatermarkConfig } from './modules/imaging/imaging.settings.js';
import { economyConfigFrom, economyEnvShape, type EconomyConfig } from './modules/economy/economy.settings.js';
import { wikiConfigFrom, wikiEnvShape, type WikiSettings } from './modules/wiki/wiki.settings.js';
import { generationConfigFrom, generationEnvShape, type GenerationConfig } from './modules/generation/generation.settings.js';
import { mirrorsConfigFrom, mirrorsEnvShape, type MirrorsConfig } from './modules/mirrors/mirrors.settings.js';
import { telegramConfigFrom, telegramEnvShape, type TelegramConfig } from './modules/bot/bot.settings.js';
import { pipelineConfigFrom, pipelineEnvShape, type PipelineConfig } from './modules/pipeline/pipeline.settings.js';
import { searchConfigFrom, searchEnvShape, type SearchConfig } from './modules/search/search.settings.js';

export { DEFAULT_TIERS, type TierLimits } from './modules/quota/quota.settings.js';

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  ANSWER_CACHE_MB: z.coerce.number().min(0).default(32),
  UPLOAD_MAX_PIXELS: z.coerce.number().int().positive().default(80_000_000),
  URL_SIGNING_KEY: z.string().min(32, 'URL_SIGNING_KEY must be at least 32 characters').optional(),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'BODY_LIMIT must look like 1mb or 512kb').default('1mb'),
  ...quotaEnvShape,
  ...ledgerEnvShape,
  PUBLIC_BASE_URL: z.string().url().optional(),
  TRUST_PROXY: boolish.default(false),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().positive().default(15),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(5000),
  // Browser origins allowed to call /graphql: `*` (any, without credentials) or a comma list of origins.
  CORS_ORIGINS: z
    .string()
    .default('*')
    .refine((v) => v.trim() === '*' || v.split(',').every((o) => /^https?:\/\/[^/\s,]+$/.test(o.trim())), 'CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.org'),
  ...apiKeysEnvShape,
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://').optional(),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'REDIS_PREFIX: letters, digits and _ . : - only').default('image-service'),
  ...jobsEnvShape,
  S3_BUCKET: z.string().optional(),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: boolish.default(false),
  S3_PREFIX: z.string().optional(),
  FETCH_ALLOW_PRIVATE: z
    .string()
    .default('false')
    .transform((v) => (['true', '1', 'yes'].includes(v) ? true : ['false', '0', 'no', ''].includes(v) ? false : v.split(',').map((a) => a.trim()).filter(Boolean))),
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5),
  SCRAPE_USER_AGENT: z.string().min(1).default('ImageServiceBot/0.1 (+https://github.com/; respects robots.txt)'),
  ...scrapeEnvShape,
  ...automationEnvShape,
  ...visionEnvShape,
  ...imagingEnvShape,
  ...economyEnvShape,
  ...wikiEnvShape,
  ...generationEnvShape,
  // The bulk mirror (README "Bulk mirror").
  ...mirrorsEnvShape,
  // The Telegram chat bot (README "Telegram bot"): on when TELEGRAM_BOT_TOKEN is set.
  ...telegramEnvShape,
  // Pipelines (README "Pipeline"): the deadline of one run.
  ...pipelineEnvShape,
  // The unified search's fourth tier: external stock libraries (README "Unified image search").
  ...searchEnvShape,
});

/** Every environment variable the service reads (all listed in the README). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL when set; otherwise the embedded PGlite database under dataDir/db (or in memory). */
  databaseUrl?: string;
  /** Tests run the embedded database in memory. */
  inMemoryDatabase: boolean;
  adminToken?: string;
  logLevel: string;
  bodyLimit: string;
  /** BODY_LIMIT in bytes (also the largest WebSocket message). */
  bodyLimitBytes: number;
  /** Largest uploaded file (multipart); larger ones get 413. */
  uploadMaxBytes: number;
  /** Memory for answers of the REST shim's list routes kept to serve again (0: none kept). */
  answerCacheBytes: number;
  /** Largest image (width x height) decoded; larger ones are refused before decoding. */
  uploadMaxPixels: number;
  /** Key of signed file URLs; generated into DATA_DIR/url-signing-key when unset. */
  urlSigningKey?: string;
  tiers: Record<string, TierLimits>;
  /** Reward rates in coins, factors (coin_multiplier ...) and per-account daily caps, before the operator's changes (stored in the database). */
  rewards: RewardsConfig;
  publicBaseUrl?: string;
  trustProxy: boolean;
  graphql: { maxDepth: number; maxAliases: number; maxCost: number; corsOrigins: '*' | string[] };
  subKeysPerAccount: number;
  redisUrl?: string;
  /** Namespace of this deployment's queues and channels in Redis. */
  redisPrefix: string;
  /** Whether this process runs job workers (API processes of a scaled-out setup may not). */
  runWorkers: boolean;
  jobs: JobsConfig;
  s3?: { bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean; prefix?: string };
  /** allowPrivateAddresses: false (default), true, or a list of addresses (development and tests). */
  fetch: { allowPrivateAddresses: boolean | string[]; timeoutMs: number; maxRedirects: number; userAgent: string };
  scrape: ScrapeConfig;
  webhooks: WebhooksConfig;
  schedules: SchedulesConfig;
  /** Exports to WordPress and Shopify: the destination's secret is sealed with secretKey while its job runs. */
  exports: ExportsConfig;
  /** Transformation URLs (POST /api/media/{id}/optimize): longest output side, renders at once. */
  transform: TransformConfig;
  /** Watermark inputs (image and overlay, each): largest download and decoded size. */
  watermark: WatermarkConfig;
  /** The coin economy: the bridge's rate and credit partner, premium style presets. */
  economy: EconomyConfig;
  /** The image wiki: votes that verify or reject a photo, and the price of a paid query in API credits. */
  wiki: WikiSettings;
  /** The unified search's external stock libraries: each is on when its key is set (Openverse needs none: SEARCH_OPENVERSE_ENABLED). */
  search: SearchConfig;
  /** Image generation (spec "Generation"): providers in cost order, breaker, limits, the price per image. */
  generation: GenerationConfig;
  /** The bulk mirror: URLs per request, fetches at once (overall and per host). */
  mirrors: MirrorsConfig;
  /** The Telegram chat bot: undefined (off) without TELEGRAM_BOT_TOKEN. */
  telegram?: TelegramConfig;
  /** Pipelines: the total deadline of one run. */
  pipeline: PipelineConfig;
  /** Image analysis (spec "Vision"): external providers are configured when their key is set. */
  vision: VisionConfig;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    env: e.NODE_ENV,
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    inMemoryDatabase: false,
    adminToken: e.ADMIN_TOKEN,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    bodyLimitBytes: Number(/^\d+/.exec(e.BODY_LIMIT)![0]) * ({ b: 1, kb: 1024, mb: 1024 * 1024 } as Record<string, number>)[/[a-z]+$/i.exec(e.BODY_LIMIT)![0].toLowerCase()]!,
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    answerCacheBytes: Math.round(e.ANSWER_CACHE_MB * 1024 * 1024),
    uploadMaxPixels: e.UPLOAD_MAX_PIXELS,
    urlSigningKey: e.URL_SIGNING_KEY,
    tiers: tiersFrom(e),
    rewards: rewardsConfigFrom(e),
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    trustProxy: e.TRUST_PROXY,
    graphql: {
      maxDepth: e.GRAPHQL_MAX_DEPTH,
      maxAliases: e.GRAPHQL_MAX_ALIASES,
      maxCost: e.GRAPHQL_MAX_COST,
      corsOrigins: e.CORS_ORIGINS.trim() === '*' ? '*' : e.CORS_ORIGINS.split(',').map((o) => o.trim()),
    },
    subKeysPerAccount: e.SUB_KEYS_PER_ACCOUNT,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    runWorkers: e.RUN_WORKERS,
    jobs: jobsConfigFrom(e),
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          endpoint: e.S3_ENDPOINT,
          region: e.S3_REGION,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          forcePathStyle: e.S3_FORCE_PATH_STYLE,
          prefix: e.S3_PREFIX,
        }
      : undefined,
    fetch: { allowPrivateAddresses: e.FETCH_ALLOW_PRIVATE, timeoutMs: e.FETCH_TIMEOUT_MS, maxRedirects: e.FETCH_MAX_REDIRECTS, userAgent: e.SCRAPE_USER_AGENT },
    scrape: scrapeConfigFrom(e),
    ...automationConfigFrom(e),
    ...imagingConfigFrom(e),
    economy: economyConfigFrom(e),
    wiki: wikiConfigFrom(e),
    generation: generationConfigFrom(e),
    mirrors: mirrorsConfigFrom(e),
    telegram: telegramConfigFrom(e),
    pipeline: pipelineConfigFrom(e),
    search: searchConfigFrom(e),
    vision: visionConfigFrom(e),
    ...overrides,
  };
}
