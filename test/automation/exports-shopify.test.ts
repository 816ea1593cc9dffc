// POST /api/automation/export/shopify end to end through REST, against a fake Shopify Admin GraphQL
// API that runs the client's documents against a subset of Shopify's schema (fake-shopify.ts):
// staged uploads (PUBLIC_BASE_URL not public) and signed links of ours (a public one), files polled
// until READY or FAILED, attached to a product, userErrors, THROTTLED, 429, 5xx, 401, 402 and 423,
// ownership at the door, and the access token nowhere: not in the job row, answers or logs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { form, photo } from '../helpers/images.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { publicBase } from '../../src/modules/automation/exports/destinations.js';
import { startFakeShopify, type FakeShopify } from './fake-shopify.js';

const defaults = loadConfig({});
const TOKEN = 'shpat_0123456789abcdef0123456789abcdef';
const PRODUCT = 'gid://shopify/Product/8001';
const PUBLIC = 'https://images.example.com';

let shop: FakeShopify;
let t: TestApp;
/** The same service with a public PUBLIC_BASE_URL: Shopify fetches signed links of ours. */
let linked: TestApp;
const logLines: string[] = [];

function settings(overrides: Partial<Config> = {}): Partial<Config> {
  return {
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 20 },
    exports: { ...defaults.exports, maxRetries: 3, shopify: { ...defaults.exports.shopify, apiBaseUrl: shop.url, pollMs: 10, pollTimeoutMs: 5_000 } },
    ...overrides,
  };
}

beforeAll(async () => {
  shop = await startFakeShopify(TOKEN);
  shop.products.set(PRODUCT, { id: PRODUCT, title: 'Rain jacket' });
  const logger = createLogger('trace', { write: (line: string) => void logLines.push(line) });
  [t, linked] = await Promise.all([startTestApp(settings(), { logger }), startTestApp(settings({ publicBaseUrl: PUBLIC }), { logger })]);
  // Shopify fetches https://images.example.com/...; here that is the second app.
  shop.fetchExternal = (url) => fetch(url.replace(PUBLIC, linked.url));
});
afterAll(async () => {
  await Promise.all([t?.stop(), linked?.stop()]);
  await shop?.close();
});

let seed = 0;
async function upload(app: TestApp, key: string, name = 'jacket.jpg'): Promise<number> {
  const res = await app.request('POST', '/api/media/upload', { key, form: form({ body: await photo('#5f0f40', { seed: ++seed, width: 64, height: 48 }), name, type: 'image/jpeg' }) });
  expect(res.status, res.text).toBe(201);
  return res.body.media_id as number;
}

async function startExport(app: TestApp, key: string, body: Record<string, unknown>) {
  const res = await app.request('POST', '/api/automation/export/shopify', { key, body: { shop: 'fake-shop.myshopify.com', access_token: TOKEN, ...body } });
  expect(res.status, res.text).toBe(202);
  return res;
}

const sha256 = async (app: TestApp, id: number) => (await app.app.services.db.prisma.mediaItem.findUniqueOrThrow({ where: { id } })).sha256;

describe('a Shopify export', () => {
  it('stages each file, creates it, waits until READY and attaches it to the product', async () => {
    const { key } = await t.createAccount('shop');
    const ids = [await upload(t, key, 'Jacket front.jpg'), await upload(t, key, 'jacket-back.jpg')];
    await t.request('PATCH', `/api/media/${ids[0]}`, { key, body: { caption: 'Red rain jacket, front' } });
    const before = shop.requests.length;
    const started = await startExport(t, key, { media_ids: ids, product_id: 8001 });
    expect(started.body).toMatchObject({ success: true, status: 'queued', poll_url: `/api/jobs/${started.body.job_id}` });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    expect(done.body.export).toMatchObject({ destination: 'shopify', target: 'fake-shop.myshopify.com', product_id: PRODUCT, total: 2, exported: 2, failed: 0 });
    for (const [i, item] of (done.body.export.items as Array<Record<string, string>>).entries()) {
      expect(item).toMatchObject({ media_id: ids[i], status: 'exported', error: null, remote_id: expect.stringMatching(/^gid:\/\/shopify\/MediaImage\/\d+$/) });
      const file = shop.files.get(item.remote_id!)!;
      expect(item.remote_url).toMatch(/^https:\/\/cdn\.shopify\.com\//);
      expect(file.products).toEqual([PRODUCT]);
      expect(file.sha256).toBe(await sha256(t, ids[i]!));
      expect(file.contentType).toBe('IMAGE');
      expect(file.originalSource).toMatch(/^https:\/\/shopify-staged-uploads\.storage\.googleapis\.com\/tmp\//);
    }
    const [front] = (done.body.export.items as Array<{ remote_id: string }>).map((i) => shop.files.get(i.remote_id)!);
    expect(front).toMatchObject({ alt: 'Red rain jacket, front', filename: 'Jacket-front.jpg' });
    // The staged target got the documented form: its parameters in order, then the file.
    expect([...shop.staged.values()].at(-1)!.fields).toEqual(['Content-Type', 'success_action_status', 'acl', 'key', 'policy', 'file']);
    const mine = shop.requests.slice(before).filter((r) => r.path.startsWith('/admin/api/'));
    expect(mine.every((r) => r.path === `/admin/api/${defaults.exports.shopify.apiVersion}/graphql.json` && r.headers['x-shopify-access-token'] === TOKEN)).toBe(true);
    expect(new Set(mine.map((r) => r.operation))).toEqual(new Set(['ExportShop', 'ExportProduct', 'ExportStagedUpload', 'ExportFileCreate', 'ExportFiles', 'ExportAttach']));
    // The token is nowhere but in the requests to Shopify.
    const row = await t.app.services.db.prisma.job.findUniqueOrThrow({ where: { id: started.body.job_id } });
    expect(JSON.stringify(row)).not.toContain(TOKEN);
    expect(row.input).toEqual({ shop: 'fake-shop.myshopify.com', product_id: PRODUCT, media_ids: ids });
    expect(await t.app.services.db.prisma.exportCredential.count({ where: { jobId: row.id } })).toBe(0);
    expect(started.text + done.text).not.toContain(TOKEN);
  });

  it('hands Shopify a short-lived signed link of ours when PUBLIC_BASE_URL is public', async () => {
    const { key } = await linked.createAccount('shop');
    const id = await upload(linked, key, 'linked.jpg');
    const stagedBefore = shop.staged.size;
    const started = await startExport(linked, key, { media_ids: [id] });
    const done = await waitForJob(linked, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    const file = shop.files.get(done.body.export.items[0].remote_id)!;
    const source = new URL(file.originalSource);
    expect(`${source.origin}${source.pathname}`).toBe(`${PUBLIC}/media/${id}/original`);
    const expires = Number(source.searchParams.get('exp')) * 1000;
    expect(expires).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    // Shopify fetched the very file through it; no staged upload was needed.
    expect(file.sha256).toBe(await sha256(linked, id));
    expect(shop.staged.size).toBe(stagedBefore);
    // Past its `exp` the same kind of link is refused.
    const media = await linked.app.services.db.prisma.mediaItem.findUniqueOrThrow({ where: { id } });
    const expired = linked.app.services.signer.sign(`/media/${id}/original`, { v: media.sha256.slice(0, 16), exp: Math.floor(Date.now() / 1000) - 5 });
    const res = await linked.request('GET', expired);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('this link has expired');
    const tampered = await linked.request('GET', file.originalSource.replace(PUBLIC, '').replace(/exp=\d+/, 'exp=9999999999'));
    expect(tampered.status).toBe(403);
  });

  it("records Shopify's userErrors and FAILED files per item, and exports the rest", async () => {
    const { key } = await t.createAccount('shop');
    const ids = [await upload(t, key, 'reject-me.jpg'), await upload(t, key, 'corrupt.jpg'), await upload(t, key, 'fine.jpg')];
    const started = await startExport(t, key, { media_ids: ids });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    const [rejected, corrupt, fine] = done.body.export.items;
    expect(rejected).toMatchObject({ status: 'failed', remote_id: null, error: 'Shopify refused the file: files.0.filename: Filename is not allowed (INVALID_FILENAME)' });
    expect(corrupt).toMatchObject({
      status: 'failed',
      remote_id: expect.stringMatching(/^gid:\/\/shopify\/MediaImage\//),
      error: 'Shopify could not process the file: MEDIA_PROCESSING_FAILED: Image could not be processed because the file is corrupt',
    });
    expect(fine).toMatchObject({ status: 'exported' });
    expect(done.body.export).toMatchObject({ exported: 1, failed: 2 });
  });

  it('waits out a THROTTLED answer, a 429 with Retry-After and a 502 (within EXPORT_MAX_RETRIES), then goes on', async () => {
    const { key } = await t.createAccount('shop');
    const id = await upload(t, key);
    const before = shop.requests.length;
    shop.failNext(['throttled', { status: 429, headers: { 'Retry-After': '0' }, body: { errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' } }, { status: 502, body: { errors: 'Bad Gateway' } }]);
    const started = await startExport(t, key, { media_ids: [id] });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.status, done.text).toBe('completed');
    expect(done.body.export.items[0].status).toBe('exported');
    const statuses = shop.requests.slice(before).filter((r) => r.path.startsWith('/admin/')).map((r) => r.status);
    expect(statuses.slice(0, 4)).toEqual([200, 429, 502, 200]);
  });

  it.each([
    [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }, 'Shopify refused the access token (401: [API] Invalid API key or access token (unrecognized login or wrong password))'],
    [402, { errors: 'Unavailable Shop' }, 'the shop is frozen: its bill is unpaid (402: Unavailable Shop)'],
    [423, { errors: 'Locked' }, 'the shop is locked (423: Locked)'],
  ])('ends the export on a %i before any file is sent', async (status, body, message) => {
    const { key } = await t.createAccount('shop');
    const ids = [await upload(t, key), await upload(t, key)];
    const before = shop.requests.length;
    shop.failNext([{ status, body }]);
    const started = await startExport(t, key, { media_ids: ids });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body).toMatchObject({ success: false, status: 'failed', error: `no item was exported: ${message}` });
    expect(done.body.export.items.map((i: { error: string }) => i.error)).toEqual([`not sent: ${message}`, `not sent: ${message}`]);
    expect(shop.requests.slice(before).map((r) => r.operation)).toEqual(['ExportShop']);
  });

  it('refuses a wrong token with one request', async () => {
    const { key } = await t.createAccount('shop');
    const before = shop.requests.length;
    const started = await startExport(t, key, { media_ids: [await upload(t, key)], access_token: 'shpat_wrong' });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.error).toContain('Shopify refused the access token (401');
    expect(shop.requests.length - before).toBe(1);
    expect(done.text).not.toContain('shpat_wrong');
  });

  it('refuses a product the shop does not have before uploading anything', async () => {
    const { key } = await t.createAccount('shop');
    const filesBefore = shop.files.size;
    const started = await startExport(t, key, { media_ids: [await upload(t, key)], product_id: 'gid://shopify/Product/999' });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.error).toBe('no item was exported: the shop has no product gid://shopify/Product/999 (or the token may not read products)');
    expect(shop.files.size).toBe(filesBefore);
  });
});

describe('refused at the door', () => {
  it.each([
    [{ shop: undefined }, "shop is required: the shop's myshopify.com domain"],
    [{ shop: 'evil.example.com' }, "shop: expected the shop's myshopify.com domain"],
    [{ shop: 'https://fake-shop.myshopify.com' }, "shop: expected the shop's myshopify.com domain"],
    [{ shop: 'x.myshopify.com.evil.com' }, "shop: expected the shop's myshopify.com domain"],
    [{ access_token: undefined }, 'access_token is required'],
    [{ access_token: 'shpat_x\r\nX-Evil: 1' }, 'access_token: expected a token without spaces or control characters'],
    [{ product_id: 'gid://shopify/Collection/5' }, 'product_id: expected a product id'],
    [{ product_id: -4 }, 'product_id: expected a product id'],
    [{ media_ids: [] }, 'media_ids: expected 1 to 100 media ids'],
  ])('answers 400 for %j', async (change, message) => {
    const { key } = await t.createAccount('shop');
    const body: Record<string, unknown> = { shop: 'fake-shop.myshopify.com', access_token: TOKEN, media_ids: [1], ...change };
    for (const [field, value] of Object.entries(change)) if (value === undefined) delete body[field];
    const res = await t.request('POST', '/api/automation/export/shopify', { key, body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toContain(message);
    expect(res.text).not.toContain(TOKEN);
  });

  it('accepts the shop domain in capitals and a product number', async () => {
    const { key } = await t.createAccount('shop');
    const started = await startExport(t, key, { shop: 'Fake-Shop.MyShopify.com', media_ids: [await upload(t, key)], product_id: '8001' });
    const done = await waitForJob(t, key, started.body.job_id);
    expect(done.body.export).toMatchObject({ target: 'fake-shop.myshopify.com', product_id: PRODUCT, exported: 1 });
  });

  it("refuses another account's media (404), sub-keys (403) and no key (401)", async () => {
    const { key } = await t.createAccount('shop');
    const other = await t.createAccount('shop-other');
    const theirs = await upload(t, other.key);
    const res = await t.request('POST', '/api/automation/export/shopify', { key, body: { shop: 'fake-shop.myshopify.com', access_token: TOKEN, media_ids: [theirs] } });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe(`no media item ${theirs}`);
    const sub = (await t.request('POST', '/api/platform/sub-keys', { key: other.key, body: { scopes: 'media' } })).body.sub_key as string;
    const scoped = await t.request('POST', '/api/automation/export/shopify', { key: sub, body: { shop: 'fake-shop.myshopify.com', access_token: TOKEN, media_ids: [theirs] } });
    expect(scoped.status).toBe(403);
    const none = await t.request('POST', '/api/automation/export/shopify', { body: { shop: 'fake-shop.myshopify.com', access_token: TOKEN, media_ids: [theirs] } });
    expect(none.status).toBe(401);
  });

  it('refuses a plain-http WordPress site unless EXPORT_ALLOW_HTTP is set', async () => {
    const { key } = await t.createAccount('shop');
    const res = await t.request('POST', '/api/automation/export/wordpress', { key, body: { wp_url: 'http://blog.example.com', wp_user: 'u', wp_password: 'p', media_ids: [await upload(t, key)] } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('wp_url: expected an https:// URL (plain http is refused unless the service sets EXPORT_ALLOW_HTTP=true)');
  });
});

it('judges PUBLIC_BASE_URL public only for https and a name or address the internet can reach', () => {
  expect(publicBase('https://images.example.com/')).toBe('https://images.example.com');
  expect(publicBase('https://203.0.113.9')).toBeNull(); // documentation range, not unicast
  expect(publicBase('https://8.8.8.8')).toBe('https://8.8.8.8');
  for (const local of [undefined, 'http://images.example.com', 'https://localhost:4000', 'https://127.0.0.1', 'https://10.1.2.3', 'https://[::1]', 'https://images', 'https://nas.local', 'https://svc.internal', 'https://app.test']) {
    expect(publicBase(local), String(local)).toBeNull();
  }
});

it('never logs the access token', () => {
  const logged = logLines.join('\n');
  expect(logged.length).toBeGreaterThan(0);
  expect(logged).not.toContain(TOKEN);
  expect(logged).not.toContain('shpat_wrong');
  expect(logged).not.toContain('secret-signature');
});
