// Style presets: GET /api/economy/styles (free and premium, unlocked per caller), POST
// /api/economy/styles/{slug}/unlock (charged once, idempotent, free ones free, 404, 402, concurrent
// unlocks charging once), STYLES_PREMIUM, and requireUsable for the generate route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DEFAULT_ECONOMY, StyleLocked } from '../../src/modules/economy/index.js';
import { AppError } from '../../src/platform/errors.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ economy: { ...DEFAULT_ECONOMY, premiumStyles: { noir: 5, watercolor: 8.5 } } });
});
afterAll(() => t?.stop());

const grantCoins = (handle: string, amount: number) => t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount } });
const unlock = (key: string | undefined, slug: string) => t.request('POST', `/api/economy/styles/${slug}/unlock`, { key });
const styles = (key: string) => t.request('GET', '/api/economy/styles', { key });
const coinsOf = async (id: number) => (await t.app.services.ledger.wallet(id, 'coins')).balance / 10_000;

describe('GET /api/economy/styles', () => {
  it('lists the four free presets, then the configured premium ones, with what the caller unlocked', async () => {
    const account = await t.createAccount('styles');
    const res = await styles(account.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      styles: [
        { slug: 'professional', name: 'Professional', premium: false, price_coins: 0, unlocked: true },
        { slug: 'cinematic', name: 'Cinematic', premium: false, price_coins: 0, unlocked: true },
        { slug: 'minimalist', name: 'Minimalist', premium: false, price_coins: 0, unlocked: true },
        { slug: 'cyberpunk', name: 'Cyberpunk', premium: false, price_coins: 0, unlocked: true },
        { slug: 'noir', name: 'Noir', premium: true, price_coins: 5, unlocked: false },
        { slug: 'watercolor', name: 'Watercolor', premium: true, price_coins: 8.5, unlocked: false },
      ],
    });
    // Any key reads it; none is a 401.
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'generate' } });
    expect((await styles(sub.body.sub_key)).status).toBe(200);
    expect((await t.request('GET', '/api/economy/styles')).status).toBe(401);
  });
});

describe('POST /api/economy/styles/{slug}/unlock', () => {
  it('charges a premium preset once, into fees; again answers success with nothing charged', async () => {
    const account = await t.createAccount('unlock');
    await grantCoins(account.handle, 12);
    const fees = await t.app.services.ledger.systemBalance('fees', 'coins');
    const first = await unlock(account.key, 'noir');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ success: true, slug: 'noir', name: 'Noir', premium: true, price_coins: 5, unlocked: true, charged: 5, already_unlocked: false, new_balance: 7, held: 0 });
    const again = await unlock(account.key, 'NOIR');
    expect(again.body).toMatchObject({ slug: 'noir', charged: 0, already_unlocked: true, new_balance: 7 });
    expect(await coinsOf(account.id)).toBe(7);
    expect((await t.app.services.ledger.systemBalance('fees', 'coins')) - fees).toBe(50_000);
    expect((await styles(account.key)).body.styles.find((s: { slug: string }) => s.slug === 'noir').unlocked).toBe(true);
    // Another account has not unlocked it.
    const other = await t.createAccount('unlock-other');
    expect((await styles(other.key)).body.styles.find((s: { slug: string }) => s.slug === 'noir').unlocked).toBe(false);
  });

  it('answers a free preset with success and nothing charged, an unknown one with 404, too few coins with 402', async () => {
    const account = await t.createAccount('unlock-edges');
    await grantCoins(account.handle, 8);
    expect((await unlock(account.key, 'cinematic')).body).toMatchObject({ success: true, slug: 'cinematic', premium: false, charged: 0, already_unlocked: true, new_balance: 8 });
    const unknown = await unlock(account.key, 'sepia');
    expect([unknown.status, unknown.body.error]).toEqual([404, 'no style preset sepia; GET /api/economy/styles lists them']);
    const poor = await unlock(account.key, 'watercolor');
    expect([poor.status, poor.body.error]).toEqual([402, 'this needs 8.5 coins and the account has 8 coins available']);
    expect(await coinsOf(account.id)).toBe(8);
  });

  it('needs the master key: no key 401, a sub-key (even with every scope) 403', async () => {
    const account = await t.createAccount('unlock-keys');
    await grantCoins(account.handle, 10);
    expect((await unlock(undefined, 'noir')).status).toBe(401);
    const sub = await t.request('POST', '/api/platform/sub-keys', { key: account.key, body: { scopes: 'scrape,generate,search,media' } });
    const res = await unlock(sub.body.sub_key, 'noir');
    expect([res.status, res.body.error]).toEqual([403, 'this operation needs the account master key; sub-keys cannot call it']);
    expect(await coinsOf(account.id)).toBe(10);
  });

  it('charges once for 10 concurrent unlocks', async () => {
    const account = await t.createAccount('unlock-race');
    await grantCoins(account.handle, 20);
    const results = await Promise.all(Array.from({ length: 10 }, () => unlock(account.key, 'noir')));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(results.filter((r) => r.body.charged === 5)).toHaveLength(1);
    expect(results.filter((r) => r.body.charged === 0 && r.body.already_unlocked)).toHaveLength(9);
    expect(await coinsOf(account.id)).toBe(15);
  });

  it('is the GraphQL query styles and mutation unlockStyle', async () => {
    const account = await t.createAccount('gql-styles');
    await grantCoins(account.handle, 5);
    const res = await t.graphql(
      'mutation { unlockStyle(slug: "noir") { ... on MutationUnlockStyleSuccess { data { style { slug unlocked } charged alreadyUnlocked newBalance } } } }',
      {},
      { key: account.key },
    );
    expect(res.body.data.unlockStyle.data).toEqual({ style: { slug: 'noir', unlocked: true }, charged: 5, alreadyUnlocked: false, newBalance: 0 });
    const list = await t.graphql('{ styles { slug premium priceCoins unlocked } }', {}, { key: account.key });
    expect(list.body.data.styles.filter((s: { premium: boolean }) => s.premium)).toEqual([
      { slug: 'noir', premium: true, priceCoins: 5, unlocked: true },
      { slug: 'watercolor', premium: true, priceCoins: 8.5, unlocked: false },
    ]);
  });
});

describe('requireUsable (for the generate route)', () => {
  it('passes free and unlocked presets, refuses a locked premium one (402 STYLE_LOCKED) and an unknown one (400 naming style)', async () => {
    const account = await t.createAccount('usable');
    const actor = await t.app.services.auth.authenticate(account.key);
    const styles = t.app.services.economy.styles;
    await expect(styles.requireUsable(actor, 'cyberpunk')).resolves.toMatchObject({ slug: 'cyberpunk', premium: false });
    const locked = await styles.requireUsable(actor, 'noir').catch((e: unknown) => e);
    expect(locked).toBeInstanceOf(StyleLocked);
    expect(locked).toMatchObject({ status: 402, code: 'STYLE_LOCKED', field: 'style' });
    expect((locked as Error).message).toBe('style noir is a premium preset: unlock it once for 5 coins with POST /api/economy/styles/noir/unlock (GraphQL unlockStyle)');
    const unknown = await styles.requireUsable(actor, 'sepia').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(AppError);
    expect(unknown).toMatchObject({ status: 400, field: 'style' });
    expect(await styles.isUnlocked(account.id, 'noir')).toBe(false);
    await grantCoins(account.handle, 5);
    await unlock(account.key, 'noir');
    expect(await styles.isUnlocked(account.id, 'noir')).toBe(true);
    await expect(styles.requireUsable(actor, 'noir')).resolves.toMatchObject({ slug: 'noir', premium: true });
  });
});
