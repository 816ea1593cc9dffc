// The operator CLI (src/cli/main.ts) run as a child process against a real service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';
import { form, scene } from '../helpers/images.js';

let t: TestApp;

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(args, { ADMIN_TOKEN, SERVICE_URL: t.url, ...env });

/** Runs the CLI, expects success and exactly one JSON line on stdout. */
async function cliJson(args: string[]) {
  const result = await cli(args);
  expect(result, result.stderr).toMatchObject({ code: 0 });
  const lines = result.stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

const statusWith = async (key: string) => (await t.request('GET', '/api/live-editor/status', { key })).status;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe('operator CLI', () => {
  const handle = `cli-${Date.now()}`;
  let key = '';

  it('account create prints one JSON line with a working key', async () => {
    const created = await cliJson(['account', 'create', '--handle', handle, '--email', 'ops@example.com']);
    expect(Object.keys(created).slice(0, 3)).toEqual(['account_id', 'handle', 'api_key']);
    expect(created).toMatchObject({ handle, account_id: expect.any(Number), api_key: expect.stringMatching(/^mk_/) });
    key = created.api_key;
    expect(await statusWith(key)).toBe(200);
  });

  it('suspend blocks the key and activate restores it', async () => {
    expect(await cliJson(['account', 'suspend', handle])).toMatchObject({ handle, status: 'suspended' });
    expect(await statusWith(key)).toBe(403);
    expect(await cliJson(['account', 'activate', handle])).toMatchObject({ handle, status: 'active' });
    expect(await statusWith(key)).toBe(200);
  });

  it('account tier and account show', async () => {
    expect(await cliJson(['account', 'tier', handle, 'tiny'])).toMatchObject({ handle, tier: 'tiny' });
    const shown = await cliJson(['account', 'show', handle]);
    expect(shown).toMatchObject({ handle, tier: 'tiny', status: 'active', email: 'ops@example.com' });
    expect(Object.keys(shown).sort()).toEqual(['account_id', 'created_at', 'email', 'handle', 'status', 'tier']);
  });

  it('key rotate replaces the key at once', async () => {
    const rotated = await cliJson(['key', 'rotate', handle]);
    expect(Object.keys(rotated)).toEqual(['account_id', 'handle', 'api_key']);
    expect(rotated.api_key).toMatch(/^mk_/);
    expect(rotated.api_key).not.toBe(key);
    expect(await statusWith(key)).toBe(401);
    expect(await statusWith(rotated.api_key)).toBe(200);
  });

  it('an unknown handle exits 1 with error: on stderr', async () => {
    const result = await cli(['account', 'show', 'no-such-handle-here']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: /);
  });

  it('a wrong admin token exits 1 and is never printed', async () => {
    const wrong = 'wrong-admin-token-0123456789';
    const result = await cli(['account', 'show', handle], { ADMIN_TOKEN: wrong });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stdout + result.stderr).not.toContain(wrong);
  });

  it('an unreachable service exits 1 naming the URL', async () => {
    const result = await cli(['account', 'show', handle, '--url', 'http://127.0.0.1:1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('http://127.0.0.1:1');
    expect(result.stderr).toContain('npm start');
  });

  it('no admin token anywhere exits 1 saying where it looked', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cli-no-token-'));
    try {
      const result = await cli(['account', 'show', handle], { ADMIN_TOKEN: undefined, DATA_DIR: empty });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(join(empty, 'admin-token'));
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('operator CLI: ownership claims', () => {
  it('claims list shows pending claims one per line, and approve and reject review them once', async () => {
    const uploader = await t.createAccount('cli-uploader');
    const claimant = await t.createAccount('cli-claimant');
    const upload = await t.request('POST', '/api/community/contribute', { key: uploader.key, form: form({ body: await scene(8801), name: 'c.jpg', type: 'image/jpeg' }) });
    const claim = await t.request('POST', `/api/community/${upload.body.id}/claim`, { key: claimant.key, body: { kind: 'removal', reason: 'my photo' } });
    expect(claim.status, claim.text).toBe(201);

    const listed = await cli(['claims', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.find((c) => c.id === claim.body.id)).toMatchObject({ item_id: upload.body.id, claimant: claimant.handle, kind: 'removal', status: 'pending' });

    expect(await cliJson(['claims', 'approve', String(claim.body.id)])).toMatchObject({ id: claim.body.id, status: 'approved' });
    const twice = await cli(['claims', 'reject', String(claim.body.id)]);
    expect([twice.code, twice.stderr.trim()]).toEqual([1, `error: claim ${claim.body.id} was already approved`]);
    const bad = await cli(['claims', 'approve', 'seven']);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'error: id: expected a claim id, not seven']);
    expect((await t.request('GET', `/api/community/${upload.body.id}`, { key: claimant.key })).status).toBe(404);
  });
});

describe('operator CLI: wiki review', () => {
  it('wiki pending lists subjects to review, and approve pays the creator once', async () => {
    const creator = await t.createAccount('cli-wiki');
    const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: `Ponte Vecchio ${Date.now()}`, category: 'bridge' } });
    const pending = await cli(['wiki', 'pending']);
    expect(pending.code, pending.stderr).toBe(0);
    const lines = pending.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.find((s) => s.slug === made.body.slug)).toMatchObject({ status: 'pending', category: 'bridge', creator: creator.handle });
    expect(await cliJson(['wiki', 'approve', made.body.slug])).toMatchObject({ slug: made.body.slug, status: 'approved' });
    const twice = await cli(['wiki', 'reject', made.body.slug]);
    expect([twice.code, twice.stderr.trim()]).toEqual([1, `error: subject ${made.body.slug} was already approved`]);
    expect((await t.app.services.ledger.wallet(creator.id, 'coins')).balance).toBe(10 * 10_000);
  });
});

describe('operator CLI: money', () => {
  it('credits grant adds credits once per idempotency key', async () => {
    const account = await t.createAccount('cli-credits');
    const granted = await cliJson(['credits', 'grant', account.handle, '12.5', '--reference', 'welcome', '--idempotency-key', `welcome-${account.id}`]);
    expect(granted).toMatchObject({ account_id: account.id, handle: account.handle, amount: 12.5, balance: 12.5, replayed: false });
    const again = await cliJson(['credits', 'grant', account.handle, '12.5', '--reference', 'welcome', '--idempotency-key', `welcome-${account.id}`]);
    expect(again).toMatchObject({ balance: 12.5, replayed: true, transfer_id: granted.transfer_id });
    const res = await t.request('GET', '/api/media/credits', { key: account.key });
    expect(res.body).toMatchObject({ balance: 12.5, total_added: 12.5, entries: [{ amount: 12.5, action: 'grant', reference: 'welcome' }] });
    const bad = await cli(['credits', 'grant', account.handle, 'lots']);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'error: amount: expected a number of credits, not lots']);
    const negative = await cli(['credits', 'grant', account.handle, '--', '-3']);
    expect([negative.code, negative.stderr.trim()]).toEqual([1, 'error: amount: expected a positive amount']);
  });

  it('rewards show and set change rates and caps', async () => {
    const shown = await cliJson(['rewards', 'show']);
    expect(shown.rates).toMatchObject({ community_upload: 2, tagging: 0.5, coin_multiplier: 1, referral_commission_percent: 10 });
    expect(shown.daily_caps).toMatchObject({ tagging: 200 });
    expect((await cliJson(['rewards', 'set', 'intel_comment', '0.2'])).rates.intel_comment).toBe(0.2);
    expect((await cliJson(['rewards', 'set', 'cap.intel_comment', 'none'])).daily_caps.intel_comment).toBeNull();
    expect((await cliJson(['rewards', 'set', 'cap.intel_comment', '100'])).daily_caps.intel_comment).toBe(100);
    expect((await cliJson(['rewards', 'set', 'intel_comment', '0.1'])).rates.intel_comment).toBe(0.1);
    const unknown = await cli(['rewards', 'set', 'lottery', '1']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error: rates\.lottery: unknown rate/);
  });
});

describe('operator CLI: challenges', () => {
  it('challenge create opens one over a category or subjects, list shows them, end ends one once', async () => {
    const creator = await t.createAccount('cli-challenge');
    const made = await t.request('POST', '/api/wiki/subjects', { key: creator.key, body: { name: `Rialto ${Date.now()}`, category: 'cli-bridge' } });
    await t.request('POST', `/api/admin/wiki/subjects/${encodeURIComponent(made.body.slug)}/approve`, { admin: true });
    const hour = new Date(Date.now() + 3_600_000).toISOString();
    const twoHours = new Date(Date.now() + 7_200_000).toISOString();

    const now = await cliJson(['challenge', 'create', '--title', 'Bridges', '--category', 'CLI-Bridge', '--ends', hour, '--description', 'which bridge is it?']);
    expect(Object.keys(now)).toEqual(['id', 'title', 'scope', 'category', 'subjects', 'starts_at', 'ends_at', 'ended_at', 'status', 'pending_photos']);
    expect(now).toMatchObject({ title: 'Bridges', scope: 'category', category: 'cli-bridge', subjects: [], ends_at: hour, ended_at: null, status: 'active' });
    const later = await cliJson(['challenge', 'create', '--title', 'Rialto only', '--subjects', `${made.body.slug}, `, '--starts', hour, '--ends', twoHours]);
    expect(later).toMatchObject({ scope: 'subjects', category: null, subjects: [made.body.slug], starts_at: hour, status: 'scheduled' });

    const overlap = await cli(['challenge', 'create', '--title', 'Clash', '--category', 'cli-bridge', '--ends', twoHours]);
    expect(overlap.code).toBe(1);
    expect(overlap.stderr).toMatch(new RegExp(`^error: the window overlaps challenge ${now.id} `));
    const noScope = await cli(['challenge', 'create', '--title', 'Nothing', '--starts', twoHours, '--ends', new Date(Date.now() + 10_800_000).toISOString()]);
    expect([noScope.code, noScope.stderr]).toEqual([1, expect.stringMatching(/^error: category or subjects is required/)]);

    const listed = await cli(['challenge', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n').map((line) => JSON.parse(line).id)).toEqual([later.id, now.id]);
    const active = await cli(['challenge', 'list', '--status', 'active']);
    expect(active.stdout.trim().split('\n').map((line) => JSON.parse(line))).toEqual([expect.objectContaining({ id: now.id, status: 'active' })]);

    const ended = await cliJson(['challenge', 'end', String(now.id)]);
    expect(ended).toMatchObject({ id: now.id, status: 'ended', ended_at: expect.any(String) });
    const twice = await cli(['challenge', 'end', String(now.id)]);
    expect([twice.code, twice.stderr.trim()]).toEqual([1, `error: challenge ${now.id} ended already (${ended.ended_at})`]);
    expect(await cliJson(['challenge', 'end', String(later.id)])).toMatchObject({ id: later.id, status: 'ended', ends_at: hour });
    const bad = await cli(['challenge', 'end', 'seven']);
    expect([bad.code, bad.stderr.trim()]).toEqual([1, 'error: id: expected a challenge id, not seven']);
  });
});
