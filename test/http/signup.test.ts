// Where a referral link leads (GET /signup?ref=<code>). Sign-up closed (default): the page gives the
// operator's command, and that command (run as printed) creates the account with the referral.
// Sign-up open (SIGNUP_OPEN): a form that creates the referred account and shows its key once,
// refusing posts from other origins and counting sign-ups per address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { SIGNUPS_PER_ADDRESS_PER_HOUR } from '../../src/http/signup.js';

async function codeOf(t: TestApp, key: string): Promise<string> {
  return (await t.request('GET', '/api/economy/referral', { key })).body.referral_code as string;
}

function unescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

describe('sign-up closed (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.stop());

  it("shows the operator's command, which creates the referred account as printed; the form post is refused", async () => {
    const inviter = await t.createAccount('closed-inviter');
    const code = await codeOf(t, inviter.key);
    const page = await fetch(`${t.url}/signup?ref=${code}`);
    expect(page.status).toBe(200);
    const raw = await page.text();
    const text = unescape(raw);
    expect(text).toContain(`You were invited by ${inviter.handle}`);
    expect(text).toContain('SIGNUP_OPEN=true');
    expect(text).not.toContain('<form');
    const command = unescape(/<pre>(npm run cli -- account create [^<]+)<\/pre>/.exec(raw)![1]!);
    const handle = `referred-${Date.now() % 1_000_000}`;
    const args = command.replace('npm run cli -- ', '').replace('<handle>', handle).split(' ');
    const out = await runCli(args, { ADMIN_TOKEN, SERVICE_URL: t.url });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ handle, referred_by: inviter.handle, api_key: expect.stringMatching(/^mk_/) });

    const post = await fetch(`${t.url}/signup`, { method: 'POST', headers: { Origin: t.url, 'Content-Type': 'application/x-www-form-urlencoded' }, body: `ref=${code}&handle=someone` });
    expect(post.status).toBe(403);
    expect(await post.text()).toContain('Sign-up is not open on this service');
    expect((await t.request('GET', '/api/admin/accounts/someone', { admin: true })).status).toBe(404);
  }, 60_000);
});

describe('sign-up open (SIGNUP_OPEN=true)', () => {
  let t: TestApp;
  let code: string;
  let inviter: { handle: string; key: string };
  beforeAll(async () => {
    t = await startTestApp({ signup: { open: true } });
    inviter = await t.createAccount('open-inviter');
    code = await codeOf(t, inviter.key);
  });
  afterAll(() => t.stop());

  const post = (fields: Record<string, string>, origin: string | null = t.url) =>
    fetch(`${t.url}/signup`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(origin ? { Origin: origin } : {}) },
      body: new URLSearchParams(fields).toString(),
    });

  it('creates the referred account from the form and shows its key once', async () => {
    const page = await fetch(`${t.url}/signup?ref=${code.toLowerCase()}`);
    expect(page.status).toBe(200);
    const form = await page.text();
    expect(form).toContain(`You were invited by ${inviter.handle}`);
    expect(form).toContain('<form method="post" action="/signup">');
    expect(form).toContain(`name="ref" value="${code}"`);

    const created = await post({ ref: code, handle: 'Newcomer' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const shown = await created.text();
    expect(shown).toContain('Welcome, newcomer');
    const key = /<pre class="key">(mk_[^<]+)<\/pre>/.exec(shown)![1]!;
    expect((await t.request('GET', '/api/live-editor/status', { key })).status).toBe(200);
    const account = await t.request('GET', '/api/admin/accounts/newcomer', { admin: true });
    expect(account.body).toMatchObject({ handle: 'newcomer', referred_by: inviter.handle, tier: 'standard' });
    expect((await t.request('GET', '/api/economy/referral', { key: inviter.key })).body.total_referrals).toBe(1);
  });

  it('refuses a post without this origin (another site, or none), a bad or taken handle and an unknown code, with clear words', async () => {
    for (const origin of ['https://evil.example', null, 'null']) {
      const refused = await post({ ref: code, handle: 'csrf-victim' }, origin);
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain('This form can only be sent from its own page on this site');
    }
    expect((await t.request('GET', '/api/admin/accounts/csrf-victim', { admin: true })).status).toBe(404);

    const bad = await post({ ref: code, handle: 'no spaces!' });
    expect(bad.status).toBe(400);
    const badText = unescape(await bad.text());
    expect(badText).toContain('handle: expected 2 to 32 characters');
    expect(badText).toContain('value="no spaces!"');
    const taken = await post({ ref: code, handle: inviter.handle });
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('an account with this handle already exists');
    expect((await post({ ref: code, handle: '' })).status).toBe(400);
    const unknown = await post({ ref: 'FFFFFFFFFFFF', handle: 'nobody-here' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('This invitation link is not valid');
  });

  it(`allows ${SIGNUPS_PER_ADDRESS_PER_HOUR} sign-ups an hour from one address (refused handles not counted), then 429 with Retry-After`, async () => {
    // The first test made one from this address; the refused ones above gave theirs back.
    for (let i = 1; i < SIGNUPS_PER_ADDRESS_PER_HOUR; i++) expect((await post({ ref: code, handle: `limit-${i}` })).status).toBe(201);
    const refused = await post({ ref: code, handle: 'limit-last' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many sign-ups right now');
    expect((await t.request('GET', '/api/admin/accounts/limit-last', { admin: true })).status).toBe(404);
  });
});
