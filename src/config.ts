// Reads and validates the whole environment in one place. Every variable is listed in the README.
import { resolve } from 'node:path';
import { z } from 'zod';

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

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().default('0.0.0.0'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  ADMIN_TOKEN: z.string().min(16, 'ADMIN_TOKEN must be at least 16 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  UPLOAD_MAX_BYTES: z.coerce.number().int().positive().default(25 * 1024 * 1024),
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'BODY_LIMIT must look like 1mb or 512kb').default('1mb'),
  TIERS: jsonTiers.optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  TRUST_PROXY: boolish.default(false),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().positive().default(15),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(5000),
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
});

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
  /** Largest uploaded file (multipart); larger ones get 413. */
  uploadMaxBytes: number;
  tiers: Record<string, TierLimits>;
  publicBaseUrl?: string;
  trustProxy: boolean;
  graphql: { maxDepth: number; maxAliases: number; maxCost: number };
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
  };
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
    uploadMaxBytes: e.UPLOAD_MAX_BYTES,
    tiers: e.TIERS ?? DEFAULT_TIERS,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    trustProxy: e.TRUST_PROXY,
    graphql: { maxDepth: e.GRAPHQL_MAX_DEPTH, maxAliases: e.GRAPHQL_MAX_ALIASES, maxCost: e.GRAPHQL_MAX_COST },
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
    },
    ...overrides,
  };
}
