// Webhooks end to end: registration rules, the test delivery, job events through the outbox,
// signatures, retries with the delivery log, and SSRF refusals. A local receiver stands in for
// the customer's endpoint; http is allowed for it (WEBHOOK_ALLOW_HTTP) and retries wait milliseconds.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { waitForJob } from '../helpers/jobs.js';
import { startFixtureSite, type FixtureSite } from '../fixtures/site.js';
import { loadConfig } from '../../src/config.js';
import { signatureValid, startReceiver, type Receiver } from './receiver.js';

const defaults = loadConfig({});
const RETRY_DELAYS = [30, 30, 30, 30, 30];

let t: TestApp;
let site: FixtureSite;
let receiver: Receiver;

beforeAll(async () => {
  site = await startFixtureSite();
  receiver = await startReceiver();
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    jobs: { concurrency: 2, leaseMs: 10_000, pollMs: 50 },
    webhooks: { ...defaults.webhooks, allowHttp: true, retryDelaysMs: RETRY_DELAYS, pollMs: 20, timeoutMs: 2_000 },
  });
});
afterAll(async () => {
  await t?.stop();
  await receiver?.close();
  await site?.close();
});

async function register(key: string, body: Record<string, unknown>) {
  const res = await t.request('POST', '/api/automation/webhooks', { key, body });
  expect(res.status, res.text).toBe(201);
  return res.body.webhook_id as number;
}

async function scrape(key: string, path: string) {
  const started = await t.request('POST', '/api/scrape', { key, body: { url: `${site.url}${path}`, force: true } });
  expect(started.status, started.text).toBe(202);
  return waitForJob(t, key, started.body.job_id);
}

async function deliveries(key: string, webhookId: number) {
  const res = await t.request('GET', `/api/automation/webhooks/${webhookId}/deliveries`, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/**
 * Polls the delivery log until its newest entry passes `done` (by default: reaches a final status).
 * Polling matters because the app's own deliverer may have claimed the row first and still be
 * recording the attempt when the test's call returns.
 */
async function settledDelivery(key: string, webhookId: number, done = (d: Record<string, unknown>) => d.status !== 'pending', timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await deliveries(key, webhookId);
    const newest = log.deliveries[0];
    if (newest && done(newest)) return newest;
    if (Date.now() > deadline) throw new Error(`delivery still ${JSON.stringify(newest ?? 'missing')}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('POST /api/automation/webhooks', () => {
  it('registers a webhook; events default to all; the secret is never echoed', async () => {
    const { key } = await t.createAccount('hooks');
    const res = await t.request('POST', '/api/automation/webhooks', { key, body: { url: 'https://hooks.example.com/in', secret: 'shh-very-secret' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      webhook_id: expect.any(Number),
      url: 'https://hooks.example.com/in',
      events: ['job.completed', 'job.failed'],
      has_secret: true,
      created_at: expect.stringMatching(/Z$/),
    });
    expect(res.text).not.toContain('shh-very-secret');
  });

  it('keeps a subset of events, and stores every type listed as "all"', async () => {
    const { key } = await t.createAccount('hooks');
    const one = await t.request('POST', '/api/automation/webhooks', { key, body: { url: 'https://hooks.example.com/1', events: ['job.failed'] } });
    expect(one.body).toMatchObject({ events: ['job.failed'], has_secret: false });
    const both = await t.request('POST', '/api/automation/webhooks', { key, body: { url: 'https://hooks.example.com/2', events: ['job.failed', 'job.completed'] } });
    expect(both.body.events).toEqual(['job.completed', 'job.failed']);
  });

  it.each([
    [{}, /^url is required/],
    [{ url: '' }, /^url is required/],
    [{ url: 'not a url' }, /^url: expected an absolute https/],
    [{ url: 'ftp://hooks.example.com/' }, /^url: expected an https/],
    [{ url: 'https://user:pw@hooks.example.com/' }, /^url: URLs with credentials/],
    [{ url: 'https://hooks.example.com/', events: ['job.completed', 'job.exploded'] }, /^events: unknown event type "job\.exploded"/],
    [{ url: 'https://hooks.example.com/', events: [] }, /^events: expected at least one/],
    [{ url: 'https://hooks.example.com/', events: [3] }, /^events\.0: expected an event type name \(a string\)$/],
    [{ url: 'https://hooks.example.com/', events: 'job.failed' }, /^events: expected an array of event types \(job\.completed, job\.failed\)$/],
    [{ url: 'https://hooks.example.com/', secret: 42 }, /^secret: expected a string$/],
    [{ url: 'https://hooks.example.com/', secret: 'x'.repeat(257) }, /^secret: expected at most 256 characters$/],
  ])('refuses %j with 400', async (body, message) => {
    const res = await t.request('POST', '/api/automation/webhooks', { key: t.ownerKey, body });
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(message) });
  });

  it('refuses an empty secret over REST and GraphQL in the same words (a JSON "" is a value, not an absent field)', async () => {
    const rest = await t.request('POST', '/api/automation/webhooks', { key: t.ownerKey, body: { url: 'https://hooks.example.com/empty', secret: '' } });
    expect(rest.status, rest.text).toBe(400);
    expect(rest.body.error).toBe('secret: expected at least 1 character (or leave it out)');
    const gql = await t.graphql(
      'mutation { createWebhook(input: { url: "https://hooks.example.com/empty", secret: "" }) { __typename ... on ServiceError { message status field } } }',
      {},
      { key: t.ownerKey },
    );
    expect(gql.body.data.createWebhook).toEqual({ __typename: 'ServiceError', message: 'secret: expected at least 1 character (or leave it out)', status: 400, field: 'secret' });
  });

  it('refuses cloud metadata and other forbidden addresses, on registration and on test', async () => {
    for (const url of ['http://169.254.169.254/', 'https://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/', 'http://10.0.0.1/hook']) {
      const res = await t.request('POST', '/api/automation/webhooks', { key: t.ownerKey, body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.body.error).toMatch(/^url: refused: /);
      const tested = await t.request('POST', '/api/automation/webhooks/test', { key: t.ownerKey, body: { url } });
      expect(tested.status, url).toBe(400);
    }
  });
});

describe('listing and deleting', () => {
  it('lists webhooks newest first without secrets, deletes them, and hides other accounts', async () => {
    const alice = await t.createAccount('alice');
    const bob = await t.createAccount('bob');
    const first = await register(alice.key, { url: 'https://hooks.example.com/a1', secret: 'alice-secret-1' });
    const second = await register(alice.key, { url: 'https://hooks.example.com/a2' });
    await register(bob.key, { url: 'https://hooks.example.com/b1' });

    const list = await t.request('GET', '/api/automation/webhooks', { key: alice.key });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.webhooks.map((w: { id: number }) => w.id)).toEqual([second, first]);
    expect(list.body.webhooks[1]).toEqual({ id: first, url: 'https://hooks.example.com/a1', events: ['job.completed', 'job.failed'], has_secret: true, created_at: expect.any(String) });
    expect(list.text).not.toContain('alice-secret-1');
    expect(list.text).not.toContain('"secret"');

    // Another account's id is a 404 everywhere.
    expect((await t.request('DELETE', `/api/automation/webhooks/${first}`, { key: bob.key })).status).toBe(404);
    expect((await t.request('GET', `/api/automation/webhooks/${first}/deliveries`, { key: bob.key })).status).toBe(404);
    const viaGraphql = await t.graphql('query($id: Int!) { webhook(id: $id) { url } }', { id: first }, { key: bob.key });
    expect(viaGraphql.body.errors[0].extensions).toMatchObject({ code: 'NOT_FOUND' });

    const deleted = await t.request('DELETE', `/api/automation/webhooks/${first}`, { key: alice.key });
    expect(deleted.body).toEqual({ success: true, deleted: true, webhook_id: first });
    expect((await t.request('DELETE', `/api/automation/webhooks/${first}`, { key: alice.key })).status).toBe(404);
    const after = await t.request('GET', '/api/automation/webhooks', { key: alice.key });
    expect(after.body.webhooks.map((w: { id: number }) => w.id)).toEqual([second]);
    expect((await t.request('DELETE', '/api/automation/webhooks/abc', { key: alice.key })).status).toBe(400);
  });

  it('exposes webhooks as relay nodes with hasSecret, never the secret', async () => {
    const { key } = await t.createAccount('gql');
    const id = await register(key, { url: 'https://hooks.example.com/g', secret: 'graphql-secret' });
    const res = await t.graphql('{ viewer { webhooks { totalCount edges { node { id databaseId url events hasSecret } } } } }', {}, { key });
    const node = res.body.data.viewer.webhooks.edges[0].node;
    expect(node).toMatchObject({ databaseId: id, hasSecret: true, events: ['job.completed', 'job.failed'] });
    const again = await t.graphql('query($id: ID!) { node(id: $id) { ... on Webhook { databaseId } } }', { id: node.id }, { key });
    expect(again.body.data.node).toEqual({ databaseId: id });
    const schema = await t.graphql('{ __type(name: "Webhook") { fields { name } } }', {}, { key });
    expect(schema.body.data.__type.fields.map((f: { name: string }) => f.name)).not.toContain('secret');
  });
});

describe('POST /api/automation/webhooks/test', () => {
  it('posts a signed webhook.test payload and reports the status code', async () => {
    const res = await t.request('POST', '/api/automation/webhooks/test', { key: t.ownerKey, body: { url: `${receiver.url}/test-signed`, secret: 'test-secret' } });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      success: true,
      delivered: true,
      status_code: 200,
      error: null,
      delivery_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event: 'webhook.test',
      duration_ms: expect.any(Number),
    });
    const [request] = await receiver.waitFor(1, '/test-signed');
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['x-service-delivery']).toBe(res.body.delivery_id);
    expect(request!.headers['x-service-event']).toBe('webhook.test');
    expect(Number(request!.headers['x-service-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
    expect(signatureValid('test-secret', request!.body, request!.headers['x-service-signature'])).toBe(true);
    expect(signatureValid('wrong-secret', request!.body, request!.headers['x-service-signature'])).toBe(false);
    expect(request!.json).toEqual({ id: res.body.delivery_id, type: 'webhook.test', created_at: expect.stringMatching(/Z$/), data: expect.any(Object) });
  });

  it("reports a receiver's error status and an unreachable receiver without failing the call", async () => {
    receiver.respond([503], '/test-down');
    const down = await t.request('POST', '/api/automation/webhooks/test', { key: t.ownerKey, body: { url: `${receiver.url}/test-down` } });
    expect(down.body).toMatchObject({ success: true, delivered: false, status_code: 503, error: 'the receiver answered 503' });
    const [request] = await receiver.waitFor(1, '/test-down');
    expect(request!.headers['x-service-signature']).toBeUndefined();

    const unreachable = await t.request('POST', '/api/automation/webhooks/test', { key: t.ownerKey, body: { url: 'http://127.0.0.1:1/nothing-here' } });
    expect(unreachable.body).toMatchObject({ success: true, delivered: false, status_code: null, error: expect.stringMatching(/connection refused/) });
    expect(unreachable.body.error).not.toContain('nothing-here'); // paths can carry tokens: only the origin is named
  });

  it('needs a url', async () => {
    const res = await t.request('POST', '/api/automation/webhooks/test', { key: t.ownerKey, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^url is required/);
  });
});

describe('signing secrets at rest', () => {
  it('stores the secret sealed, never in plain text, and bound to its own row', async () => {
    const { key } = await t.createAccount('sealed');
    const id = await register(key, { url: 'https://hooks.example.com/sealed', secret: 'sealed-secret-value' });
    const [row] = await t.app.services.db.query<Record<string, unknown>>('SELECT * FROM "Webhook" WHERE id = $1', [id]);
    expect(row!.secret).toBeNull();
    expect(row!.sealedSecret).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain('sealed-secret-value');
    // Copied onto another webhook's row, the sealed value does not open: that row's deliveries fail instead of going unsigned.
    const other = await register(key, { url: `${receiver.url}/moved`, events: ['job.completed'] });
    await t.app.services.db.query('UPDATE "Webhook" SET "sealedSecret" = $1 WHERE id = $2', [row!.sealedSecret, other]);
    await scrape(key, '/gallery/3');
    const failed = await settledDelivery(key, other, (d) => d.last_error !== null);
    expect(failed.last_error).toMatch(/signing secret does not open/);
    expect(receiver.requests.filter((r) => r.path === '/moved')).toEqual([]);
    await t.request('DELETE', `/api/automation/webhooks/${other}`, { key });
  });

  it('seals rows stored in plain text before sealing (at start, idempotently), and signs their deliveries with the same secret', async () => {
    const { key } = await t.createAccount('legacy');
    const id = await register(key, { url: `${receiver.url}/legacy`, events: ['job.completed'] });
    // A row as the service wrote it before secrets were sealed.
    await t.app.services.db.query('UPDATE "Webhook" SET secret = $1, "sealedSecret" = NULL WHERE id = $2', ['legacy-plain-secret', id]);
    expect((await t.request('GET', '/api/automation/webhooks', { key })).body.webhooks.find((w: { id: number }) => w.id === id).has_secret).toBe(true);
    expect(await t.app.services.webhooks.sealPlaintextSecrets()).toBeGreaterThanOrEqual(1);
    expect(await t.app.services.webhooks.sealPlaintextSecrets()).toBe(0);
    const [row] = await t.app.services.db.query<Record<string, unknown>>('SELECT secret, "sealedSecret" FROM "Webhook" WHERE id = $1', [id]);
    expect(row).toEqual({ secret: null, sealedSecret: expect.stringMatching(/^v1\./) });
    expect((await t.request('GET', '/api/automation/webhooks', { key })).body.webhooks.find((w: { id: number }) => w.id === id).has_secret).toBe(true);

    await scrape(key, '/gallery/3');
    const [request] = await receiver.waitFor(1, '/legacy');
    expect(signatureValid('legacy-plain-secret', request!.body, request!.headers['x-service-signature'])).toBe(true);
  });
});

describe('job events', () => {
  it('delivers job.completed with the documented payload and a valid signature', async () => {
    const { key } = await t.createAccount('events');
    const hook = await register(key, { url: `${receiver.url}/completed`, secret: 'completed-secret' });
    const done = await scrape(key, '/gallery/3');
    expect(done.body.status).toBe('completed');

    const [request] = await receiver.waitFor(1, '/completed');
    expect(request!.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'job.completed',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      data: {
        job_id: done.body.job_id,
        kind: 'scrape',
        status: 'completed',
        assets_count: 1,
        error: null,
        poll_url: `/api/jobs/${done.body.job_id}`,
        finished_at: done.body.finished_at,
      },
    });
    expect(request!.headers['x-service-delivery']).toBe(request!.json.id);
    expect(request!.headers['x-service-event']).toBe('job.completed');
    expect(signatureValid('completed-secret', request!.body, request!.headers['x-service-signature'])).toBe(true);

    const delivered = await settledDelivery(key, hook);
    expect(delivered).toMatchObject({ id: request!.json.id, event: 'job.completed', job_id: done.body.job_id, status: 'delivered', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null });

    // The same log in GraphQL; deliveries are relay nodes only their webhook's owner can fetch.
    const log = await t.graphql('query($id: Int!) { webhook(id: $id) { deliveries { totalCount edges { node { id deliveryId status attempts } } } } }', { id: hook }, { key });
    const node = log.body.data.webhook.deliveries.edges[0].node;
    expect(node).toMatchObject({ deliveryId: request!.json.id, status: 'delivered', attempts: 1 });
    const byId = await t.graphql('query($id: ID!) { node(id: $id) { ... on WebhookDelivery { deliveryId } } }', { id: node.id }, { key });
    expect(byId.body.data.node).toEqual({ deliveryId: request!.json.id });
    const stranger = await t.createAccount('events');
    const hidden = await t.graphql('query($id: ID!) { node(id: $id) { id } }', { id: node.id }, { key: stranger.key });
    expect(hidden.body.data?.node ?? null).toBeNull();
  });

  it('delivers job.failed only to the webhooks subscribed to it', async () => {
    const { key } = await t.createAccount('events');
    const completedOnly = await register(key, { url: `${receiver.url}/only-completed`, events: ['job.completed'] });
    await register(key, { url: `${receiver.url}/only-failed`, events: ['job.failed'] });
    await register(key, { url: `${receiver.url}/all-events` });
    const done = await scrape(key, '/no-such-page');
    expect(done.body.status).toBe('failed');

    const [failed] = await receiver.waitFor(1, '/only-failed');
    const [all] = await receiver.waitFor(1, '/all-events');
    for (const request of [failed!, all!]) {
      expect(request.json).toMatchObject({ type: 'job.failed', data: { job_id: done.body.job_id, status: 'failed', error: done.body.error, assets_count: 0 } });
    }
    expect(failed!.json.id).not.toBe(all!.json.id); // one delivery (and id) per webhook
    expect(receiver.requests.filter((r) => r.path === '/only-completed')).toEqual([]);
    expect((await deliveries(key, completedOnly)).total).toBe(0);
  });

  it('does not deliver another account\'s events', async () => {
    const owner = await t.createAccount('events');
    const other = await t.createAccount('events');
    const hook = await register(owner.key, { url: `${receiver.url}/not-mine` });
    await scrape(other.key, '/gallery/3');
    expect((await deliveries(owner.key, hook)).total).toBe(0);
  });
});

describe('retries and the delivery log', () => {
  it('retries a receiver that answers 500 twice, then logs the delivery as delivered after 3 attempts', async () => {
    const { key } = await t.createAccount('retry');
    const hook = await register(key, { url: `${receiver.url}/flaky`, secret: 'flaky-secret' });
    receiver.respond([500, 500], '/flaky');
    await scrape(key, '/gallery/3');

    const requests = await receiver.waitFor(3, '/flaky');
    const delivered = await settledDelivery(key, hook);
    expect(delivered).toMatchObject({ status: 'delivered', attempts: 3, max_attempts: 6, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: expect.any(String) });
    // Every attempt is the same delivery: same id, same bytes, same signature.
    expect(new Set(requests.map((r) => r.headers['x-service-delivery']))).toEqual(new Set([delivered.id]));
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    for (const r of requests) expect(signatureValid('flaky-secret', r.body, r.headers['x-service-signature'])).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests.filter((r) => r.path === '/flaky')).toHaveLength(3);
  });

  it('gives up after the last attempt of the schedule and logs it as failed', async () => {
    const { key } = await t.createAccount('retry');
    const hook = await register(key, { url: `${receiver.url}/always-down` });
    receiver.respond(Array(20).fill(500), '/always-down');
    await scrape(key, '/gallery/3');

    const failed = await settledDelivery(key, hook);
    expect(failed).toMatchObject({ status: 'failed', attempts: RETRY_DELAYS.length + 1, last_status_code: 500, last_error: 'the receiver answered 500', next_attempt_at: null, delivered_at: null });
    expect(receiver.requests.filter((r) => r.path === '/always-down')).toHaveLength(RETRY_DELAYS.length + 1);
    const onlyFailed = await t.request('GET', `/api/automation/webhooks/${hook}/deliveries?status=failed`, { key });
    expect(onlyFailed.body.total).toBe(1);
    const lost = await t.request('GET', `/api/automation/webhooks/${hook}/deliveries?status=lost`, { key });
    expect(lost.status).toBe(400);
    expect(lost.body.error).toBe('status: expected pending, delivered, failed');
  });

  it('sends a due delivery once even when several deliverers claim at the same time', async () => {
    const { key } = await t.createAccount('race');
    const hook = await register(key, { url: `${receiver.url}/race` });
    await t.app.services.db.prisma.webhookDelivery.create({
      data: { deliveryId: randomUUID(), webhookId: hook, event: 'job.completed', body: '{"race":true}', nextAttemptAt: new Date(Date.now() - 1000) },
    });
    await Promise.all(Array.from({ length: 6 }, () => t.app.services.webhooks.deliverDue()));
    await receiver.waitFor(1, '/race');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests.filter((r) => r.path === '/race')).toHaveLength(1);
    expect((await settledDelivery(key, hook)).attempts).toBe(1);
  });

  it('refuses to send to a forbidden address even if one got into the table (the fetcher checks every attempt)', async () => {
    const { id: accountId, key } = await t.createAccount('ssrf');
    const hook = await t.app.services.db.prisma.webhook.create({ data: { accountId, url: 'http://169.254.169.254/latest/meta-data/', events: [] } });
    await t.app.services.db.prisma.webhookDelivery.create({
      data: { deliveryId: randomUUID(), webhookId: hook.id, event: 'job.completed', body: '{}', nextAttemptAt: new Date() },
    });
    await t.app.services.webhooks.deliverDue();
    const attempted = await settledDelivery(key, hook.id, (d) => d.last_error != null);
    expect(attempted.attempts).toBeGreaterThanOrEqual(1);
    expect(attempted).toMatchObject({ last_status_code: null, last_error: expect.stringMatching(/^refused to fetch http:\/\/169\.254\.169\.254\/: .*cloud metadata/) });
  });
});

describe('with the default configuration', () => {
  let strict: TestApp;
  beforeAll(async () => {
    strict = await startTestApp({ runWorkers: false });
  });
  afterAll(async () => {
    await strict?.stop();
  });

  it('refuses plain http targets with 400', async () => {
    for (const path of ['/api/automation/webhooks', '/api/automation/webhooks/test']) {
      const res = await strict.request('POST', path, { key: strict.ownerKey, body: { url: 'http://hooks.example.com/in' } });
      expect(res.status, path).toBe(400);
      expect(res.body.error).toMatch(/^url: expected an https:\/\/ URL \(plain http is refused unless the service sets WEBHOOK_ALLOW_HTTP=true\)/);
    }
  });
});
