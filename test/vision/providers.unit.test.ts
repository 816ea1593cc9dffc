// External vision providers against fake servers that answer in each API's documented shape: the
// request each client sends, how answers become results, auto mode's fallback order, and errors.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { AppError } from '../../src/platform/errors.js';
import { VisionService } from '../../src/modules/vision/vision.service.js';
import { FAKE_KEYS, startFakeProviders, type FakeProviders } from '../fixtures/vision/fake-providers.js';
import { textImage } from '../fixtures/vision/images.js';

let fake: FakeProviders;
let image: Buffer;
const logLines: string[] = [];
const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });

function service(env: Record<string, string> = {}): VisionService {
  const config = loadConfig({
    VISION_OPENAI_API_KEY: FAKE_KEYS.openai,
    VISION_OPENAI_BASE_URL: fake.openaiBaseUrl,
    VISION_OPENAI_MODEL: 'gpt-4o-mini',
    VISION_GOOGLE_API_KEY: FAKE_KEYS.google,
    VISION_GOOGLE_BASE_URL: fake.googleBaseUrl,
    VISION_OCR_SPACE_API_KEY: FAKE_KEYS.ocrSpace,
    VISION_OCR_SPACE_BASE_URL: fake.ocrSpaceBaseUrl,
    VISION_LOCAL_ENABLED: 'false',
    VISION_TIMEOUT_MS: '1000',
    ...env,
  });
  return new VisionService(config.vision, logger, { maxBytes: 5 * 1024 * 1024 });
}

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

beforeAll(async () => {
  fake = await startFakeProviders();
  image = await textImage('HELLO', { width: 300, height: 100, fontSize: 48 });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

describe('openai (OpenAI-compatible Chat Completions)', () => {
  it('sends the image as a data: URI content part with a bearer key and a strict JSON schema', async () => {
    const result = await service().analyze({ image, task: 'all', provider: 'openai' });
    expect(result).toEqual({ text: 'HELLO FROM OPENAI', caption: 'A white sign with black letters', labels: ['sign', 'text'], providerUsed: 'openai', confidence: 0.91 });
    const [request] = fake.requests.openai;
    expect(request!.headers.authorization).toBe(`Bearer ${FAKE_KEYS.openai}`);
    const body = request!.body as { model: string; messages: Array<{ role: string; content: unknown }>; response_format: { type: string; json_schema: { strict: boolean; schema: { required: string[] } } } };
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.response_format.type).toBe('json_schema');
    expect(body.response_format.json_schema.strict).toBe(true);
    expect(body.response_format.json_schema.schema.required).toEqual(['text', 'caption', 'labels', 'confidence']);
    const user = body.messages.find((m) => m.role === 'user')!.content as Array<{ type: string; image_url?: { url: string } }>;
    const part = user.find((p) => p.type === 'image_url')!;
    expect(part.image_url!.url).toBe(`data:image/png;base64,${image.toString('base64')}`);
  });

  it('keeps only what the task asked for, and reads fenced JSON and percentages', async () => {
    fake.openaiContent = '```json\n{"text":"HI","caption":"a sign","labels":["sign"],"confidence":87}\n```';
    expect(await service().analyze({ image, task: 'ocr', provider: 'openai' })).toEqual({ text: 'HI', caption: '', labels: [], providerUsed: 'openai', confidence: 0.87 });
    expect(await service().analyze({ image, task: 'describe', provider: 'openai' })).toEqual({ text: '', caption: 'a sign', labels: ['sign'], providerUsed: 'openai', confidence: 0.87 });
  });

  it('answers 502 when the named provider answers something that is not the requested JSON', async () => {
    fake.openaiContent = 'I think this is a sign.';
    const error = await refusal(service().analyze({ image, provider: 'openai' }));
    expect(error.status).toBe(502);
    expect(error.message).toMatch(/^provider openai failed: openai answered content that is not the requested JSON/);
  });

  it('sends images that are not JPEG, PNG or WebP (or too large) as a reduced JPEG', async () => {
    const tiff = await sharp({ create: { width: 3000, height: 400, channels: 3, background: '#fff' } }).tiff().toBuffer();
    await service().analyze({ image: tiff, task: 'describe', provider: 'openai' });
    const body = fake.requests.openai[0]!.body as { messages: Array<{ content: unknown }> };
    const part = (body.messages[1]!.content as Array<{ image_url?: { url: string } }>).find((p) => p.image_url)!;
    expect(part.image_url!.url.startsWith('data:image/jpeg;base64,')).toBe(true);
    const sent = await sharp(Buffer.from(part.image_url!.url.split(',')[1]!, 'base64')).metadata();
    expect([sent.format, sent.width, sent.height]).toEqual(['jpeg', 2048, 273]);
  });
});

describe('google_vision (Cloud Vision images:annotate)', () => {
  it('asks for text, objects and labels with the key in a header, and builds a caption from them', async () => {
    const result = await service().analyze({ image, task: 'all', provider: 'google_vision' });
    expect(result).toEqual({
      text: 'OPEN\n24 HOURS',
      caption: "An image with 2 people, with the text 'OPEN 24 HOURS'",
      labels: ['person', 'signage', 'text'],
      providerUsed: 'google_vision',
      // mean of the text's page confidence (0.97) and of the label scores (0.88, 0.93, 0.89)
      confidence: 0.935,
    });
    const [request] = fake.requests.google;
    expect(request!.path).toBe('/v1/images:annotate');
    expect(request!.headers['x-goog-api-key']).toBe(FAKE_KEYS.google);
    const body = request!.body as { requests: Array<{ image: { content: string }; features: Array<{ type: string }> }> };
    expect(body.requests[0]!.image.content).toBe(image.toString('base64'));
    expect(body.requests[0]!.features.map((f) => f.type)).toEqual(['DOCUMENT_TEXT_DETECTION', 'OBJECT_LOCALIZATION', 'LABEL_DETECTION']);
  });

  it('asks for text only for task ocr', async () => {
    const result = await service().analyze({ image, task: 'ocr', provider: 'google_vision' });
    expect(result).toEqual({ text: 'OPEN\n24 HOURS', caption: '', labels: [], providerUsed: 'google_vision', confidence: 0.97 });
    const body = fake.requests.google[0]!.body as { requests: Array<{ features: Array<{ type: string }> }> };
    expect(body.requests[0]!.features.map((f) => f.type)).toEqual(['DOCUMENT_TEXT_DETECTION']);
  });
});

describe('ocr_space (OCR.space parse/image)', () => {
  it('posts base64Image with the apikey header and reads ParsedResults[].ParsedText', async () => {
    const result = await service().analyze({ image, task: 'ocr', provider: 'ocr_space' });
    expect(result).toEqual({ text: 'HELLO FROM\nOCR SPACE', caption: '', labels: [], providerUsed: 'ocr_space', confidence: 0.7 });
    const [request] = fake.requests.ocrSpace;
    expect(request!.headers.apikey).toBe(FAKE_KEYS.ocrSpace);
    expect(request!.headers['content-type']).toMatch(/^multipart\/form-data/);
    const form = request!.body as Record<string, string>;
    expect(form.base64Image).toBe(`data:image/png;base64,${image.toString('base64')}`);
    expect(form).toMatchObject({ language: 'eng', OCREngine: '2', isOverlayRequired: 'false' });
  });

  it('refuses describe and all when named (it reads text only), and auto passes it over for them', async () => {
    for (const task of ['describe', 'all'] as const) {
      const error = await refusal(service().analyze({ image, task, provider: 'ocr_space' }));
      expect([error.status, error.field]).toEqual([400, 'provider']);
      expect(error.message).toMatch(/ocr_space reads text only/);
    }
    const svc = service({ VISION_PROVIDER_ORDER: 'ocr_space,google_vision,openai' });
    expect(svc.autoOrder('describe')).toEqual(['google_vision', 'openai']);
    expect(svc.autoOrder('ocr')).toEqual(['ocr_space', 'google_vision', 'openai']);
  });
});

describe('auto mode', () => {
  it('tries the configured providers in order: the first failing with 500, the second answers', async () => {
    fake.behaviour.openai = 'status500';
    const result = await service().analyze({ image, task: 'all' });
    expect(result.providerUsed).toBe('google_vision');
    expect([fake.requests.openai.length, fake.requests.google.length, fake.requests.ocrSpace.length]).toEqual([1, 1, 0]);
  });

  it('falls back on malformed answers, refused keys and timeouts', async () => {
    fake.behaviour.openai = 'malformed';
    fake.behaviour.google = 'status401';
    expect((await service().analyze({ image, task: 'ocr' })).providerUsed).toBe('ocr_space');

    fake.reset();
    fake.behaviour.openai = 'slow';
    const started = Date.now();
    expect((await service({ VISION_TIMEOUT_MS: '300' }).analyze({ image, task: 'ocr' })).providerUsed).toBe('google_vision');
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it('follows VISION_PROVIDER_ORDER', async () => {
    const result = await service({ VISION_PROVIDER_ORDER: 'ocr_space,openai' }).analyze({ image, task: 'ocr' });
    expect(result.providerUsed).toBe('ocr_space');
    expect(fake.requests.openai).toHaveLength(0);
  });

  it('answers 502 naming each failure when every provider failed (local disabled)', async () => {
    fake.behaviour = { openai: 'status500', google: 'status500', ocrSpace: 'malformed' };
    const error = await refusal(service().analyze({ image, task: 'ocr' }));
    expect(error.status).toBe(502);
    expect(error.message).toBe('every vision provider failed: openai answered HTTP 500; google_vision answered HTTP 500; ocr_space answered something that is not JSON');
  });

  it('answers 503 when no provider is configured and the local one is disabled', async () => {
    const config = loadConfig({ VISION_LOCAL_ENABLED: 'false' });
    const error = await refusal(new VisionService(config.vision, logger, { maxBytes: 1e6 }).analyze({ image }));
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/no vision provider/);
  });
});

describe('named providers and choices', () => {
  it('answers 503 for a named provider that is not configured, naming its variable', async () => {
    const svc = service({ VISION_GOOGLE_API_KEY: '' });
    expect(svc.autoOrder('all')).toEqual(['openai']);
    const config = loadConfig({ VISION_LOCAL_ENABLED: 'false' });
    const bare = new VisionService(config.vision, logger, { maxBytes: 1e6 });
    for (const [provider, variable] of [['openai', 'VISION_OPENAI_API_KEY'], ['google_vision', 'VISION_GOOGLE_API_KEY'], ['ocr_space', 'VISION_OCR_SPACE_API_KEY']] as const) {
      const error = await refusal(bare.analyze({ image, task: 'ocr', provider }));
      expect(error.status).toBe(503);
      expect(error.message).toBe(`provider ${provider} is not configured on this server (${variable} is not set)`);
    }
    const local = await refusal(bare.analyze({ image, provider: 'local' }));
    expect([local.status, local.message]).toEqual([503, 'provider local is disabled on this server (VISION_LOCAL_ENABLED=false)']);
  });

  it('does not fall back from a named provider: its failure is a 502 about the provider field', async () => {
    fake.behaviour.google = 'status500';
    const error = await refusal(service().analyze({ image, provider: 'google_vision' }));
    expect([error.status, error.field, error.message]).toEqual([502, 'provider', 'provider google_vision failed: google_vision answered HTTP 500']);
    expect(fake.requests.openai).toHaveLength(0);
  });

  it('refuses unknown providers and tasks with the allowed values', async () => {
    const provider = await refusal(service().analyze({ image, provider: 'azure' as never }));
    expect([provider.status, provider.field, provider.message]).toEqual([400, 'provider', "provider: expected one of auto, openai, google_vision, ocr_space, local (got 'azure')"]);
    const task = await refusal(service().analyze({ image, task: 'caption' as never }));
    expect([task.status, task.field, task.message]).toEqual([400, 'task', "task: expected one of ocr, describe, all (got 'caption')"]);
  });
});

it('never writes a provider key to the log, even when a provider echoes it', async () => {
  fake.behaviour = { openai: 'status500', google: 'status401', ocrSpace: 'status500' };
  await service().analyze({ image, task: 'ocr' }).catch(() => undefined);
  const log = logLines.join('\n');
  expect(log).toMatch(/vision provider failed/);
  expect(log).toContain('[redacted]');
  for (const key of Object.values(FAKE_KEYS)) expect(log).not.toContain(key);
});
