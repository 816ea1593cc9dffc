// Pipelines end to end beyond scraping: a generate step against the fake providers (credits as POST
// /api/generate charges them; images stored in the caller's library and read by later steps), a
// search -> filter pipeline over the caller's library, text references, stop_on_error true and false,
// the key rules at the door (no key, a sub-key without a step's scope), one quota unit per step,
// concurrent pipelines sharing too few credits, GraphQL, and the actions listing generated from the
// same zod schemas the steps validate with.
import sharp from 'sharp';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { scrapeInputSchema } from '../../src/modules/scrape/index.js';
import { searchRequestSchema } from '../../src/modules/search/index.js';
import { generateSchema } from '../../src/modules/generation/index.js';
import { replaceflowSchema } from '../../src/modules/replaceflow/index.js';
import { analyzeOutputs, analyzeParams, ocrParams } from '../../src/modules/pipeline/actions/vision.actions.js';
import { filterParams } from '../../src/modules/pipeline/actions/filter.action.js';
import { scrapeOutputs } from '../../src/modules/pipeline/actions/scrape.action.js';
import { LOCAL_FETCH, startTestApp, type TestApp } from '../helpers/app.js';
import { form, scene } from '../helpers/images.js';
import { FAILING_PROMPT, fakeGenerationConfig, startFakeGenerationProviders, type FakeGenerationProviders } from '../fixtures/generation/fake-providers.js';
import { FAKE_KEYS, startFakeProviders, type FakeProviders } from '../fixtures/vision/fake-providers.js';

let gen: FakeGenerationProviders;
let vision: FakeProviders;
let t: TestApp;

beforeAll(async () => {
  [gen, vision] = await Promise.all([startFakeGenerationProviders(), startFakeProviders()]);
  const defaults = loadConfig({});
  t = await startTestApp({
    fetch: LOCAL_FETCH,
    generation: fakeGenerationConfig(gen, { GENERATE_BREAKER_FAILURES: '1000' }),
    vision: { ...defaults.vision, googleVision: { apiKey: FAKE_KEYS.google, baseUrl: vision.googleBaseUrl }, local: { ...defaults.vision.local, enabled: false } },
  });
});
afterAll(async () => {
  await t?.stop();
  await Promise.all([gen?.close(), vision?.close()]);
});
beforeEach(() => {
  gen.reset();
  vision.reset();
});

async function account(credits = 0, tier?: string) {
  const made = await t.createAccount('steps', tier);
  if (credits > 0) await t.request('POST', `/api/admin/accounts/${made.handle}/credits`, { admin: true, body: { amount: credits } });
  return made;
}
const wallet = async (id: number) => t.app.services.ledger.wallet(id, 'credits');
const providerCalls = () => gen.requests.pollinations.length + gen.requests.bfl.length + gen.requests.openai.length;
const pipeline = (key: string | undefined, body: unknown) => t.request('POST', '/api/pipeline', { key, body });
const statuses = (res: { body: { pipeline: { steps: Array<{ status: string }> } } }) => res.body.pipeline.steps.map((s) => s.status);

describe('generate', () => {
  it('charges what POST /api/generate charges, stores the images in the caller\'s library and hands them to later steps', async () => {
    const single = await account(10);
    const direct = await t.request('POST', '/api/generate', { key: single.key, body: { prompt: 'a lighthouse', count: 2 } });
    expect(direct.status).toBe(200);
    const piped = await account(10);
    const res = await pipeline(piped.key, {
      steps: [
        { name: 'gen', action: 'generate', params: { prompt: 'a lighthouse', count: 2, style: 'minimalist' } },
        { name: 'look', action: 'analyze', params: { urls: '$gen.urls' } },
        { name: 'read', action: 'ocr', params: { url: '$gen.images[1].url' } },
      ],
    });
    expect(res.status, res.text.slice(0, 400)).toBe(200);
    expect(statuses(res), JSON.stringify(res.body.pipeline.steps.map((s: { error: unknown }) => s.error))).toEqual(['ok', 'ok', 'ok']);
    const [made, look, read] = res.body.pipeline.steps.map((s: { output: unknown }) => s.output);
    expect(made).toMatchObject({ prompt: 'a lighthouse', count: 2, provider: 'pollinations', credits_charged: 2 });
    // Generation costs the same as the single route; then 2 analyses and 1 OCR by Google at 1 credit each.
    expect((await wallet(single.id)).balance).toBe(8 * 10_000);
    expect(await wallet(piped.id)).toMatchObject({ balance: (10 - 2 - 3) * 10_000, reserved: 0 });
    expect(vision.requests.google).toHaveLength(3);
    // The images are the caller's media items, with links that load without a key.
    for (const image of made.images) {
      expect(image).toMatchObject({ provider: 'pollinations', media_id: expect.any(Number), width: 64, height: 48, url: expect.stringContaining(`/media/${image.media_id}/original`) });
      const item = await t.request('GET', `/api/media/${image.media_id}`, { key: piped.key });
      expect(item.status).toBe(200);
      expect(item.body.media.tags).toEqual(expect.arrayContaining(['generated', 'minimalist']));
      const file = await fetch(image.url);
      expect(file.status).toBe(200);
      expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).format).toBe('png');
    }
    expect(await t.request('GET', `/api/media/${made.images[0].media_id}`, { key: single.key })).toMatchObject({ status: 404 });
    expect(look).toMatchObject({ count: 2, urls: made.urls });
    expect(read).toMatchObject({ count: 1, text: 'OPEN\n24 HOURS', items: [{ url: made.images[1].url, provider_used: 'google_vision' }] });
  });

  it('stop_on_error true skips the steps after a failure; false runs them; a failed generation charges nothing', async () => {
    const { key, id } = await account(10);
    const steps = [
      { name: 'bad', action: 'generate', params: { prompt: FAILING_PROMPT, count: 1 } },
      { name: 'next', action: 'filter', params: { urls: ['https://example.com/a.jpg'], keyword: 'a.jpg' } },
      { name: 'uses', action: 'filter', params: { urls: '$bad.urls' } },
    ];
    const stopped = await pipeline(key, { steps });
    expect(stopped.status).toBe(200);
    expect(stopped.body.success).toBe(false);
    expect(statuses(stopped)).toEqual(['failed', 'skipped', 'skipped']);
    expect(stopped.body.pipeline.steps[0].error).toMatchObject({ status: 502, message: expect.stringMatching(/provider/) });
    expect(stopped.body.pipeline.steps[1]).toMatchObject({ elapsed: 0, output: null, error: { status: null, code: 'SKIPPED', message: 'not run: step bad failed and stop_on_error is true' } });
    expect(stopped.body.pipeline).toMatchObject({ steps_ok: 0, steps_failed: 1, steps_skipped: 2, result: null });

    const going = await pipeline(key, { steps, stop_on_error: false });
    expect(statuses(going)).toEqual(['failed', 'ok', 'failed']);
    expect(going.body.pipeline.steps[1].output).toMatchObject({ count: 1, urls: ['https://example.com/a.jpg'] });
    expect(going.body.pipeline.steps[2].error).toMatchObject({ code: 'UNRESOLVED_REFERENCE', message: '$bad.urls: step bad was failed, so it has no output' });
    expect(going.body.pipeline).toMatchObject({ steps_ok: 1, steps_failed: 2, steps_skipped: 0 });
    expect(await wallet(id)).toMatchObject({ balance: 10 * 10_000, reserved: 0 });
  });

  it('shares an account\'s credits between concurrent pipelines: the one that cannot pay fails its step with 402', async () => {
    const { key, id } = await account(2);
    const runs = await Promise.all([1, 2, 3].map(() => pipeline(key, { steps: [{ name: 'g', action: 'generate', params: { prompt: 'a kite', count: 1 } }] })));
    const outcomes = runs.map((r) => r.body.pipeline.steps[0]);
    expect(outcomes.filter((s) => s.status === 'ok')).toHaveLength(2);
    expect(outcomes.find((s) => s.status === 'failed')?.error).toMatchObject({ status: 402, code: 'INSUFFICIENT_CREDITS' });
    expect(await wallet(id)).toMatchObject({ balance: 0, reserved: 0 });
  });
});

describe('search -> filter', () => {
  it('filters the caller\'s search results; references inside text become text', async () => {
    const { key } = await account();
    for (const [seed, width, height] of [
      [8101, 800, 600],
      [8102, 600, 800],
    ] as const) {
      const res = await t.request('POST', '/api/media/upload', { key, form: form({ body: await scene(seed, width, height), name: `quay-${seed}.jpg`, type: 'image/jpeg' }, { tags: JSON.stringify(['quay']) }) });
      expect(res.status, res.text).toBe(201);
    }
    const res = await pipeline(key, {
      steps: [
        { name: 'find', action: 'search', params: { query: 'quay', limit: 5 } },
        { name: 'tall', action: 'filter', params: { images: '$find.images', orientation: 'portrait', keyword: '$find.query' } },
        { name: 'note', action: 'filter', params: { urls: ['https://example.com/$find.query/${find.count}.jpg'], keyword: 'cost $$5' } },
      ],
      stop_on_error: false,
    });
    expect(res.status).toBe(200);
    const [find, tall, note] = res.body.pipeline.steps;
    expect(find.status).toBe('ok');
    expect(find.output).toMatchObject({ query: 'quay', count: 2 });
    expect(find.output.images.every((i: { source: string }) => i.source === 'my_private_library')).toBe(true);
    expect(tall.output.count).toBe(1);
    expect(tall.output.images[0]).toMatchObject({ width: 600, height: 800, source: 'my_private_library' });
    // Embedded references are text; $$ is a literal $ (so nothing matches the keyword "cost $5").
    expect(note.output).toMatchObject({ count: 0, dropped: 1 });
    const graph = await t.graphql('mutation($input: RunPipelineInput!) { runPipeline(input: $input) { ... on MutationRunPipelineSuccess { data { steps { output } } } } }', {
      input: { steps: [{ name: 'find', action: 'search', params: { query: 'quay' } }, { name: 'say', action: 'filter', params: { urls: ['https://example.com/$find.query/${find.count}.jpg'] } }] },
    }, { key });
    expect(graph.body.data.runPipeline.data.steps[1].output.urls).toEqual(['https://example.com/quay/2.jpg']);
  });
});

describe('keys, scopes and quota', () => {
  it('answers 401 without a key and 403 at the door for a sub-key lacking a step\'s scope, before any step runs', async () => {
    const { key, id } = await account(10);
    const body = {
      steps: [
        { name: 'free', action: 'filter', params: { urls: ['https://example.com/a.jpg'] } },
        { name: 'gen', action: 'generate', params: { prompt: 'a boat' } },
      ],
    };
    const none = await pipeline(undefined, body);
    expect(none.status).toBe(401);
    const searchOnly = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'search,media' } })).body.sub_key as string;
    const refused = await pipeline(searchOnly, body);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ success: false, error: "steps.1 (gen, action generate): this sub-key lacks the 'generate' scope needed for this operation" });
    // The same text as the single route.
    const direct = await t.request('POST', '/api/generate', { key: searchOnly, body: { prompt: 'a boat' } });
    expect(refused.body.error.endsWith(direct.body.error)).toBe(true);
    expect(providerCalls()).toBe(0);
    expect(await t.app.services.db.prisma.mediaItem.count({ where: { accountId: id } })).toBe(0);
    // A request refused at the door gives the sub-key's budget unit back (the single route's refusal did too).
    const listed = await t.request('GET', '/api/platform/sub-keys', { key });
    expect(listed.body.sub_keys.find((k: { prefix: string }) => searchOnly.startsWith(k.prefix)).usage.requests_used).toBe(0);
    // A step that needs no scope runs with any key; one whose scope the sub-key has runs too.
    const generateOnly = (await t.request('POST', '/api/platform/sub-keys', { key, body: { scopes: 'generate' } })).body.sub_key as string;
    expect((await pipeline(generateOnly, body)).body.pipeline.steps_ok).toBe(2);
    const analyze = await pipeline(generateOnly, { steps: [{ name: 'look', action: 'analyze', params: { urls: ['https://example.com/a.jpg'] } }] });
    expect(analyze.status).toBe(403);
    expect(analyze.body.error).toMatch(/'media' scope/);
  });

  it('takes one quota unit per step: the request pays the first, each further step one more', async () => {
    const { key } = await account(0, 'tiny');
    const step = (name: string) => ({ name, action: 'filter', params: { urls: ['https://example.com/a.jpg'] } });
    const res = await pipeline(key, { steps: [step('a'), step('b'), step('c'), step('d'), step('e')] });
    expect(res.status).toBe(200);
    expect(statuses(res)).toEqual(['ok', 'ok', 'ok', 'failed', 'skipped']);
    expect(res.body.pipeline.steps[3].error).toMatchObject({ status: 429, code: 'QUOTA_EXCEEDED' });
    expect((await pipeline(key, { steps: [step('a')] })).status).toBe(429);
  });
});

describe('GET /api/pipeline/actions', () => {
  it('lists every action from the schemas the steps validate with', async () => {
    const { key } = await account();
    const res = await t.request('GET', '/api/pipeline/actions', { key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['success', 'max_steps', 'deadline_ms', 'actions']);
    expect(res.body).toMatchObject({ max_steps: 10, deadline_ms: 120_000 });
    const actions = Object.fromEntries((res.body.actions as Array<{ name: string; params: Array<Record<string, unknown>>; outputs: Array<{ name: string }> }>).map((a) => [a.name, a])) as Record<string, Record<string, unknown> & { params: Array<Record<string, unknown>>; outputs: Array<{ name: string }> }>;
    expect(Object.keys(actions)).toEqual(['scrape', 'search', 'generate', 'ocr', 'analyze', 'replace', 'filter']);
    const json = (schema: z.ZodType, io: 'input' | 'output') => {
      const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<string, unknown>;
      return rest;
    };
    const sources: Record<string, z.ZodType> = { scrape: scrapeInputSchema, search: searchRequestSchema, generate: generateSchema, ocr: ocrParams, analyze: analyzeParams, replace: replaceflowSchema, filter: filterParams };
    for (const [name, schema] of Object.entries(sources)) {
      const listed = actions[name]!;
      expect(listed.params_schema, name).toEqual(json(schema, 'input'));
      const properties = Object.keys((json(schema, 'input').properties ?? {}) as object);
      expect(listed.params.map((p) => p.name), name).toEqual(properties);
    }
    expect(actions.scrape!.outputs_schema).toEqual(json(scrapeOutputs, 'output'));
    expect(actions.analyze!.outputs_schema).toEqual(json(analyzeOutputs, 'output'));
    // The spec's documented params and outputs, with types, defaults and what is required.
    const param = (action: string, name: string) => actions[action]!.params.find((p) => p.name === name);
    expect(param('scrape', 'url')).toMatchObject({ type: 'string', required: true });
    expect(param('scrape', 'max_files')).toMatchObject({ type: 'integer', required: false, default: 100 });
    expect(param('scrape', 'sniper_mode')).toMatchObject({ type: 'boolean', required: false, default: true });
    expect(param('analyze', 'urls')).toMatchObject({ type: 'array of string', required: true });
    expect(param('analyze', 'max_images')).toMatchObject({ type: 'integer', default: 5 });
    expect(param('search', 'limit')).toMatchObject({ type: 'integer', default: 20 });
    expect(param('search', 'orientation')).toMatchObject({ values: ['all', 'landscape', 'portrait', 'square'], default: 'all' });
    expect(actions.scrape!.outputs.map((o) => o.name)).toEqual(expect.arrayContaining(['count', 'urls']));
    expect(actions.analyze!.outputs.map((o) => o.name)).toEqual(expect.arrayContaining(['summary', 'top_labels']));
    expect(actions.search!.outputs.map((o) => o.name)).toEqual(expect.arrayContaining(['count', 'images']));
    expect(Object.fromEntries(Object.values(actions).map((a) => [a.name, a.scope]))).toEqual({ scrape: 'scrape', search: 'search', generate: 'generate', ocr: 'media', analyze: 'media', replace: 'search', filter: 'any' });
    // GraphQL lists the same.
    const graph = await t.graphql('{ pipelineActions { maxSteps actions { name scope paramsSchema } } }', {}, { key });
    expect(graph.body.data.pipelineActions.actions.map((a: { name: string }) => a.name)).toEqual(Object.keys(actions));
    expect(graph.body.data.pipelineActions.actions[0].paramsSchema).toEqual(actions.scrape!.params_schema);
  });
});
