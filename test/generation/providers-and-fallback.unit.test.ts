// Each generation provider against a fake server in its API's documented shape (the request it
// sends, how its answer becomes PNGs), and the chain's fallback: 5xx, timeout, malformed JSON,
// non-image bytes, a bfl task that fails or is moderated, the circuit breaker opening and closing,
// the vendor_key rule, and that a vendor key never reaches a log line.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createLogger } from '../../src/platform/logger.js';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/platform/errors.js';
import { SafeFetcher } from '../../src/platform/http/safe-fetch.js';
import { chainEntries, downloaderOf, ProviderChain, NONE_CONFIGURED_MESSAGE } from '../../src/modules/generation/index.js';
import { sameSite } from '../../src/modules/generation/providers/bfl.provider.js';
import { FAKE_GENERATION_KEYS, fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';

let fake: FakeGenerationProviders;
const logLines: string[] = [];
const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
const fetcher = new SafeFetcher({ allowPrivateAddresses: ['127.0.0.1'], timeoutMs: 5_000 });

function chain(env: Record<string, string> = {}): ProviderChain {
  const config = fakeGenerationConfig(fake, env);
  return new ProviderChain(chainEntries(config, downloaderOf(fetcher)), { breaker: config.breaker, maxPixels: config.maxPixels }, logger);
}

const request = { prompt: 'a red fox in snow. Style: professional photograph', orientation: 'landscape' as const, count: 2 };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

async function colourOf(png: Buffer): Promise<string> {
  const { channels } = await sharp(png).stats();
  return `#${channels.slice(0, 3).map((c) => Math.round(c.mean).toString(16).padStart(2, '0')).join('')}`;
}

beforeAll(async () => {
  fake = await startFakeGenerationProviders();
});
afterAll(async () => {
  await fake.close();
  await fetcher.close();
});
beforeEach(() => {
  fake.reset();
  logLines.length = 0;
});

describe('pollinations (GET /prompt/{prompt}, the image itself)', () => {
  it('asks once per image with the prompt in the path, size, seed and nologo as query, and answers PNGs', async () => {
    const result = await chain({ GENERATE_PROVIDER_ORDER: 'pollinations' }).generate(request);
    expect(result.provider).toBe('pollinations');
    expect(result.images).toHaveLength(2);
    for (const image of result.images) {
      expect((await sharp(image.png).metadata()).format).toBe('png');
      expect([image.width, image.height]).toEqual([64, 48]);
    }
    const sent = fake.requests.pollinations;
    expect(sent).toHaveLength(2);
    expect(decodeURIComponent(sent[0]!.path)).toBe(`/pollinations/prompt/${request.prompt}`);
    expect(sent[0]!.query).toMatchObject({ model: 'flux', width: '1344', height: '768', nologo: 'true', private: 'true' });
    expect(sent[0]!.query.seed).not.toBe(sent[1]!.query.seed);
    expect(sent[0]!.headers.authorization).toBeUndefined();
  });

  it('sends the optional token as a bearer header, never in the URL', async () => {
    await chain({ GENERATE_PROVIDER_ORDER: 'pollinations', GENERATE_POLLINATIONS_TOKEN: FAKE_GENERATION_KEYS.pollinations }).generate({ ...request, count: 1, orientation: 'portrait' });
    const [sent] = fake.requests.pollinations;
    expect(sent!.headers.authorization).toBe(`Bearer ${FAKE_GENERATION_KEYS.pollinations}`);
    expect(JSON.stringify(sent!.query)).not.toContain(FAKE_GENERATION_KEYS.pollinations);
    expect(sent!.query).toMatchObject({ width: '768', height: '1344' });
  });
});

describe('bfl (submit, poll polling_url, download result.sample)', () => {
  it('submits with x-key, polls until Ready and downloads the sample', async () => {
    const result = await chain({ GENERATE_PROVIDER_ORDER: 'bfl' }).generate({ ...request, count: 1, orientation: 'square' });
    expect(result.provider).toBe('bfl');
    expect(await colourOf(result.images[0]!.png)).toBe(fake.colours.bfl);
    const [submit, ...rest] = fake.requests.bfl;
    expect([submit!.method, submit!.path]).toEqual(['POST', '/bfl/v1/flux-pro-1.1']);
    expect(submit!.headers['x-key']).toBe(FAKE_GENERATION_KEYS.bfl);
    expect(submit!.body).toMatchObject({ prompt: request.prompt, width: 1024, height: 1024, output_format: 'png' });
    const polls = rest.filter((r) => r.path === '/bfl/v1/get_result');
    expect(polls.length).toBe(2); // Pending, then Ready
    expect(polls[0]!.headers['x-key']).toBe(FAKE_GENERATION_KEYS.bfl);
    // The download carries no key: the sample URL is signed by itself.
    const download = rest.find((r) => r.path.startsWith('/bfl/delivery/'))!;
    expect(download.headers['x-key']).toBeUndefined();
  });

  it('falls back when the task fails, and when it is moderated (which does not count against its circuit)', async () => {
    fake.behaviour.bfl = 'taskError';
    const c = chain({ GENERATE_PROVIDER_ORDER: 'bfl,openai', GENERATE_BREAKER_FAILURES: '1' });
    expect((await c.generate({ ...request, count: 1 })).provider).toBe('openai');
    expect(c.states()[0]).toEqual({ name: 'bfl', state: 'open' });

    fake.behaviour.bfl = 'moderated';
    const d = chain({ GENERATE_PROVIDER_ORDER: 'bfl,openai', GENERATE_BREAKER_FAILURES: '1' });
    expect((await d.generate({ ...request, count: 1 })).provider).toBe('openai');
    expect(d.states()[0]).toEqual({ name: 'bfl', state: 'closed' });
    expect(logLines.join('\n')).toMatch(/"failure":"refused"/);
  });

  it('polls only polling URLs on the API site (the key goes with each poll)', () => {
    expect(sameSite('https://api.us1.bfl.ai/v1/get_result?id=1', 'https://api.bfl.ai')).toBe(true);
    expect(sameSite('https://api.bfl.ai/v1/get_result?id=1', 'https://api.bfl.ai')).toBe(true);
    expect(sameSite('https://evil.example/v1/get_result', 'https://api.bfl.ai')).toBe(false);
    expect(sameSite('http://api.bfl.ai/v1/get_result', 'https://api.bfl.ai')).toBe(false);
    expect(sameSite('http://127.0.0.2:80/x', 'http://127.0.0.1:80')).toBe(false);
  });
});

describe('openai (POST /images/generations)', () => {
  it('asks for n images of the model family size with a bearer key; gpt-image models get no response_format', async () => {
    const result = await chain({ GENERATE_PROVIDER_ORDER: 'openai' }).generate(request);
    expect(result.images).toHaveLength(2);
    const [sent] = fake.requests.openai;
    expect(sent!.headers.authorization).toBe(`Bearer ${FAKE_GENERATION_KEYS.openai}`);
    expect(sent!.body).toEqual({ model: 'gpt-image-1', prompt: request.prompt, n: 2, size: '1536x1024' });
  });

  it('asks DALL-E for b64_json, dall-e-3 one image a call; url answers are downloaded', async () => {
    await chain({ GENERATE_PROVIDER_ORDER: 'openai', GENERATE_OPENAI_MODEL: 'dall-e-3' }).generate(request);
    expect(fake.requests.openai.map((r) => r.body)).toEqual([0, 1].map(() => ({ model: 'dall-e-3', prompt: request.prompt, n: 1, size: '1792x1024', response_format: 'b64_json' })));
    fake.reset();
    fake.behaviour.openai = 'url';
    const result = await chain({ GENERATE_PROVIDER_ORDER: 'openai', GENERATE_OPENAI_MODEL: 'local-sdxl' }).generate({ ...request, orientation: 'portrait' });
    expect(result.images).toHaveLength(2);
    expect((fake.requests.openai[0]!.body as { size: string }).size).toBe('768x1344');
    expect(fake.requests.openai.filter((r) => r.path.startsWith('/openai/files/'))).toHaveLength(2);
  });

  it('serves a compatible local server without a key (base URL alone configures it)', async () => {
    const config = loadConfig({ GENERATE_OPENAI_BASE_URL: `${fake.url}/openai/v1` }).generation;
    expect(config.openai).toMatchObject({ apiKey: undefined, model: 'gpt-image-1' });
    const c = new ProviderChain(chainEntries(config, downloaderOf(fetcher)), { breaker: config.breaker, maxPixels: config.maxPixels }, logger);
    expect((await c.generate({ ...request, count: 1 })).provider).toBe('openai');
    expect(fake.requests.openai[0]!.headers.authorization).toBeUndefined();
  });

  it('delivers fewer images when the provider does (the caller is charged for those only)', async () => {
    fake.behaviour.openai = 'fewer';
    const result = await chain({ GENERATE_PROVIDER_ORDER: 'openai' }).generate({ ...request, count: 4 });
    expect(result.images).toHaveLength(1);
  });
});

describe('fallback in cost order', () => {
  const failures = [
    ['HTTP 5xx', 'status500', /pollinations answered HTTP 500/],
    ['a timeout', 'hang', /pollinations did not (answer in time|deliver within)/],
    ['bytes that are not an image', 'notImage', /pollinations answered something that is not an image/],
  ] as const;
  for (const [what, behaviour, logged] of failures) {
    it(`passes over a provider that answers ${what}`, async () => {
      fake.behaviour.pollinations = behaviour;
      const started = Date.now();
      const result = await chain({ GENERATE_POLLINATIONS_TIMEOUT_MS: '300' }).generate({ ...request, count: 1 });
      expect(result.provider).toBe('bfl');
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(logLines.join('\n')).toMatch(logged);
    });
  }

  it('passes over malformed JSON and a non-image b64_json', async () => {
    fake.behaviour.bfl = 'malformedJson';
    fake.behaviour.openai = 'notImage';
    const error = await refusal(chain({ GENERATE_PROVIDER_ORDER: 'bfl,openai' }).generate(request));
    expect(error.status).toBe(502);
    expect(error.message).toBe('every generation provider failed: bfl answered something that is not JSON; openai answered something that is not an image');
  });

  it('answers 503 naming the settings when none is configured', async () => {
    const c = new ProviderChain([], { breaker: { failures: 3, cooldownMs: 1000 }, maxPixels: 1e7 }, logger);
    const error = await refusal(c.generate(request));
    expect(error.status).toBe(503);
    expect(error.message).toBe(NONE_CONFIGURED_MESSAGE);
    expect(error.message).toMatch(/GENERATE_POLLINATIONS_ENABLED.*GENERATE_BFL_API_KEY.*GENERATE_OPENAI_API_KEY/);
  });

  it('opens a failing provider circuit after GENERATE_BREAKER_FAILURES failures, then closes it after the cool-down', async () => {
    const c = chain({ GENERATE_PROVIDER_ORDER: 'pollinations,openai', GENERATE_BREAKER_FAILURES: '2', GENERATE_BREAKER_COOLDOWN_MS: '300' });
    fake.behaviour.pollinations = 'status500';
    for (let i = 0; i < 2; i++) expect((await c.generate({ ...request, count: 1 })).provider).toBe('openai');
    expect(c.states()[0]!.state).toBe('open');
    const asked = fake.requests.pollinations.length;
    expect((await c.generate({ ...request, count: 1 })).provider).toBe('openai');
    expect(fake.requests.pollinations.length, 'an open circuit is not called').toBe(asked);
    expect(logLines.join('\n')).toMatch(/passed over until its cool-down ends/);

    // Every provider open: 503 with Retry-After.
    fake.behaviour.openai = 'status500';
    const only = chain({ GENERATE_PROVIDER_ORDER: 'openai', GENERATE_BREAKER_FAILURES: '1', GENERATE_BREAKER_COOLDOWN_MS: '60000' });
    expect((await refusal(only.generate(request))).status).toBe(502);
    const cooling = await refusal(only.generate(request));
    expect([cooling.status, cooling.headers?.['Retry-After']]).toEqual([503, '60']);
    fake.behaviour.openai = 'ok';

    // After the cool-down one trial call goes through; it succeeds and the circuit closes.
    fake.behaviour.pollinations = 'ok';
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await c.generate({ ...request, count: 1 })).provider).toBe('pollinations');
    expect(c.states()[0]!.state).toBe('closed');
  });
});

describe('vendor_key', () => {
  it('goes to the provider its prefix names, replacing the server key for that call only', async () => {
    const secret = 'caller-own-bfl-key-abcdef123456';
    await chain({ GENERATE_PROVIDER_ORDER: 'bfl' }).generate({ ...request, count: 1, vendorKey: `bfl:${secret}` });
    expect(fake.requests.bfl.filter((r) => r.method === 'POST')[0]!.headers['x-key']).toBe(secret);
    fake.reset();
    await chain({ GENERATE_PROVIDER_ORDER: 'bfl' }).generate({ ...request, count: 1 });
    expect(fake.requests.bfl.filter((r) => r.method === 'POST')[0]!.headers['x-key']).toBe(FAKE_GENERATION_KEYS.bfl);
  });

  it('without a prefix is for the first configured provider; a prefix naming one not configured is a 400', async () => {
    const c = chain({ GENERATE_PROVIDER_ORDER: 'openai,bfl' });
    await c.generate({ ...request, count: 1, vendorKey: 'sk-caller-000111' });
    expect(fake.requests.openai[0]!.headers.authorization).toBe('Bearer sk-caller-000111');
    const only = chain({ GENERATE_PROVIDER_ORDER: 'openai' });
    const error = await refusal(only.generate({ ...request, vendorKey: 'bfl:abc' }));
    expect([error.status, error.field]).toEqual([400, 'vendor_key']);
  });

  it('never reaches a log line, even when the provider echoes it back in an error', async () => {
    const secret = 'sk-caller-secret-never-logged-42';
    fake.behaviour.openai = 'status500';
    fake.behaviour.pollinations = 'status500';
    await refusal(chain({ GENERATE_PROVIDER_ORDER: 'openai,pollinations', GENERATE_BREAKER_FAILURES: '1' }).generate({ ...request, vendorKey: `openai:${secret}` }));
    expect(fake.requests.openai[0]!.headers.authorization).toBe(`Bearer ${secret}`);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(secret);
  });
});
