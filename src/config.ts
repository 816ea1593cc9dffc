// Reads and validates the whole environment in one place. Every variable states its meaning here
// (.describe(), or .meta() when its default is not a value): docs/configuration.md is generated from it.
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
import { accountsEnvShape, signupConfigFrom, type SignupConfig } from './modules/accounts/accounts.settings.js';
import { jobsConfigFrom, jobsEnvShape, type JobsConfig } from './modules/jobs/jobs.settings.js';
import { scrapeConfigFrom, scrapeEnvShape, type ScrapeConfig } from './modules/scrape/scrape.settings.js';
import { renderConfigFrom, renderEnvShape, type RenderConfig } from './modules/render/render.settings.js';
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

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development').describe('`production` turns GraphiQL, GraphQL introspection and every "Did you mean ...?" suggestion (fields, enum values) off'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000).describe('HTTP port (REST, GraphQL and WebSocket subscriptions share it)'),
  HOST: z.string().default('0.0.0.0').describe('interface to listen on'),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1).describe('API processes `npm start` runs on this machine, sharing `PORT` (node:cluster): more than 1 lets the service use more than one core; needs `DATABASE_URL` and `REDIS_URL`, and `TELEGRAM_MODE` other than `polling` ([Scale-out](scale-out.md#several-api-processes-on-one-machine))'),
  DATA_DIR: z.string().default('./data').describe("embedded database (`db/`), stored files (`files/`), `admin-token`, `initial-account.json`; folders are created 0700 and stored files written 0600 (the service's user only)"),
  DATABASE_URL: z.string().url().optional().describe('PostgreSQL URL; when set it replaces the embedded database. `?schema=NAME` selects a schema, created at start when missing (or the start says how to create it)'),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional().meta({ description: 'operator token for the admin API and CLI (16+ characters). Unset: generated at first start into `DATA_DIR/admin-token` (mode 0600)', shownDefault: 'generated' }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`'),
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024).describe('largest uploaded file (413 beyond)'),
  ANSWER_CACHE_MB: z.coerce.number().min(0).default(32).describe('memory for kept answers of the list routes ([Kept answers](rest-api.md#kept-answers)); `0` keeps none'),
  UPLOAD_MAX_PIXELS: z.coerce.number().int().positive().default(80_000_000).describe('largest image (width × height) decoded; larger ones are refused from their header, before decoding'),
  URL_SIGNING_KEY: z.string().min(32, 'URL_SIGNING_KEY must be at least 32 characters').optional().meta({ description: 'key of signed file URLs (32+ characters); unset: generated into `DATA_DIR/url-signing-key`. Several processes must share one', shownDefault: 'generated' }),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'BODY_LIMIT must look like 1mb or 512kb').default('1mb').describe('largest JSON request body (`512kb`, `2mb` ...); larger bodies get 413. Also the largest WebSocket message on `/graphql`: a larger one closes the socket (1009)'),
  ...quotaEnvShape,
  ...ledgerEnvShape,
  PUBLIC_BASE_URL: z.string().url().optional().meta({ description: 'absolute base for URLs the service hands out', shownDefault: 'request host' }),
  TRUST_PROXY: boolish.default(false).describe('trust `X-Forwarded-*` from a reverse proxy'),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(10).describe('deepest GraphQL selection accepted'),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().positive().default(15).describe('most aliases in one GraphQL operation'),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(5000).describe('highest estimated GraphQL query cost'),
  // Browser origins allowed to call /graphql: `*` (any, without credentials) or a comma list of origins.
  CORS_ORIGINS: z
    .string()
    .default('*')
    .refine((v) => v.trim() === '*' || v.split(',').every((o) => /^https?:\/\/[^/\s,]+$/.test(o.trim())), 'CORS_ORIGINS must be * or a comma-separated list of origins such as https://app.example.org')
    .describe('browser origins that may call `/graphql` and the REST routes: `*` (any) or a comma list (`https://app.example.org,https://admin.example.org`). Never with credentials: keys travel in a header, not in cookies'),
  ...apiKeysEnvShape,
  ...accountsEnvShape,
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'REDIS_URL must start with redis:// or rediss://').optional().describe('Redis (`redis://` or `rediss://`): jobs go through BullMQ and subscriptions through Redis, so several processes share them'),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'REDIS_PREFIX: letters, digits and _ . : - only').default('image-service').describe("namespace of this deployment's queue and channels in Redis"),
  ...jobsEnvShape,
  S3_BUCKET: z.string().optional().describe('store files in this S3-compatible bucket instead of `DATA_DIR/files`'),
  S3_ENDPOINT: z.string().url().optional().describe("the bucket's endpoint, for S3-compatible stores (MinIO, R2 ...)"),
  S3_REGION: z.string().default('us-east-1').describe("the bucket's region"),
  S3_ACCESS_KEY_ID: z.string().optional().describe("the bucket's access key id (unset: the AWS default credential chain)"),
  S3_SECRET_ACCESS_KEY: z.string().optional().describe('the secret of that access key (unset: the AWS default credential chain)'),
  S3_FORCE_PATH_STYLE: boolish.default(false).describe('path-style addressing (the bucket in the path, not the host name)'),
  S3_PREFIX: z.string().optional().describe('a prefix of every key the service writes in the bucket'),
  FETCH_ALLOW_PRIVATE: z
    .string()
    .default('false')
    .transform((v) => (['true', '1', 'yes'].includes(v) ? true : ['false', '0', 'no', ''].includes(v) ? false : v.split(',').map((a) => a.trim()).filter(Boolean)))
    .describe('let the fetcher reach private, loopback and link-local addresses: `true`, or a comma list of addresses (development and tests only; cloud metadata addresses stay refused in every spelling). A URL whose host is such an address (any IP spelling) or a `localhost` name is refused with 400 when the request is made (scrape, schedules, webhooks, webhook test), before any job or row exists; other names are judged by their DNS answers when connecting (a webhook test then answers 400 too)'),
  FETCH_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000).describe('deadline of one fetch of a caller-supplied URL, redirects and body included'),
  FETCH_MAX_REDIRECTS: z.coerce.number().int().min(0).max(20).default(5).describe('redirect hops followed, each checked again'),
  SCRAPE_USER_AGENT: z.string().min(1).default('ImageServiceBot/0.1 (+https://github.com/; respects robots.txt)').describe('User-Agent of every outgoing request, matched against robots.txt'),
  ...scrapeEnvShape,
  // Pages rendered in headless Chromium (docs/rest-api.md "Scrape").
  ...renderEnvShape,
  ...automationEnvShape,
  ...visionEnvShape,
  ...imagingEnvShape,
  ...economyEnvShape,
  ...wikiEnvShape,
  ...generationEnvShape,
  // The bulk mirror (docs/rest-api.md "Bulk mirror").
  ...mirrorsEnvShape,
  // The Telegram chat bot (docs/telegram-bot.md): on when TELEGRAM_BOT_TOKEN is set.
  ...telegramEnvShape,
  // Pipelines (docs/rest-api.md "Pipeline"): the deadline of one run.
  ...pipelineEnvShape,
  // The unified search's fourth tier: external stock libraries (docs/rest-api.md "Unified image search").
  ...searchEnvShape,
});

/** Every environment variable the service reads (all listed in docs/configuration.md). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(envSchema.shape);

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** API processes `npm start` runs on this machine (src/api-processes.ts). */
  apiProcesses: number;
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
  /** The sign-up page of referral links: whether visitors may create their account there. */
  signup: SignupConfig;
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
  /** Pages rendered in headless Chromium: the browser, pages at once, one page's budget. */
  render: RenderConfig;
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
    apiProcesses: e.API_PROCESSES,
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
    signup: signupConfigFrom(e),
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
    render: renderConfigFrom(e),
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
