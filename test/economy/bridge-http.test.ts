// The coin bridge with the http credit partner, against a small fake partner (node:http) that checks
// the signature and keeps credits by Idempotency-Key, as a real one must: the link is required, a
// confirmation posts the held coins, a refusal releases them, and a partner that does not answer
// leaves the conversion pending until the sweep asks again with the same key (credited once).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DEFAULT_ECONOMY } from '../../src/modules/economy/index.js';

const SECRET = 'partner-shared-secret-0123456789';

interface Received {
  key: string | undefined;
  body: Record<string, unknown>;
  signatureValid: boolean;
}

/** What the fake partner does with the next requests, in order; then 'ok'. */
type Behaviour = 'ok' | 'fail-503' | 'credit-then-500' | 'refuse' | 'hang';

class FakePartner {
  server!: Server;
  url = '';
  received: Received[] = [];
  /** Credits added per idempotency key (a repeat adds nothing). */
  credited = new Map<string, number>();
  script: Behaviour[] = [];

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/credits`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let text = '';
    for await (const chunk of req) text += chunk;
    const timestamp = String(req.headers['x-service-timestamp'] ?? '');
    const signature = String(req.headers['x-service-signature'] ?? '');
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${text}`).digest('hex');
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300;
    const signatureValid = fresh && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
    const key = req.headers['idempotency-key'] as string | undefined;
    const body = JSON.parse(text) as Record<string, unknown>;
    this.received.push({ key, body, signatureValid });
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (!signatureValid || !key) return answer(401, { error: 'bad signature' });
    const behaviour = this.script.shift() ?? 'ok';
    if (behaviour === 'hang') return; // never answers (the client's timeout ends it)
    if (behaviour === 'fail-503') return answer(503, { error: 'down for maintenance' });
    if (behaviour === 'refuse') return answer(404, { error: `no account ${String(body.partner_account)}` });
    if (!this.credited.has(key)) this.credited.set(key, Number(body.credits));
    if (behaviour === 'credit-then-500') return answer(500, { error: 'crashed after crediting' });
    answer(200, { reference: `ptr-${key.slice(-6)}` });
  }

  totalCredited(): number {
    return [...this.credited.values()].reduce((a, b) => a + b, 0);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

let t: TestApp;
const partner = new FakePartner();
beforeAll(async () => {
  await partner.start();
  t = await startTestApp({ economy: { ...DEFAULT_ECONOMY, partner: { kind: 'http', url: partner.url, secret: SECRET, timeoutMs: 500 } } });
});
afterAll(async () => {
  await t?.stop();
  await partner.stop();
});
beforeEach(() => {
  partner.script = [];
});

const grantCoins = (handle: string, amount: number) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });
const convert = (key: string, body: unknown) => t.request('POST', '/api/economy/bridge/convert', { key, body });
const link = (key: string, partnerAccount: string) => t.request('POST', '/api/economy/bridge/link', { key, body: { partner_account: partnerAccount } });
const wallet = (id: number) => t.app.services.ledger.wallet(id, 'coins');
/** Makes every pending conversion due now, as if its wait had passed. */
const makeDue = () => t.app.services.db.query(`UPDATE "BridgeConversion" SET "nextAttemptAt" = timezone('UTC', now()) - interval '1 second' WHERE "status" = 'pending'`);

async function linkedAccount(prefix: string, coins: number) {
  const account = await t.createAccount(prefix);
  await grantCoins(account.handle, coins);
  await link(account.key, `partner-${account.handle}`);
  return account;
}

describe('bridge with the http partner', () => {
  it('needs a linked partner account first: 409 naming the link route', async () => {
    const account = await t.createAccount('unlinked');
    await grantCoins(account.handle, 10);
    expect((await t.request('GET', '/api/economy/bridge/rate', { key: account.key })).body).toMatchObject({ partner: 'http', linked: false, partner_account: null });
    const res = await convert(account.key, { coins: 10 });
    expect(res.status).toBe(409);
    expect(res.body.error).toContain('POST /api/economy/bridge/link');
    expect((await wallet(account.id)).balance).toBe(100_000);
    const gql = await t.graphql('mutation { linkBridgeAccount(partnerAccount: "p-1") { ... on MutationLinkBridgeAccountSuccess { data { partner partnerAccount } } } }', {}, { key: account.key });
    expect(gql.body.data.linkBridgeAccount.data).toEqual({ partner: 'http', partnerAccount: 'p-1' });
    expect((await t.request('GET', '/api/economy/bridge/rate', { key: account.key })).body).toMatchObject({ linked: true, partner_account: 'p-1' });
  });

  it('sends a signed, idempotent POST; the confirmation burns the coins; no credits land here', async () => {
    const account = await linkedAccount('http-ok', 30);
    const res = await convert(account.key, { coins: 25 });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ coins_burned: 25, credits_added: 2.5, new_balance: 5, status: 'completed', partner: 'http', partner_account: `partner-${account.handle}` });
    const sent = partner.received.at(-1)!;
    expect(sent.signatureValid).toBe(true);
    expect(sent.key).toBe(res.body.conversion_id);
    expect(sent.body).toEqual({ conversion_id: res.body.conversion_id, partner_account: `partner-${account.handle}`, credits: 2.5, coins: 25, coins_per_credit: 10, created_at: expect.stringMatching(/Z$/) });
    expect(partner.credited.get(res.body.conversion_id)).toBe(2.5);
    expect(await wallet(account.id)).toMatchObject({ balance: 50_000, reserved: 0 });
    expect((await t.app.services.ledger.wallet(account.id, 'credits')).balance).toBe(0);
    expect(await t.app.services.ledger.systemBalance('bridge', 'coins')).toBeGreaterThanOrEqual(250_000);
  });

  it('holds the coins while the partner is down, and the retry with the same key credits once', async () => {
    const account = await linkedAccount('http-down', 10);
    partner.script = ['fail-503'];
    const res = await convert(account.key, { coins: 10 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'pending', coins_burned: 10, credits_added: 1, new_balance: 0, attempts: 1, message: 'the credit partner answered HTTP 503' });
    // Held, not spent: the balance is whole, none of it spendable.
    expect(await wallet(account.id)).toMatchObject({ balance: 100_000, reserved: 100_000, available: 0 });
    expect((await convert(account.key, { coins: 1 })).status).toBe(402);
    // Not due yet: the sweep leaves it alone.
    expect(await t.app.services.economy.bridge.retryDue()).toBe(0);
    await makeDue();
    expect(await t.app.services.economy.bridge.retryDue()).toBe(1);
    const read = await t.request('GET', `/api/economy/bridge/conversions/${res.body.conversion_id}`, { key: account.key });
    expect(read.body).toMatchObject({ status: 'completed', attempts: 2, coins_burned: 10, new_balance: 0, message: null, completed_at: expect.stringMatching(/Z$/) });
    expect(await wallet(account.id)).toMatchObject({ balance: 0, reserved: 0 });
    const attempts = partner.received.filter((r) => r.key === res.body.conversion_id);
    expect(attempts).toHaveLength(2);
    expect(attempts.every((a) => a.signatureValid)).toBe(true);
    expect(partner.credited.get(res.body.conversion_id)).toBe(1);
  });

  it('does not credit twice when the partner credited but its answer was lost (client retry with the same idempotency key)', async () => {
    const account = await linkedAccount('http-lost', 20);
    const before = partner.totalCredited();
    partner.script = ['credit-then-500'];
    const first = await convert(account.key, { coins: 20, idempotency_key: 'k-1' });
    expect(first.body).toMatchObject({ status: 'pending' });
    // The client retries with its key: the partner is asked again with the same Idempotency-Key.
    const again = await convert(account.key, { coins: 20, idempotency_key: 'k-1' });
    expect(again.body).toMatchObject({ conversion_id: first.body.conversion_id, status: 'completed', replayed: true, coins_burned: 20, credits_added: 2, new_balance: 0 });
    expect(partner.totalCredited() - before).toBe(2);
    expect(partner.received.filter((r) => r.key === first.body.conversion_id)).toHaveLength(2);
    // A third call changes nothing and asks nobody.
    const third = await convert(account.key, { coins: 20, idempotency_key: 'k-1' });
    expect(third.body).toMatchObject({ status: 'completed', replayed: true });
    expect(partner.received.filter((r) => r.key === first.body.conversion_id)).toHaveLength(2);
    expect(await wallet(account.id)).toMatchObject({ balance: 0, reserved: 0 });
  });

  it('releases the coins when the partner refuses (409, nothing spent)', async () => {
    const account = await linkedAccount('http-refused', 10);
    partner.script = ['refuse'];
    const res = await convert(account.key, { coins: 10 });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe(`the credit partner refused the conversion: no account partner-${account.handle} (HTTP 404); no coins were spent`);
    expect(await wallet(account.id)).toMatchObject({ balance: 100_000, reserved: 0, available: 100_000 });
    // The coins are free again: the next conversion (partner fine) goes through.
    expect((await convert(account.key, { coins: 10 })).body).toMatchObject({ status: 'completed', new_balance: 0 });
  });

  it('times out a partner that does not answer; the sweep completes it later and gives up after the horizon', async () => {
    const account = await linkedAccount('http-hang', 6);
    partner.script = ['hang'];
    const res = await convert(account.key, { coins: 3 });
    expect(res.body).toMatchObject({ status: 'pending', message: 'the credit partner could not be reached: no answer within 500 ms' });
    await makeDue();
    await t.app.services.economy.bridge.retryDue();
    expect((await t.request('GET', `/api/economy/bridge/conversions/${res.body.conversion_id}`, { key: account.key })).body.status).toBe('completed');
    // One that stays unanswered past the retry horizon is given up: its coins come back.
    partner.script = ['fail-503'];
    const stuck = await convert(account.key, { coins: 3 });
    expect(stuck.body.status).toBe('pending');
    await t.app.services.db.query(`UPDATE "BridgeConversion" SET "createdAt" = "createdAt" - interval '25 hours', "nextAttemptAt" = timezone('UTC', now()) - interval '1 second' WHERE "id" = $1`, [stuck.body.conversion_id]);
    partner.script = ['fail-503'];
    await t.app.services.economy.bridge.retryDue();
    const read = await t.request('GET', `/api/economy/bridge/conversions/${stuck.body.conversion_id}`, { key: account.key });
    expect(read.body).toMatchObject({ status: 'failed', coins_burned: 0, credits_added: 0, new_balance: 3 });
    expect(read.body.message).toMatch(/did not answer for 24 hours .*the coins were released/);
    expect(await wallet(account.id)).toMatchObject({ balance: 30_000, reserved: 0 });
  });

  it('lets one of several concurrent conversions of the whole balance through', async () => {
    const account = await linkedAccount('http-race', 5);
    const results = await Promise.all(Array.from({ length: 6 }, () => convert(account.key, { coins: 5 })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 402, 402, 402, 402, 402]);
    expect(await wallet(account.id)).toMatchObject({ balance: 0, reserved: 0 });
    expect(await t.app.services.ledger.trialBalance('coins')).toBe(0);
  });
});
