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
  BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'BODY_LIMIT must look like 1mb or 512kb').default('1mb'),
  TIERS: jsonTiers.optional(),
  PUBLIC_BASE_URL: z.string().url().optional(),
  TRUST_PROXY: boolish.default(false),
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().positive().default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().positive().default(15),
  GRAPHQL_MAX_COST: z.coerce.number().int().positive().default(5000),
  SUB_KEYS_PER_ACCOUNT: z.coerce.number().int().positive().default(100),
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
  tiers: Record<string, TierLimits>;
  publicBaseUrl?: string;
  trustProxy: boolean;
  graphql: { maxDepth: number; maxAliases: number; maxCost: number };
  subKeysPerAccount: number;
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
    tiers: e.TIERS ?? DEFAULT_TIERS,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    trustProxy: e.TRUST_PROXY,
    graphql: { maxDepth: e.GRAPHQL_MAX_DEPTH, maxAliases: e.GRAPHQL_MAX_ALIASES, maxCost: e.GRAPHQL_MAX_COST },
    subKeysPerAccount: e.SUB_KEYS_PER_ACCOUNT,
    ...overrides,
  };
}
