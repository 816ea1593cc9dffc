// The local provider for real: tesseract.js and human's object detector in worker threads, on
// images made here (rendered words, a blank image) and a photo of people shipped in the human package.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/platform/logger.js';
import { AppError } from '../../src/platform/errors.js';
import { VisionService } from '../../src/modules/vision/vision.service.js';
import { NOTHING_FOUND_CAPTION } from '../../src/modules/vision/caption.js';
import { blankImage, peoplePhoto, textImage } from '../fixtures/vision/images.js';
import { FAKE_KEYS, startFakeProviders, type FakeProviders } from '../fixtures/vision/fake-providers.js';

let vision: VisionService;
let fake: FakeProviders;

beforeAll(async () => {
  fake = await startFakeProviders();
  const config = loadConfig({
    VISION_OPENAI_API_KEY: FAKE_KEYS.openai,
    VISION_OPENAI_BASE_URL: fake.openaiBaseUrl,
    VISION_GOOGLE_API_KEY: FAKE_KEYS.google,
    VISION_GOOGLE_BASE_URL: fake.googleBaseUrl,
  });
  vision = new VisionService(config.vision, createLogger('silent'), { maxBytes: 10 * 1024 * 1024 });
});
afterAll(async () => {
  await vision.close();
  await fake.close();
});

describe('local OCR', () => {
  it('reads rendered words exactly, with a high confidence', async () => {
    const image = await textImage(['OPEN DAILY', 'FRESH BREAD 24/7']);
    const result = await vision.analyze({ image, task: 'ocr', provider: 'local' });
    expect(result).toMatchObject({ text: 'OPEN DAILY\nFRESH BREAD 24/7', caption: '', labels: [], providerUsed: 'local' });
    expect(result.confidence).toBeGreaterThan(0.8);
  });

  it('applies the EXIF orientation before reading', async () => {
    // Pixels stored turned a quarter left, with the tag that tells viewers to turn them right.
    const upright = await textImage('ROTATED SIGN', { width: 700, height: 140, fontSize: 64 });
    const stored = await sharp(upright).rotate(270).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const result = await vision.analyze({ image: stored, task: 'ocr', provider: 'local' });
    expect(result.text).toBe('ROTATED SIGN');
  });
});

describe('local labels and captions', () => {
  it('finds nothing on a blank image and says so with a low confidence', async () => {
    const result = await vision.analyze({ image: await blankImage(), task: 'all', provider: 'local' });
    expect(result).toEqual({ text: '', caption: NOTHING_FOUND_CAPTION, labels: [], providerUsed: 'local', confidence: 0.2 });
  });

  it('labels the people in a photo and captions them', async () => {
    const result = await vision.analyze({ image: peoplePhoto(), task: 'describe', provider: 'local' });
    expect(result.text).toBe('');
    expect(Array.isArray(result.labels)).toBe(true);
    expect(result.labels).toContain('person');
    expect(new Set(result.labels).size).toBe(result.labels.length);
    expect(result.caption).toMatch(/^An image with (a person|\d+ people)/);
    // Derived from the detector's scores, which are modest on this model.
    expect(result.confidence).toBeGreaterThan(0.3);
    expect(result.confidence).toBeLessThan(1);
  });

  it('captions text it reads in a describe task', async () => {
    const result = await vision.analyze({ image: await textImage('OPEN'), task: 'describe', provider: 'local' });
    expect(result).toMatchObject({ text: '', caption: "An image with the text 'OPEN'", labels: [] });
  });
});

it('ends the auto chain with the local provider when every external one fails', async () => {
  fake.behaviour = { openai: 'status500', google: 'malformed', ocrSpace: 'ok' };
  const result = await vision.analyze({ image: await textImage('FALLBACK'), task: 'ocr' });
  expect(result).toMatchObject({ text: 'FALLBACK', providerUsed: 'local' });
  expect([fake.requests.openai.length, fake.requests.google.length]).toEqual([1, 1]);
  fake.reset();
});

it('refuses an image that passes the sniff but cannot be decoded', async () => {
  const png = await textImage('BROKEN');
  const truncated = png.subarray(0, Math.floor(png.length / 3));
  const error = await vision.analyze({ image: truncated, task: 'ocr', provider: 'local', field: 'image_data' }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(AppError);
  expect([(error as AppError).status, (error as AppError).field]).toEqual([400, 'image_data']);
  expect((error as AppError).message).toMatch(/^image_data: the image could not be decoded/);
});

it('keeps the main thread free while models run', async () => {
  const photo = peoplePhoto();
  const page = await textImage(['THE QUICK BROWN FOX', 'JUMPS OVER THE LAZY DOG', 'PACK MY BOX WITH FIVE', 'DOZEN LIQUOR JUGS'], { width: 1000, fontSize: 52 });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const started = performance.now();
  const results = await Promise.all([vision.analyze({ image: photo, task: 'all', provider: 'local' }), vision.analyze({ image: page, task: 'all', provider: 'local' })]);
  const elapsed = performance.now() - started;
  delay.disable();
  expect(results.map((r) => r.providerUsed)).toEqual(['local', 'local']);
  expect(results[1]!.text).toBe('THE QUICK BROWN FOX\nJUMPS OVER THE LAZY DOG\nPACK MY BOX WITH FIVE\nDOZEN LIQUOR JUGS');
  // Worst event-loop stall over the whole run (which takes far longer than this).
  expect(elapsed).toBeGreaterThan(200);
  expect(delay.max / 1e6).toBeLessThan(200);
});
