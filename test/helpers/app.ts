// Starts the real service on 127.0.0.1:<random port> for a test file, with its own database.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger, type Logger } from '../../src/platform/logger.js';
import { createTestDatabase } from './database.js';
import type { TelegramRuntimeOptions } from '../../src/modules/bot/index.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
/** Generous limits so tests not about quotas never meet them. */
export const TEST_TIERS = {
  // The first account (the operator's) and the others alike: the limits stay out of tests that do not test them.
  operator: { daily: 100_000, perMinute: 100_000 },
  standard: { daily: 100_000, perMinute: 100_000 },
  tiny: { daily: 3, perMinute: 100 },
  bursty: { daily: 1000, perMinute: 2 },
};
/** Fetching allowed from 127.0.0.1, where the tests' fixture sites listen. */
export const LOCAL_FETCH: Config['fetch'] = { ...loadConfig({}).fetch, allowPrivateAddresses: ['127.0.0.1'] };
/** One job at a time, polled often, so a test sees a job move without waiting long. */
export const QUICK_JOBS: Config['jobs'] = { concurrency: 1, leaseMs: 10_000, pollMs: 50 };
/** Scrapes of the local fixture sites, without the politeness delay, one job at a time. */
export const LOCAL_SCRAPES: Partial<Config> = { fetch: LOCAL_FETCH, scrape: { ...loadConfig({}).scrape, hostDelayMs: 0 }, jobs: QUICK_JOBS };

export interface TestResponse {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface RequestOptions {
  key?: string;
  admin?: boolean;
  body?: unknown;
  rawBody?: string;
  /** multipart/form-data (fetch sets the content type with its boundary). */
  form?: FormData;
  headers?: Record<string, string>;
  /** 'manual' answers a redirect as it is instead of following it. */
  redirect?: RequestRedirect;
}

export interface TestApp {
  app: App;
  url: string;
  ownerKey: string;
  config: Config;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  graphql(query: string, variables?: Record<string, unknown>, options?: RequestOptions): Promise<TestResponse>;
  /** A new account through the admin REST route: returns its handle and master key. */
  createAccount(handle: string, tier?: string): Promise<{ handle: string; key: string; id: number }>;
  stop(): Promise<void>;
}

let counter = 0;

/** `logger`: to read what the service logs (the default is silent); `telegram`: the chat bot's runtime options. */
export async function startTestApp(overrides: Partial<Config> = {}, options: { logger?: Logger; telegram?: TelegramRuntimeOptions } = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'image-service-test-'));
  const database = await createTestDatabase();
  const config = loadConfig(
    { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, ADMIN_TOKEN },
    { inMemoryDatabase: true, databaseUrl: database.url, tiers: TEST_TIERS, ...overrides },
  );
  const app = await buildApp(config, { logger: options.logger ?? createLogger('silent'), telegram: options.telegram });
  const url = await app.start(0, '127.0.0.1');
  if (!app.initialAccount) throw new Error('a fresh test database should have created the first account');

  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers['X-API-Key'] = options.key;
    if (options.admin) headers['X-Admin-Token'] = ADMIN_TOKEN;
    let body: string | FormData | undefined = options.rawBody;
    if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && !headers['Content-Type']) headers['Content-Type'] = 'application/json';
    if (options.form) body = options.form;
    const response = await fetch(url + path, { method, headers, body, redirect: options.redirect });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  return {
    app,
    url,
    config,
    ownerKey: app.initialAccount.apiKey,
    request,
    graphql: (query, variables, options = {}) => request('POST', '/graphql', { ...options, body: { query, variables } }),
    createAccount: async (prefix, tier) => {
      const handle = `${prefix}-${++counter}`;
      const res = await request('POST', '/api/admin/accounts', { admin: true, body: { handle, tier } });
      if (res.status !== 201) throw new Error(`creating account ${handle} failed: ${res.status} ${res.text}`);
      return { handle, key: res.body.api_key as string, id: res.body.account_id as number };
    },
    stop: async () => {
      await app.stop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
