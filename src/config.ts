// Reads and validates the whole environment in one place. Every variable is listed in the README.
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  capsPatchSchema,
  DEFAULT_REWARD_DAILY_CAPS,
  DEFAULT_REWARD_RATES,
  jsonOverDefaults,
  ratesPatchSchema,
  type RewardCaps,
  type RewardRates,
} from './modules/ledger/reward-rates.js';
import {
  coinsPerCreditSchema,
  DEFAULT_COINS_PER_CREDIT,
  DEFAULT_PARTNER_TIMEOUT_MS,
  DEFAULT_PREMIUM_STYLES,
  premiumStylesSchema,
  type EconomyConfig,
} from './modules/economy/economy.settings.js';
import { generationConfigFrom, generationEnvShape, type GenerationConfig } from './modules/generation/generation.settings.js';
import { mirrorsConfigFrom, mirrorsEnvShape, type MirrorsConfig } from './modules/mirrors/mirrors.settings.js';
import { telegramConfigFrom, telegramEnvShape, type TelegramConfig } from './modules/bot/bot.settings.js';
import { pipelineConfigFrom, pipelineEnvShape, type PipelineConfig } from './modules/pipeline/pipeline.settings.js';

const tierLimits = z.object({
  daily: z.number().int().positive(),
  perMinute: z.number().int().positive(),
});
export type TierLimits = z.infer<typeof tierLimits>;

/** Standard is the spec's tier; the others are our defaults (the spec leaves them open). */
export const DEFAULT_TIERS: Record<string, TierLimits> = {
  standard: { daily: 20, perMinute: 60 },
  pro: { daily: 5_000, perMinute: 300 },
  enterprise: { daily: 100_000, perMinute: 1_200 },
};

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const jsonTiers = z.string().transform((text, ctx) => {
  try {
    const parsed = z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), tierLimits).parse(JSON.parse(text));
    return { ...DEFAULT_TIERS, ...parsed };
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `TIERS must be JSON like {"standard":{"daily":20,"perMinute":60}}: ${(error as Error).message}` });
    return z.NEVER;
  }
});

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** "10s,1m,5m,30m,2h": delays between webhook attempts (a number alone is milliseconds). */
const durationList = z.string().transform((text, ctx) => {
  const items = text.split(',').map((item) => item.trim()).filter(Boolean);
  const delays = items.map((item) => {
    const match = /^(\d+)(ms|s|m|h)?$/.exec(item);
    return match ? Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms']! : NaN;
  });
  if (delays.some((d) => !Number.isSafeInteger(d))) {
    ctx.addIssue({ code: 'custom', message: 'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of delays like 10s,1m,5m,30m,2h (ms, s, m, h)' });
    return z.NEVER;
  }
  return delays;
});

/** A key that may be set empty (VAR=) to mean unset. */
const optionalSecret = z
  .string()
  .optional()
  .transform((v) => v?.trim() || undefined);

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
  TIERS: jsonTiers.optional(),
  REWARD_RATES: jsonOverDefaults<RewardRates>('REWARD_RATES', '{"tagging":0.5,"coin_multiplier":2}', ratesPatchSchema, DEFAULT_REWARD_RATES).optional(),
  REWARD_DAILY_CAPS: jsonOverDefaults<RewardCaps>('REWARD_DAILY_CAPS', '{"tagging":200,"wiki_vote":null}', capsPatchSchema, DEFAULT_REWARD_DAILY_CAPS).optional(),
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
  SUB_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://').optional(),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'REDIS_PREFIX: letters, digits and _ . : - only').default('image-service'),
  RUN_WORKERS: boolish.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  JOB_LEASE_MS: z.coerce.number().int().min(100).default(60_000),
  JOB_POLL_MS: z.coerce.number().int().min(10).default(1_000),
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
  SCRAPE_MAX_PAGE_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  SCRAPE_MAX_ASSET_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  SCRAPE_MAX_PAGES: z.coerce.number().int().positive().default(200),
  SCRAPE_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(4),
  SCRAPE_HOST_DELAY_MS: z.coerce.number().int().min(0).default(100),
  SCRAPE_CACHE_SECONDS: z.coerce.number().int().min(0).default(3600),
  SCRAPE_RESPECT_ROBOTS: boolish.default(true),
  SCRAPE_ISOLATION: z.enum(['process', 'inline'], { error: 'SCRAPE_ISOLATION must be process or inline' }).default('process'),
  SCRAPE_PROCESS_MAX_HEAP_MB: z.coerce.number().int().min(64).default(1024),
  SCRAPE_PROCESS_IDLE_MS: z.coerce.number().int().min(0).default(30_000),
  WEBHOOK_ALLOW_HTTP: boolish.default(false),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  WEBHOOK_RETRY_SCHEDULE: durationList.default([10_000, 60_000, 300_000, 1_800_000, 7_200_000]),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1_000),
  WEBHOOKS_PER_ACCOUNT: z.coerce.number().int().positive().default(25),
  SCHEDULER_POLL_MS: z.coerce.number().int().min(10).default(30_000),
  SCHEDULES_PER_ACCOUNT: z.coerce.number().int().positive().default(50),
  // Exports to WordPress and Shopify (README "Exports").
  EXPORT_ALLOW_HTTP: boolish.default(false),
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(3),
  EXPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000),
  EXPORT_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
  EXPORT_SECRET_KEY: z.string().min(32, 'EXPORT_SECRET_KEY must be at least 32 characters').optional(),
  SHOPIFY_API_VERSION: z.string().regex(/^(\d{4}-(01|04|07|10)|unstable)$/, 'SHOPIFY_API_VERSION must look like 2026-10 (a quarterly version) or unstable').default('2026-10'),
  SHOPIFY_API_BASE_URL: z.string().url().regex(/^https?:\/\//i, 'SHOPIFY_API_BASE_URL must be an http(s) URL').optional(),
  SHOPIFY_UPLOAD: z.enum(['auto', 'url', 'staged'], { error: 'SHOPIFY_UPLOAD must be auto, url or staged' }).default('auto'),
  SHOPIFY_FILE_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  SHOPIFY_FILE_POLL_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  VISION_PROVIDER_ORDER: z
    .string()
    .default('openai,google_vision,ocr_space')
    .transform((text, ctx) => {
      const names = text.split(',').map((n) => n.trim()).filter(Boolean);
      const known = ['openai', 'google_vision', 'ocr_space'];
      const bad = names.find((n) => !known.includes(n));
      if (bad || new Set(names).size !== names.length) {
        ctx.addIssue({ code: 'custom', message: `VISION_PROVIDER_ORDER: a comma-separated list of distinct ${known.join(', ')}${bad ? ` (not ${bad})` : ''}` });
        return z.NEVER;
      }
      return names as Array<'openai' | 'google_vision' | 'ocr_space'>;
    }),
  VISION_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  VISION_MAX_PIXELS: z.coerce.number().int().positive().default(40_000_000),
  VISION_OPENAI_API_KEY: optionalSecret,
  VISION_OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  VISION_OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  VISION_GOOGLE_API_KEY: optionalSecret,
  VISION_GOOGLE_BASE_URL: z.string().url().default('https://vision.googleapis.com/v1'),
  VISION_OCR_SPACE_API_KEY: optionalSecret,
  VISION_OCR_SPACE_BASE_URL: z.string().url().default('https://api.ocr.space'),
  VISION_OCR_SPACE_ENGINE: z.enum(['1', '2']).default('2').transform((v) => Number(v) as 1 | 2),
  VISION_LOCAL_ENABLED: boolish.default(true),
  VISION_LOCAL_THREADS: z.coerce.number().int().min(1).max(8).default(1),
  VISION_LOCAL_IDLE_MS: z.coerce.number().int().min(1_000).default(60_000),
  VISION_LOCAL_MAX_QUEUE: z.coerce.number().int().min(0).default(16),
  VISION_LOCAL_TIMEOUT_MS: z.coerce.number().int().min(1_000).default(60_000),
  VISION_OCR_MIN_CONFIDENCE: z.coerce.number().min(0).max(100).default(60),
  VISION_LABEL_MIN_SCORE: z.coerce.number().min(0).max(1).default(0.4),
  TRANSFORM_MAX_DIMENSION: z.coerce.number().int().min(16).max(16_384).default(4096),
  TRANSFORM_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
  TRANSFORM_MAX_FRAMES: z.coerce.number().int().min(1).max(10_000).default(200),
  WATERMARK_MAX_BYTES: z.coerce.number().int().positive().default(20 * 1024 * 1024),
  WATERMARK_MAX_PIXELS: z.coerce.number().int().positive().default(40_000_000),
  BRIDGE_COINS_PER_CREDIT: coinsPerCreditSchema.default(DEFAULT_COINS_PER_CREDIT),
  BRIDGE_PARTNER: z.enum(['local', 'http'], { error: 'BRIDGE_PARTNER must be local or http' }).default('local'),
  BRIDGE_PARTNER_URL: z.string().url('BRIDGE_PARTNER_URL must be an http(s) URL').regex(/^https?:\/\//i, 'BRIDGE_PARTNER_URL must be an http(s) URL').optional(),
  BRIDGE_PARTNER_SECRET: z.string().min(16, 'BRIDGE_PARTNER_SECRET must be at least 16 characters').optional(),
  BRIDGE_PARTNER_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(DEFAULT_PARTNER_TIMEOUT_MS),
  STYLES_PREMIUM: premiumStylesSchema.optional(),
  WIKI_CONFIRMATIONS: z.coerce.number().int().min(1).max(100).default(3),
  WIKI_REJECTIONS: z.coerce.number().int().min(1).max(100).default(3),
  WIKI_QUERY_CREDITS: z.coerce.number().min(0).max(1000).default(1),
  ...generationEnvShape,
  // The bulk mirror (README "Bulk mirror").
  ...mirrorsEnvShape,
  // The Telegram chat bot (README "Telegram bot"): on when TELEGRAM_BOT_TOKEN is set.
  ...telegramEnvShape,
  // Pipelines (README "Pipeline"): the deadline of one run.
  ...pipelineEnvShape,
  // The unified search's fourth tier: external stock libraries (README "Unified image search").
  SEARCH_STOCK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(4_000),
  SEARCH_OPENVERSE_ENABLED: boolish.default(false),
  SEARCH_OPENVERSE_BASE_URL: z.string().url().default('https://api.openverse.org/v1'),
  SEARCH_UNSPLASH_ACCESS_KEY: optionalSecret,
  SEARCH_UNSPLASH_BASE_URL: z.string().url().default('https://api.unsplash.com'),
  SEARCH_PEXELS_API_KEY: optionalSecret,
  SEARCH_PEXELS_BASE_URL: z.string().url().default('https://api.pexels.com/v1'),
  SEARCH_PIXABAY_API_KEY: optionalSecret,
  SEARCH_PIXABAY_BASE_URL: z.string().url().default('https://pixabay.com/api'),
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
  rewards: { rates: RewardRates; dailyCaps: RewardCaps };
  publicBaseUrl?: string;
  trustProxy: boolean;
  graphql: { maxDepth: number; maxAliases: number; maxCost: number; corsOrigins: '*' | string[] };
  subKeysPerAccount: number;
  redisUrl?: string;
  /** Namespace of this deployment's queues and channels in Redis. */
  redisPrefix: string;
  /** Whether this process runs job workers (API processes of a scaled-out setup may not). */
  runWorkers: boolean;
  jobs: { concurrency: number; leaseMs: number; pollMs: number };
  s3?: { bucket: string; endpoint?: string; region: string; accessKeyId?: string; secretAccessKey?: string; forcePathStyle: boolean; prefix?: string };
  /** allowPrivateAddresses: false (default), true, or a list of addresses (development and tests). */
  fetch: { allowPrivateAddresses: boolean | string[]; timeoutMs: number; maxRedirects: number; userAgent: string };
  scrape: {
    maxPageBytes: number;
    maxAssetBytes: number;
    maxPages: number;
    hostConcurrency: number;
    hostDelayMs: number;
    cacheSeconds: number;
    respectRobots: boolean;
    /** process: each crawl in a crawl process of its own (the default); inline: in the job's process. */
    isolation: 'process' | 'inline';
    /** V8 old-space limit of a crawl process, in MB. */
    processMaxHeapMb: number;
    /** How long an idle crawl process waits for the next crawl before it exits. */
    processIdleMs: number;
  };
  webhooks: {
    /** Plain-http targets (development only); https is required otherwise. */
    allowHttp: boolean;
    timeoutMs: number;
    /** Delays before the 2nd, 3rd ... attempt; attempts in all = retryDelaysMs.length + 1. */
    retryDelaysMs: number[];
    pollMs: number;
    perAccount: number;
  };
  schedules: { pollMs: number; perAccount: number };
  /** Exports to WordPress and Shopify: the destination's secret is sealed with secretKey while its job runs. */
  exports: {
    /** Plain-http WordPress sites (development only); https is required otherwise. */
    allowHttp: boolean;
    /** Items of one export sent at once. */
    concurrency: number;
    /** Deadline of one request to the destination (an upload included). */
    timeoutMs: number;
    /** Retries of a request the destination throttled (429, THROTTLED) or could not serve (5xx). */
    maxRetries: number;
    /** Key that seals credentials; generated into DATA_DIR/export-secret-key when unset. */
    secretKey?: string;
    shopify: {
      apiVersion: string;
      /** Replaces https://{shop} (tests against a local fake). */
      apiBaseUrl?: string;
      /** auto: a signed URL of ours when PUBLIC_BASE_URL is public, else a staged upload. */
      upload: 'auto' | 'url' | 'staged';
      pollMs: number;
      pollTimeoutMs: number;
    };
  };
  /** Transformation URLs (POST /api/media/{id}/optimize): longest output side, renders at once. */
  transform: { maxDimension: number; concurrency: number; maxFrames: number };
  /** Watermark inputs (image and overlay, each): largest download and decoded size. */
  watermark: { maxBytes: number; maxPixels: number };
  /** The coin economy: the bridge's rate and credit partner, premium style presets. */
  economy: EconomyConfig;
  /** The image wiki: votes that verify or reject a photo, and the price of a paid query in API credits. */
  wiki: { confirmations: number; rejections: number; queryCredits: number };
  /** The unified search's external stock libraries: each is on when its key is set (Openverse needs none: SEARCH_OPENVERSE_ENABLED). */
  search: {
    /** Deadline of the stock libraries together; a late one is left out. */
    stockTimeoutMs: number;
    openverse?: { baseUrl: string };
    unsplash?: { accessKey: string; baseUrl: string };
    pexels?: { apiKey: string; baseUrl: string };
    pixabay?: { apiKey: string; baseUrl: string };
  };
  /** Image generation (spec "Generation"): providers in cost order, breaker, limits, the price per image. */
  generation: GenerationConfig;
  /** The bulk mirror: URLs per request, fetches at once (overall and per host). */
  mirrors: MirrorsConfig;
  /** The Telegram chat bot: undefined (off) without TELEGRAM_BOT_TOKEN. */
  telegram?: TelegramConfig;
  /** Pipelines: the total deadline of one run. */
  pipeline: PipelineConfig;
  /** Image analysis (spec "Vision"): external providers are configured when their key is set. */
  vision: {
    /** Order auto mode tries the configured external providers in (local always comes last). */
    order: Array<'openai' | 'google_vision' | 'ocr_space'>;
    timeoutMs: number;
    maxPixels: number;
    openai?: { apiKey: string; baseUrl: string; model: string };
    googleVision?: { apiKey: string; baseUrl: string };
    ocrSpace?: { apiKey: string; baseUrl: string; engine: 1 | 2 };
    local: {
      enabled: boolean;
      threads: number;
      idleTimeoutMs: number;
      maxQueue: number;
      taskTimeoutMs: number;
      /** Tesseract word confidence (0 to 100) below which words are dropped. */
      ocrMinConfidence: number;
      /** Detector score (0 to 1) below which objects are dropped. */
      labelMinScore: number;
    };
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  if (e.BRIDGE_PARTNER === 'http' && (!e.BRIDGE_PARTNER_URL || !e.BRIDGE_PARTNER_SECRET)) {
    throw new Error('invalid configuration:\n  BRIDGE_PARTNER_URL, BRIDGE_PARTNER_SECRET: both are required when BRIDGE_PARTNER is http');
  }
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
    tiers: e.TIERS ?? DEFAULT_TIERS,
    rewards: { rates: e.REWARD_RATES ?? DEFAULT_REWARD_RATES, dailyCaps: e.REWARD_DAILY_CAPS ?? DEFAULT_REWARD_DAILY_CAPS },
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
    jobs: { concurrency: e.WORKER_CONCURRENCY, leaseMs: e.JOB_LEASE_MS, pollMs: e.JOB_POLL_MS },
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
    scrape: {
      maxPageBytes: e.SCRAPE_MAX_PAGE_BYTES,
      maxAssetBytes: e.SCRAPE_MAX_ASSET_BYTES,
      maxPages: e.SCRAPE_MAX_PAGES,
      hostConcurrency: e.SCRAPE_HOST_CONCURRENCY,
      hostDelayMs: e.SCRAPE_HOST_DELAY_MS,
      cacheSeconds: e.SCRAPE_CACHE_SECONDS,
      respectRobots: e.SCRAPE_RESPECT_ROBOTS,
      isolation: e.SCRAPE_ISOLATION,
      processMaxHeapMb: e.SCRAPE_PROCESS_MAX_HEAP_MB,
      processIdleMs: e.SCRAPE_PROCESS_IDLE_MS,
    },
    webhooks: {
      allowHttp: e.WEBHOOK_ALLOW_HTTP,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      retryDelaysMs: e.WEBHOOK_RETRY_SCHEDULE,
      pollMs: e.WEBHOOK_POLL_MS,
      perAccount: e.WEBHOOKS_PER_ACCOUNT,
    },
    schedules: { pollMs: e.SCHEDULER_POLL_MS, perAccount: e.SCHEDULES_PER_ACCOUNT },
    exports: {
      allowHttp: e.EXPORT_ALLOW_HTTP,
      concurrency: e.EXPORT_CONCURRENCY,
      timeoutMs: e.EXPORT_TIMEOUT_MS,
      maxRetries: e.EXPORT_MAX_RETRIES,
      secretKey: e.EXPORT_SECRET_KEY,
      shopify: {
        apiVersion: e.SHOPIFY_API_VERSION,
        apiBaseUrl: e.SHOPIFY_API_BASE_URL?.replace(/\/$/, ''),
        upload: e.SHOPIFY_UPLOAD,
        pollMs: e.SHOPIFY_FILE_POLL_MS,
        pollTimeoutMs: e.SHOPIFY_FILE_POLL_TIMEOUT_MS,
      },
    },
    transform: { maxDimension: e.TRANSFORM_MAX_DIMENSION, concurrency: e.TRANSFORM_CONCURRENCY, maxFrames: e.TRANSFORM_MAX_FRAMES },
    watermark: { maxBytes: e.WATERMARK_MAX_BYTES, maxPixels: e.WATERMARK_MAX_PIXELS },
    economy: {
      coinsPerCredit: e.BRIDGE_COINS_PER_CREDIT,
      partner:
        e.BRIDGE_PARTNER === 'http'
          ? { kind: 'http', url: e.BRIDGE_PARTNER_URL!, secret: e.BRIDGE_PARTNER_SECRET!, timeoutMs: e.BRIDGE_PARTNER_TIMEOUT_MS }
          : { kind: 'local' },
      premiumStyles: e.STYLES_PREMIUM ?? DEFAULT_PREMIUM_STYLES,
    },
    wiki: { confirmations: e.WIKI_CONFIRMATIONS, rejections: e.WIKI_REJECTIONS, queryCredits: e.WIKI_QUERY_CREDITS },
    generation: generationConfigFrom(e),
    mirrors: mirrorsConfigFrom(e),
    telegram: telegramConfigFrom(e),
    pipeline: pipelineConfigFrom(e),
    search: {
      stockTimeoutMs: e.SEARCH_STOCK_TIMEOUT_MS,
      openverse: e.SEARCH_OPENVERSE_ENABLED ? { baseUrl: e.SEARCH_OPENVERSE_BASE_URL } : undefined,
      unsplash: e.SEARCH_UNSPLASH_ACCESS_KEY ? { accessKey: e.SEARCH_UNSPLASH_ACCESS_KEY, baseUrl: e.SEARCH_UNSPLASH_BASE_URL } : undefined,
      pexels: e.SEARCH_PEXELS_API_KEY ? { apiKey: e.SEARCH_PEXELS_API_KEY, baseUrl: e.SEARCH_PEXELS_BASE_URL } : undefined,
      pixabay: e.SEARCH_PIXABAY_API_KEY ? { apiKey: e.SEARCH_PIXABAY_API_KEY, baseUrl: e.SEARCH_PIXABAY_BASE_URL } : undefined,
    },
    vision: {
      order: e.VISION_PROVIDER_ORDER,
      timeoutMs: e.VISION_TIMEOUT_MS,
      maxPixels: e.VISION_MAX_PIXELS,
      openai: e.VISION_OPENAI_API_KEY ? { apiKey: e.VISION_OPENAI_API_KEY, baseUrl: e.VISION_OPENAI_BASE_URL, model: e.VISION_OPENAI_MODEL } : undefined,
      googleVision: e.VISION_GOOGLE_API_KEY ? { apiKey: e.VISION_GOOGLE_API_KEY, baseUrl: e.VISION_GOOGLE_BASE_URL } : undefined,
      ocrSpace: e.VISION_OCR_SPACE_API_KEY ? { apiKey: e.VISION_OCR_SPACE_API_KEY, baseUrl: e.VISION_OCR_SPACE_BASE_URL, engine: e.VISION_OCR_SPACE_ENGINE } : undefined,
      local: {
        enabled: e.VISION_LOCAL_ENABLED,
        threads: e.VISION_LOCAL_THREADS,
        idleTimeoutMs: e.VISION_LOCAL_IDLE_MS,
        maxQueue: e.VISION_LOCAL_MAX_QUEUE,
        taskTimeoutMs: e.VISION_LOCAL_TIMEOUT_MS,
        ocrMinConfidence: e.VISION_OCR_MIN_CONFIDENCE,
        labelMinScore: e.VISION_LABEL_MIN_SCORE,
      },
    },
    ...overrides,
  };
}
