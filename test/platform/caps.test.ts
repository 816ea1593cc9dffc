// Caps on how many of a thing an owner may have, under a burst of concurrent creates (issue 20:
// PostgreSQL made 130 sub-keys under a cap of 100, 40 webhooks under 25, 300 schedules under 50;
// PGlite held with its one connection). Every capped create goes through
// src/platform/database/caps.ts; this matrix sends 150 creates at once for each cap and expects
// exactly the cap to succeed and the rest to get the 409 naming it, on both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { testTelegramConfig } from '../fixtures/telegram/fake-bot-api.js';
import { MAX_LIVE_CODES } from '../../src/modules/bot/index.js';
import { MAX_ITEMS_PER_LIST } from '../../src/modules/stock-lists/index.js';

const BURST = 150;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ fetch: LOCAL_FETCH, telegram: testTelegramConfig() });
});
afterAll(() => t.stop());

interface CapCase {
  limit: () => number;
  /** What each of the burst's requests sends; `owner` is prepared once per case (a list id). */
  prepare?: (key: string) => Promise<string>;
  request: (i: number, owner: string) => { method: string; path: string; body?: unknown };
  /** How many the owner holds afterwards, read back through the API. */
  held: (key: string, owner: string) => Promise<number>;
  refusal: RegExp;
  /** Units one successful request adds (items per stock-list add). */
  perRequest?: number;
}

const ITEMS_PER_ADD = 10;

const cases: Record<string, CapCase> = {
  'sub-keys per account': {
    limit: () => t.config.subKeysPerAccount,
    request: (i) => ({ method: 'POST', path: '/api/platform/sub-keys', body: { label: `burst ${i}` } }),
    held: async (key) => (await t.request('GET', '/api/platform/sub-keys?limit=200', { key })).body.sub_keys.length,
    refusal: /live sub-keys \(the limit is \d+\)/,
  },
  'webhooks per account': {
    limit: () => t.config.webhooks.perAccount,
    request: (i) => ({ method: 'POST', path: '/api/automation/webhooks', body: { url: `https://hooks.example.com/burst/${i}` } }),
    held: async (key) => (await t.request('GET', '/api/automation/webhooks', { key })).body.webhooks.length,
    refusal: /webhooks \(the limit is \d+\)/,
  },
  'schedules per account': {
    limit: () => t.config.schedules.perAccount,
    request: (i) => ({ method: 'POST', path: '/api/automation/schedules', body: { url: `https://example.com/burst/${i}`, name: `burst ${i}`, schedule: 'daily', hour: 6 } }),
    held: async (key) => (await t.request('GET', '/api/automation/schedules', { key })).body.schedules.length,
    refusal: /schedules \(the limit is \d+\)/,
  },
  'unused Telegram link codes per account': {
    limit: () => MAX_LIVE_CODES,
    request: () => ({ method: 'POST', path: '/api/platform/bot-link' }),
    held: async (key) => {
      const actor = await t.app.services.auth.authenticate(key);
      return t.app.services.db.prisma.botLinkCode.count({ where: { accountId: actor.accountId } });
    },
    refusal: /unused link codes/,
  },
  'items per stock list': {
    limit: () => MAX_ITEMS_PER_LIST,
    perRequest: ITEMS_PER_ADD,
    prepare: async (key) => String((await t.request('POST', '/api/media/stock/lists', { key, body: { name: 'burst' } })).body.list_id),
    request: (i, list) => ({
      method: 'POST',
      path: `/api/media/stock/lists/${list}/items`,
      body: { items: Array.from({ length: ITEMS_PER_ADD }, (_, j) => ({ url: `https://stock.example.com/${i}/${j}.jpg` })) },
    }),
    held: async (key, list) => (await t.request('GET', `/api/media/stock/lists/${list}`, { key })).body.item_count,
    refusal: /the most is \d+/,
  },
};

describe(`per-owner caps under ${BURST} concurrent creates`, () => {
  it.each(Object.entries(cases))('%s: exactly the cap succeeds, the rest get 409', async (name, c) => {
    const account = await t.createAccount(name.split(' ')[0]!.toLowerCase());
    const owner = c.prepare ? await c.prepare(account.key) : '';
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => {
        const r = c.request(i, owner);
        return t.request(r.method, r.path, { key: account.key, body: r.body });
      }),
    );
    const statuses = answers.map((a) => a.status);
    const perRequest = c.perRequest ?? 1;
    const fits = Math.floor(c.limit() / perRequest);
    expect(statuses.filter((s) => s === 201 || s === 200).length, JSON.stringify([...new Set(answers.map((a) => `${a.status} ${a.body?.error ?? ''}`))])).toBe(fits);
    const refused = answers.filter((a) => a.status === 409);
    expect(refused).toHaveLength(BURST - fits);
    for (const answer of refused) expect(answer.body).toMatchObject({ success: false, error: expect.stringMatching(c.refusal) });
    expect(await c.held(account.key, owner)).toBe(fits * perRequest);
  });
});
