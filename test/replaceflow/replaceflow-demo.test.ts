// POST /api/replaceflow/demo: no key, the same pipeline (here without a Google key, so stock search
// by the headline), 5 requests per hour per client address counted durably before any work, 429
// with Retry-After beyond, X-Forwarded-For read only under TRUST_PROXY.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import type { KeywordImageSearch } from '../../src/modules/replaceflow/index.js';
import { ADMIN_TOKEN, LOCAL_FETCH, TEST_TIERS } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { HEADLINE, startReplaceFlowSite, type ReplaceFlowSite } from '../fixtures/replaceflow/site.js';

let site: ReplaceFlowSite;
const cleanups: Array<() => Promise<void>> = [];
const stockQueries: string[] = [];
const stock: KeywordImageSearch = async (keywords) => {
  stockQueries.push(keywords);
  return [{ url: `${site.url}/copies/harbour-clean.jpg`, title: 'Harbour', source: 'fakestock' }];
};

/** A config on a database of its own that outlives the app (PGlite files in DATA_DIR, or a PostgreSQL database). */
async function persistentConfig(overrides: Partial<Config>): Promise<Config> {
  const dir = mkdtempSync(join(tmpdir(), 'replaceflow-demo-'));
  const database = await createTestDatabase();
  cleanups.push(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return loadConfig({ NODE_ENV: 'test', DATA_DIR: dir, LOG_LEVEL: 'silent', ADMIN_TOKEN }, { databaseUrl: database.url, tiers: TEST_TIERS, fetch: LOCAL_FETCH, ...overrides });
}

async function started(config: Config): Promise<{ app: App; url: string }> {
  const app = await buildApp(config, { logger: createLogger('silent') });
  const url = await app.start(0, '127.0.0.1');
  app.services.replaceflow.useStockSearch(stock);
  return { app, url };
}

async function demo(base: string, body: unknown, forwardedFor?: string) {
  const response = await fetch(`${base}/api/replaceflow/demo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(forwardedFor ? { 'X-Forwarded-For': forwardedFor } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

let proxied: { app: App; url: string };
let proxiedConfig: Config;
let article: string;

beforeAll(async () => {
  site = await startReplaceFlowSite();
  article = `${site.url}/news/harbour`;
  proxiedConfig = await persistentConfig({ trustProxy: true });
  proxied = await started(proxiedConfig);
});
afterAll(async () => {
  await proxied.app.stop();
  await site.close();
  for (const cleanup of cleanups) await cleanup();
});

describe('POST /api/replaceflow/demo', () => {
  it('needs no key, and runs the pipeline: without the Google key, stock search by the headline', async () => {
    const res = await demo(proxied.url, { article_url: article }, '198.51.100.1');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ success: true, headline: HEADLINE, watermarked_url: `${site.url}/img/harbour-storm.jpg`, phash_enabled: true });
    expect(res.body.searched).toEqual([
      { tier: 'google_vision', status: 'skipped', found: 0 },
      { tier: 'local_index', status: 'ok', found: 0 },
      { tier: 'library', status: 'skipped', found: 0 },
      { tier: 'stock', status: 'ok', found: 1 },
    ]);
    expect(stockQueries.at(-1)).toBe('storm floods harbour dawn');
    expect((res.body.results as Array<Record<string, unknown>>)[1]).toMatchObject({ type: 'clean_discovery', source: 'stock:fakestock', phash_match: true, is_watermarked: false });
    // The keyed route, by contrast, wants a key.
    const keyed = await fetch(`${proxied.url}/api/replaceflow`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ article_url: article }) });
    expect(keyed.status).toBe(401);
  });

  it('allows 5 an hour per address, then 429 with Retry-After; other addresses are counted apart; a refused input does not count', async () => {
    const invalid = await demo(proxied.url, { article_url: 'not a url' }, '198.51.100.2');
    expect(invalid).toMatchObject({ status: 400, body: { success: false, error: 'article_url: expected an absolute http or https URL' } });
    for (let i = 0; i < 5; i++) expect((await demo(proxied.url, { article_url: article }, '198.51.100.2')).status).toBe(200);
    const refused = await demo(proxied.url, { article_url: article }, '198.51.100.2');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ success: false, error: expect.stringMatching(/^the ReplaceFlow demo allows 5 requests per hour per address; retry in \d+ s/) });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect((await demo(proxied.url, { article_url: article }, '198.51.100.3')).status).toBe(200);
    // An IPv6 client is counted by its /64: another address in the same network shares the count.
    for (let i = 0; i < 5; i++) expect((await demo(proxied.url, { article_url: article }, `2001:db8:1:2::${i + 1}`)).status).toBe(200);
    expect((await demo(proxied.url, { article_url: article }, '2001:db8:1:2:ffff::9')).status).toBe(429);
  });

  it('lets exactly 5 of 8 concurrent requests through', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => demo(proxied.url, { article_url: article }, '198.51.100.8')));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(3);
  });

  it('keeps the count across a new app instance on the same database', async () => {
    await proxied.app.stop();
    proxied = await started(proxiedConfig);
    const again = await demo(proxied.url, { article_url: article }, '198.51.100.2');
    expect(again.status).toBe(429);
    expect(again.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('reads X-Forwarded-For only under TRUST_PROXY: without it, every forwarded address is the proxy', async () => {
    const direct = await started(await persistentConfig({ trustProxy: false }));
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await demo(direct.url, { article_url: article }, `203.0.113.${i + 1}`)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    } finally {
      await direct.app.stop();
    }
  });

  it('answers GraphQL too, with the 429 and its Retry-After', async () => {
    const query = { query: 'mutation($u: String!) { replaceFlowDemo(articleUrl: $u) { count watermarkedUrl } }', variables: { u: article } };
    const post = () => fetch(`${proxied.url}/graphql`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': '198.51.100.77' }, body: JSON.stringify(query) });
    for (let i = 0; i < 5; i++) expect(((await (await post()).json()) as { data: { replaceFlowDemo: { count: number } } }).data.replaceFlowDemo.count).toBeGreaterThanOrEqual(1);
    const refused = await post();
    const body = (await refused.json()) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors[0]!.extensions.code).toBe('QUOTA_EXCEEDED');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
