// What configuration says about automation (src/config.ts reads it): webhook delivery, schedules,
// and exports to WordPress and Shopify. A leaf file (zod only).
import { z } from 'zod';
import { boolish } from '../../platform/env.js';

export interface WebhooksConfig {
  /** Plain-http targets (development only); https is required otherwise. */
  allowHttp: boolean;
  timeoutMs: number;
  /** Delays before the 2nd, 3rd ... attempt; attempts in all = retryDelaysMs.length + 1. */
  retryDelaysMs: number[];
  pollMs: number;
  perAccount: number;
}

export interface SchedulesConfig {
  pollMs: number;
  perAccount: number;
}

/** Exports to WordPress and Shopify: the destination's secret is sealed with secretKey while its job runs. */
export interface ExportsConfig {
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
}

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

/** The WEBHOOK_*, SCHEDULE* , EXPORT_* and SHOPIFY_* variables, spread into the configuration's schema. */
export const automationEnvShape = {
  WEBHOOK_ALLOW_HTTP: boolish.default(false).describe('accept plain `http://` webhook targets (development only); otherwise registration and test answer 400'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe('deadline of one webhook delivery attempt (connect, send, answer)'),
  WEBHOOK_RETRY_SCHEDULE: durationList.default([10_000, 60_000, 300_000, 1_800_000, 7_200_000]).meta({ description: 'delays before the 2nd, 3rd ... attempt (`ms`, `s`, `m`, `h`; a bare number is ms); attempts = delays + 1', shownDefault: '`10s,1m,5m,30m,2h`' }),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).default(1_000).describe('how often the deliverer looks for due deliveries'),
  WEBHOOKS_PER_ACCOUNT: z.coerce.number().int().positive().default(25).describe('most webhooks per account (409 beyond)'),
  SCHEDULER_POLL_MS: z.coerce.number().int().min(10).default(30_000).describe('how often the scheduler looks for due schedules'),
  SCHEDULES_PER_ACCOUNT: z.coerce.number().int().positive().default(50).describe('most schedules per account (409 beyond)'),
  // Exports to WordPress and Shopify (docs/rest-api.md "Automation: exports").
  EXPORT_ALLOW_HTTP: boolish.default(false).describe('accept a plain `http://` `wp_url` (development only); otherwise the WordPress export answers 400 ([Exports](rest-api.md#automation-exports))'),
  EXPORT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(3).describe('items of one export sent at once (1 to 16)'),
  EXPORT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(120_000).describe('deadline of one request to WordPress or Shopify, an upload included'),
  EXPORT_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(4).describe('retries of a request the destination throttled (429, `THROTTLED`) or could not serve (5xx, WordPress 503); then that item fails'),
  EXPORT_SECRET_KEY: z.string().min(32, 'EXPORT_SECRET_KEY must be at least 32 characters').optional().meta({ description: "key (32+ characters) that seals an export's password or token while its job runs, and webhook signing secrets at rest; unset: generated into `DATA_DIR/export-secret-key` (mode 0600). Several processes must share one (with `DATABASE_URL` set and this or `URL_SIGNING_KEY` unset, the start logs a warning)", shownDefault: 'generated' }),
  SHOPIFY_API_VERSION: z.string().regex(/^(\d{4}-(01|04|07|10)|unstable)$/, 'SHOPIFY_API_VERSION must look like 2026-10 (a quarterly version) or unstable').default('2026-10').describe('Admin API version in `https://{shop}/admin/api/{version}/graphql.json` (a quarterly `YYYY-01/04/07/10`, or `unstable`)'),
  SHOPIFY_API_BASE_URL: z.string().url().regex(/^https?:\/\//i, 'SHOPIFY_API_BASE_URL must be an http(s) URL').optional().describe('replaces `https://{shop}` (a local fake in tests, a proxy)'),
  SHOPIFY_UPLOAD: z.enum(['auto', 'url', 'staged'], { error: 'SHOPIFY_UPLOAD must be auto, url or staged' }).default('auto').describe('how Shopify gets a file: `auto` (a signed link of ours when `PUBLIC_BASE_URL` is public, else a staged upload), `url` or `staged`'),
  SHOPIFY_FILE_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000).describe("how often a new Shopify file's `fileStatus` is read until `READY` or `FAILED`"),
  SHOPIFY_FILE_POLL_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000).describe("a file not `READY` by then fails its item (it stays in the shop's Files)"),
};

type AutomationEnv = z.output<z.ZodObject<typeof automationEnvShape>>;

export function automationConfigFrom(e: AutomationEnv): { webhooks: WebhooksConfig; schedules: SchedulesConfig; exports: ExportsConfig } {
  return {
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
  };
}
