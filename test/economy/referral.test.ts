// Referrals: every account's referral code, accounts created with `referred_by` (admin API, GraphQL),
// GET /api/economy/referral with the commission the rewards service paid (10% of each reward of a
// referral), and the commission sum read through its partial index.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const referral = (key: string) => t.request('GET', '/api/economy/referral', { key });
let made = 0;
const createReferred = (code: string | undefined, handle = `referee-${++made}`) => t.request('POST', '/api/admin/accounts', { admin: true, body: { handle, referred_by: code } });

describe('referral codes', () => {
  it('every account has its own code: 12 uppercase hex characters, the same on every read', async () => {
    const a = await t.createAccount('code-a');
    const b = await t.createAccount('code-b');
    const first = await referral(a.key);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body)).toEqual(['success', 'referral_code', 'referral_url', 'total_referrals', 'commission_earned']);
    expect(first.body).toEqual({ success: true, referral_code: expect.stringMatching(/^[0-9A-F]{12}$/), referral_url: `${t.url}/signup?ref=${first.body.referral_code}`, total_referrals: 0, commission_earned: 0 });
    expect((await referral(a.key)).body.referral_code).toBe(first.body.referral_code);
    expect((await referral(b.key)).body.referral_code).not.toBe(first.body.referral_code);
    // The link leads to a page that names the inviter and how the operator creates the referred account.
    const page = await fetch(first.body.referral_url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const text = await page.text();
    expect(text).toContain(`You were invited by ${a.handle}`);
    expect(text).toContain(`--referred-by ${first.body.referral_code}`);
    // The code in any case; an unknown or malformed one is a 404 page that names nobody.
    expect((await fetch(`${t.url}/signup?ref=${first.body.referral_code.toLowerCase()}`)).status).toBe(200);
    for (const ref of ['ABCDEF012345', '<script>', '']) {
      const missing = await fetch(`${t.url}/signup?ref=${encodeURIComponent(ref)}`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).not.toContain('invited by');
    }
    // The admin answer shows it too.
    const shown = await t.request('GET', `/api/admin/accounts/${a.handle}`, { admin: true });
    expect(shown.body).toMatchObject({ referral_code: first.body.referral_code, referred_by: null });
  });

  it('uses PUBLIC_BASE_URL for the link when set', async () => {
    const other = await startTestApp({ publicBaseUrl: 'https://images.example.org' });
    try {
      const res = await other.request('GET', '/api/economy/referral', { key: other.ownerKey });
      expect(res.body.referral_url).toBe(`https://images.example.org/signup?ref=${res.body.referral_code}`);
    } finally {
      await other.stop();
    }
  });

  it('needs a key (any key: a sub-key of any scope reads it)', async () => {
    const account = await t.createAccount('code-keys');
    expect((await t.request('GET', '/api/economy/referral')).status).toBe(401);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'search' } });
    expect((await referral(sub.body.sub_key)).body.referral_code).toBe((await referral(account.key)).body.referral_code);
  });
});

describe('accounts created with referred_by', () => {
  it('attach the new account to the code owner (any case, spaces trimmed); an unknown code is a 400 naming referred_by', async () => {
    const referrer = await t.createAccount('referrer');
    const code = (await referral(referrer.key)).body.referral_code as string;
    const created = await createReferred(`  ${code.toLowerCase()} `);
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ referred_by: referrer.handle, referral_code: expect.stringMatching(/^[0-9A-F]{12}$/) });
    expect(created.body.referral_code).not.toBe(code);
    expect((await referral(referrer.key)).body.total_referrals).toBe(1);

    const unknown = await createReferred('FFFFFFFFFFFF');
    expect([unknown.status, unknown.body.error]).toEqual([400, 'referred_by: no account has the referral code FFFFFFFFFFFF']);
    const malformed = await createReferred('not a code!');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatch(/^referred_by: expected a referral code/);
    const wrongType = await t.request('POST', '/api/admin/accounts', { admin: true, body: { handle: `referee-${++made}`, referred_by: 42 } });
    expect([wrongType.status, wrongType.body.error]).toEqual([400, 'referred_by: expected a string']);
    // Nothing was created by the refused calls.
    expect((await referral(referrer.key)).body.total_referrals).toBe(1);
  });

  it('through GraphQL adminCreateAccount(referredBy)', async () => {
    const referrer = await t.createAccount('gql-referrer');
    const code = (await referral(referrer.key)).body.referral_code as string;
    const res = await t.graphql(
      'mutation($code: String) { adminCreateAccount(handle: "gql-referee", referredBy: $code) { ... on MutationAdminCreateAccountSuccess { data { account { referredBy } } } } }',
      { code },
      { admin: true },
    );
    expect(res.body.data.adminCreateAccount.data.account.referredBy).toBe(referrer.handle);
  });

  it("pays the referrer 10% of the referee's rewards, shown as commission_earned", async () => {
    const referrer = await t.createAccount('earner-referrer');
    const code = (await referral(referrer.key)).body.referral_code as string;
    const referee = (await createReferred(code)).body as { account_id: number };
    const second = (await createReferred(code)).body as { account_id: number };
    const paid = await t.app.services.rewards.award(referee.account_id, 'community_upload', 'media:1');
    expect(paid).toMatchObject({ status: 'paid', coins: 2, commission: { accountId: referrer.id, coins: 0.2 } });
    await t.app.services.rewards.award(referee.account_id, 'tag_verified_bonus', 'media:1');
    await t.app.services.rewards.award(second.account_id, 'wiki_subject', 'subject:eiffel');
    // A replayed award pays no second commission.
    await t.app.services.rewards.award(referee.account_id, 'community_upload', 'media:1');
    const res = await referral(referrer.key);
    expect(res.body).toMatchObject({ total_referrals: 2, commission_earned: 0.2 + 0.025 + 1 });
    // The referrer's own rewards are not commission.
    await t.app.services.rewards.award(referrer.id, 'wiki_vote', 'vote:1');
    expect((await referral(referrer.key)).body.commission_earned).toBe(1.225);
    const gql = await t.graphql('{ referral { code url totalReferrals commissionEarned } }', {}, { key: referrer.key });
    expect(gql.body.data.referral).toEqual({ code, url: `${t.url}/signup?ref=${code}`, totalReferrals: 2, commissionEarned: 1.225 });
  });

  it('sums commissions through the partial index of commission transfers', async () => {
    const rows = await t.app.services.db.withConnection(async (conn) => {
      await conn.query('SET enable_seqscan = off');
      try {
        return await conn.query<{ 'QUERY PLAN': string }>(
          `EXPLAIN SELECT coalesce(sum(t."amount"), 0) FROM "LedgerTransfer" t WHERE t."action" = 'referral_commission' AND t."creditAccountId" = 1`,
        );
      } finally {
        await conn.query('RESET enable_seqscan');
      }
    });
    expect(rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('LedgerTransfer_referral_commission_idx');
  });
});
