// POST /api/generate and POST /api/replace/batch end to end against the fake providers: the
// documented answer, input refusals naming the field, styles (premium refusal, unlock), the credit
// rules (held first, only delivered images charged, nothing for a failure, the ledger's refusal
// before any provider is called), 503 with no provider, the scope matrix, and the batch.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { FAILING_PROMPT, fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';

let fake: FakeGenerationProviders;
let t: TestApp;
let bare: TestApp;

beforeAll(async () => {
  fake = await startFakeGenerationProviders();
  [t, bare] = await Promise.all([
    startTestApp({ fetch: LOCAL_FETCH, generation: fakeGenerationConfig(fake, { GENERATE_BREAKER_FAILURES: '1000' }) }),
    // The service as shipped: no provider configured.
    startTestApp({ runWorkers: false }),
  ]);
});
afterAll(async () => {
  await t?.stop();
  await bare?.stop();
  await fake?.close();
});
beforeEach(() => fake.reset());

async function account(credits = 10) {
  const made = await t.createAccount('gen');
  if (credits > 0) await t.request('POST', `/api/admin/accounts/${made.handle}/credits`, { admin: true, body: { amount: credits } });
  return made;
}

const wallet = async (id: number) => t.app.services.ledger.wallet(id, 'credits');
const providerCalls = () => fake.requests.pollinations.length + fake.requests.bfl.length + fake.requests.openai.length;

describe('POST /api/generate', () => {
  it('answers success, prompt, count, provider and images[] of PNG data URIs, from the first provider in cost order', async () => {
    const { key, id } = await account();
    const res = await t.request('POST', '/api/generate', { key, body: { prompt: 'a lighthouse at dawn' } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'prompt', 'count', 'provider', 'images']);
    expect(res.body).toMatchObject({ success: true, prompt: 'a lighthouse at dawn', count: 2, provider: 'pollinations' });
    expect(res.body.images).toHaveLength(2);
    for (const [i, image] of (res.body.images as Array<Record<string, unknown>>).entries()) {
      expect(Object.keys(image)).toEqual(['index', 'title', 'provider', 'url']);
      expect(image).toMatchObject({ index: i, title: `Professional variation ${i + 1}`, provider: 'pollinations' });
      const url = image.url as string;
      expect(url.startsWith('data:image/png;base64,')).toBe(true);
      // The provider answered JPEG: converted to PNG.
      expect((await sharp(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64')).metadata()).format).toBe('png');
    }
    // The style became prompt text; the orientation the provider's size.
    const sent = fake.requests.pollinations[0]!;
    expect(decodeURIComponent(sent.path)).toContain('a lighthouse at dawn. Style: professional photograph');
    expect(sent.query).toMatchObject({ width: '1344', height: '768' });
    // 1 credit per delivered image; nothing left held.
    expect(await wallet(id)).toMatchObject({ balance: 8 * 10_000, reserved: 0 });
  });

  it('takes style, orientation and count, and falls back to the next provider', async () => {
    const { key } = await account();
    fake.behaviour.pollinations = 'status500';
    const res = await t.request('POST', '/api/generate', { key, body: { prompt: 'neon alley', style: 'cyberpunk', orientation: 'square', count: 3 } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body).toMatchObject({ count: 3, provider: 'bfl' });
    expect(res.body.images.map((i: { title: string }) => i.title)).toEqual(['Cyberpunk variation 1', 'Cyberpunk variation 2', 'Cyberpunk variation 3']);
    const submit = fake.requests.bfl.find((r) => r.method === 'POST')!;
    expect(submit.body).toMatchObject({ width: 1024, height: 1024 });
    expect((submit.body as { prompt: string }).prompt).toMatch(/^neon alley\. Style: cyberpunk/);
  });

  it('refuses bad input with a 400 naming the field, before any provider is called', async () => {
    const { key } = await account();
    const cases: Array<[Record<string, unknown>, string, RegExp]> = [
      [{}, 'prompt', /^prompt is required/],
      [{ prompt: '   ' }, 'prompt', /^prompt is required/],
      [{ prompt: 'x'.repeat(1001) }, 'prompt', /at most 1000 characters/],
      [{ prompt: 'x', count: 5 }, 'count', /integer from 1 to 4/],
      [{ prompt: 'x', count: 0 }, 'count', /integer from 1 to 4/],
      [{ prompt: 'x', count: 1.5 }, 'count', /integer from 1 to 4/],
      [{ prompt: 'x', orientation: 'diagonal' }, 'orientation', /landscape, portrait, square/],
      [{ prompt: 'x', style: 'baroque' }, 'style', /^style: expected one of professional, cinematic, minimalist, cyberpunk/],
      [{ prompt: 'x', vendor_key: 'has spaces in it' }, 'vendor_key', /printable characters/],
      [{ prompt: 42 }, 'prompt', /expected a string/],
    ];
    for (const [body, field, message] of cases) {
      const res = await t.request('POST', '/api/generate', { key, body });
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.error, field).toMatch(new RegExp(`^${field}`));
      expect(res.body.error).toMatch(message);
    }
    expect(providerCalls()).toBe(0);
  });

  it('refuses a premium style until it is unlocked (402 STYLE_LOCKED), then uses it', async () => {
    const { key, handle } = await account();
    const locked = await t.request('POST', '/api/generate', { key, body: { prompt: 'a street', style: 'noir', count: 1 } });
    expect(locked.status).toBe(402);
    expect(locked.body.error).toMatch(/style noir is a premium preset: unlock it once/);
    expect(providerCalls()).toBe(0);
    await t.request('POST', `/api/admin/accounts/${handle}/coins`, { admin: true, body: { amount: 5 } });
    expect((await t.request('POST', '/api/economy/styles/noir/unlock', { key })).status).toBe(200);
    const res = await t.request('POST', '/api/generate', { key, body: { prompt: 'a street', style: 'noir', count: 1 } });
    expect(res.status).toBe(200);
    expect(res.body.images[0].title).toBe('Noir variation 1');
    expect(decodeURIComponent(fake.requests.pollinations[0]!.path)).toContain('Style: film noir');
  });

  it('refuses an account that cannot pay with the ledger 402 before any provider is called', async () => {
    const { key, id } = await account(1);
    const res = await t.request('POST', '/api/generate', { key, body: { prompt: 'two please', count: 2 } });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/needs 2 credits and the account has 1 credits available/);
    expect(providerCalls()).toBe(0);
    expect(await wallet(id)).toMatchObject({ balance: 10_000, reserved: 0 });
  });

  it('charges only the images delivered, and nothing when every provider fails', async () => {
    const { key, id } = await account();
    fake.behaviour.pollinations = 'notImage';
    fake.behaviour.bfl = 'taskError';
    fake.behaviour.openai = 'fewer';
    const fewer = await t.request('POST', '/api/generate', { key, body: { prompt: 'four please', count: 4 } });
    expect(fewer.status, fewer.text.slice(0, 200)).toBe(200);
    expect(fewer.body).toMatchObject({ count: 1, provider: 'openai' });
    expect(await wallet(id)).toMatchObject({ balance: 9 * 10_000, reserved: 0 });

    fake.behaviour.openai = 'status500';
    const failed = await t.request('POST', '/api/generate', { key, body: { prompt: 'nothing comes', count: 3 } });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatch(/^every generation provider failed: pollinations .*; bfl .*; openai answered HTTP 500$/);
    expect(await wallet(id)).toMatchObject({ balance: 9 * 10_000, reserved: 0 });
    const history = await t.app.services.credits.summary({ accountId: id }, {});
    expect(history.entries.filter((e) => e.action === 'generate').map((e) => e.amount)).toEqual([-1]);
  });

  it('charges concurrent requests of one account exactly, never below zero', async () => {
    const { key, id } = await account(3);
    const answers = await Promise.all(Array.from({ length: 4 }, () => t.request('POST', '/api/generate', { key, body: { prompt: 'race', count: 1 } })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 402]);
    expect(await wallet(id)).toMatchObject({ balance: 0, reserved: 0 });
  });

  it('answers 503 naming the settings when no provider is configured', async () => {
    const made = await bare.createAccount('bare');
    const res = await bare.request('POST', '/api/generate', { key: made.key, body: { prompt: 'anything' } });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ success: false, error: expect.stringMatching(/^no image generation provider is configured: set GENERATE_POLLINATIONS_ENABLED=true/) });
    for (const [path, body] of [['/api/replace/generate', { description: 'x' }], ['/api/replace/batch', { descriptions: ['x'] }]] as const) {
      expect((await bare.request('POST', path, { key: made.key, body })).status, path).toBe(503);
    }
  });

  it('never echoes vendor_key, and uses it for the provider it names', async () => {
    const { key } = await account();
    const secret = 'bfl:caller-own-key-never-echoed-77';
    fake.behaviour.pollinations = 'status500';
    const res = await t.request('POST', '/api/generate', { key, body: { prompt: 'mine', count: 1, vendor_key: secret } });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('caller-own-key');
    expect(fake.requests.bfl.find((r) => r.method === 'POST')!.headers['x-key']).toBe('caller-own-key-never-echoed-77');
  });
});

describe('scopes', () => {
  const routes = [
    ['/api/generate', { prompt: 'scoped', count: 1 }],
    ['/api/replace/generate', { description: 'scoped', count: 1 }],
    ['/api/replace/batch', { descriptions: ['scoped'] }],
  ] as const;

  it('refuses no key (401) and a sub-key without generate (403); a sub-key with generate passes', async () => {
    const { key } = await account(20);
    const without = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'scrape,search,media' } })).body.sub_key as string;
    const withScope = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'generate' } })).body.sub_key as string;
    for (const [path, body] of routes) {
      expect((await t.request('POST', path, { body })).status, path).toBe(401);
      const refused = await t.request('POST', path, { key: without, body });
      expect([refused.status, refused.body.error], path).toEqual([403, "this sub-key lacks the 'generate' scope needed for this operation"]);
    }
    expect(providerCalls()).toBe(0);
    for (const [path, body] of routes) expect((await t.request('POST', path, { key: withScope, body })).status, path).toBeLessThan(300);
  });

  it('refuses the same through GraphQL', async () => {
    const { key } = await account();
    const without = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'media' } })).body.sub_key as string;
    const res = await t.graphql('mutation { generateImages(input: {prompt: "x"}) { __typename ... on ServiceError { message status } } }', {}, { key: without });
    expect(JSON.stringify(res.body)).toMatch(/lacks the 'generate' scope/);
    const providers = await t.graphql('{ generationProviders { name position state } }', {}, { key });
    expect(providers.body.data.generationProviders).toEqual([
      { name: 'pollinations', position: 0, state: 'closed' },
      { name: 'bfl', position: 1, state: 'closed' },
      { name: 'openai', position: 2, state: 'closed' },
    ]);
  });
});

describe('POST /api/replace/batch', () => {
  it('answers one result or error per description, in order, and charges the delivered ones', async () => {
    const { key, id } = await account();
    const descriptions = ['a red barn', `a ${FAILING_PROMPT} scene`, 'a blue boat', 'a green field'];
    const res = await t.request('POST', '/api/replace/batch', { key, body: { descriptions, style: 'minimalist' } });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'count', 'succeeded', 'failed', 'results', 'credits_charged']);
    expect(res.body).toMatchObject({ success: true, count: 4, succeeded: 3, failed: 1, credits_charged: 3 });
    expect(res.body.results.map((r: { index: number; description: string; success: boolean }) => [r.index, r.description, r.success])).toEqual(descriptions.map((d, i) => [i, d, i !== 1]));
    const failed = res.body.results[1];
    expect(failed).toMatchObject({ provider: null, images: [], status: 502 });
    expect(failed.error).toMatch(/^every generation provider failed/);
    const ok = res.body.results[0];
    expect(ok).toMatchObject({ provider: 'pollinations', error: null, status: 200 });
    expect(ok.images).toEqual([{ index: 0, title: 'Minimalist variation 1', provider: 'pollinations', url: expect.stringMatching(/^data:image\/png;base64,/) }]);
    expect(await wallet(id)).toMatchObject({ balance: 7 * 10_000, reserved: 0 });
  });

  it('refuses more than 10 descriptions, none, and non-strings, naming descriptions', async () => {
    const { key } = await account();
    for (const descriptions of [Array.from({ length: 11 }, (_, i) => `d${i}`), [], undefined, ['ok', 7]]) {
      const res = await t.request('POST', '/api/replace/batch', { key, body: { descriptions } });
      expect(res.status, JSON.stringify(descriptions)).toBe(400);
      expect(res.body.error).toMatch(/^descriptions/);
    }
    expect(providerCalls()).toBe(0);
  });

  it('refuses the whole batch (402) when the account cannot pay for every description', async () => {
    const { key } = await account(2);
    const res = await t.request('POST', '/api/replace/batch', { key, body: { descriptions: ['a', 'b', 'c'] } });
    expect(res.status).toBe(402);
    expect(providerCalls()).toBe(0);
  });
});
