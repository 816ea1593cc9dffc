// The pure parts of vision: captions, OCR filtering, detection summaries, confidence, input checks.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { buildCaption, plural, quoteText, NOTHING_FOUND_CAPTION } from '../../src/modules/vision/caption.js';
import { filterOcr, localResult, summariseDetections } from '../../src/modules/vision/local/local-result.js';
import { decodeBase64, inspectImage } from '../../src/modules/vision/vision.input.js';
import { parseModelJson } from '../../src/modules/vision/providers/openai.provider.js';
import { loadConfig } from '../../src/config.js';
import { AppError } from '../../src/platform/errors.js';

const limits = { maxPixels: 1_000_000, maxBytes: 1_000_000 };

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

async function rejected(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => new Error('expected a refusal'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('captions', () => {
  it('counts objects, names the text, and says when nothing was found', () => {
    expect(buildCaption({ objects: [{ label: 'person', count: 2 }, { label: 'dog', count: 1 }], text: 'OPEN' })).toBe("An image with 2 people and a dog, with the text 'OPEN'");
    expect(buildCaption({ objects: [{ label: 'umbrella', count: 1 }, { label: 'bus', count: 3 }, { label: 'cup', count: 1 }], text: '' })).toBe('An image with an umbrella, 3 buses and a cup');
    expect(buildCaption({ objects: [], text: 'Fresh bread\ndaily' })).toBe("An image with the text 'Fresh bread daily'");
    expect(buildCaption({ objects: [], sceneLabels: ['Sky', 'Cloud'], text: '' })).toBe('An image showing sky and cloud');
    expect(buildCaption({ objects: [], text: '  ' })).toBe(NOTHING_FOUND_CAPTION);
  });

  it('pluralises the detector labels', () => {
    expect(['person', 'mouse', 'knife', 'sheep', 'bus', 'wine glass', 'teddy bear', 'toothbrush', 'skis', 'cell phone'].map(plural)).toEqual([
      'people', 'mice', 'knives', 'sheep', 'buses', 'wine glasses', 'teddy bears', 'toothbrushes', 'skis', 'cell phones',
    ]);
  });

  it('quotes long text by its first words', () => {
    expect(quoteText('SELECT IMAGE TO SHOW DETECTED FACES AND MORE WORDS')).toBe('SELECT IMAGE TO SHOW DETECTED FACES AND...');
  });
});

describe('OCR filtering', () => {
  const line = (confidence: number, ...words: Array<[string, number]>) => ({ confidence, words: words.map(([text, c]) => ({ text, confidence: c })) });

  it('keeps confident lines and words, weighting confidence by length', () => {
    const result = filterOcr([line(95, ['HELLO', 96], ['WORLD', 94]), line(90, ['OPEN', 90], ['|', 93], ['x7', 40])], 60);
    expect(result.text).toBe('HELLO WORLD\nOPEN');
    expect(result.words).toBe(3);
    expect(result.confidence).toBeCloseTo((96 * 5 + 94 * 5 + 90 * 4) / 14 / 100, 6);
  });

  it('drops the noise photos give: weak lines, lone characters', () => {
    const result = filterOcr([line(25, ['3', 69], ['TL', 33]), line(70, ['4', 80]), line(50, ['lk', 90])], 60);
    expect(result).toEqual({ text: '', confidence: null, words: 0 });
  });
});

describe('detections', () => {
  it('counts each label above the threshold once, best first', () => {
    const summary = summariseDetections(
      [
        { label: 'person', score: 0.5 },
        { label: 'dog', score: 0.7 },
        { label: 'person', score: 0.6 },
        { label: 'tie', score: 0.21 },
      ],
      0.3,
    );
    expect(summary).toEqual([
      { label: 'dog', count: 1, score: 0.7 },
      { label: 'person', count: 2, score: 0.6 },
    ]);
  });

  it('reports a label only when its best detection reaches the threshold, then counts weaker ones', () => {
    const summary = summariseDetections(
      [
        { label: 'bird', score: 0.37 },
        { label: 'person', score: 0.65 },
        { label: 'person', score: 0.32 },
        { label: 'person', score: 0.25 },
      ],
      0.4,
    );
    expect(summary).toEqual([{ label: 'person', count: 2, score: 0.65 }]);
  });
});

describe('local results', () => {
  const options = { ocrMinConfidence: 60, labelMinScore: 0.3 };
  const raw = {
    ocrLines: [{ confidence: 90, words: [{ text: 'OPEN', confidence: 90 }] }],
    detections: [
      { label: 'person', score: 0.6 },
      { label: 'person', score: 0.4 },
    ],
    timings: { decodeMs: 1 },
  };

  it('keeps the result keys stable and fills what the task asked for', () => {
    expect(localResult('ocr', raw, options)).toEqual({ text: 'OPEN', caption: '', labels: [], confidence: 0.9 });
    expect(localResult('describe', raw, options)).toEqual({ text: '', caption: "An image with 2 people, with the text 'OPEN'", labels: ['person'], confidence: 0.75 });
    expect(localResult('all', raw, options)).toEqual({ text: 'OPEN', caption: "An image with 2 people, with the text 'OPEN'", labels: ['person'], confidence: 0.75 });
  });

  it('reports a low confidence when nothing was recognised', () => {
    expect(localResult('all', { ocrLines: [], detections: [], timings: { decodeMs: 1 } }, options)).toEqual({ text: '', caption: NOTHING_FOUND_CAPTION, labels: [], confidence: 0.2 });
  });
});

describe('image input', () => {
  it('decodes base64 with or without a data: prefix, URL-safe or not', () => {
    const bytes = Buffer.from([0xfb, 0xff, 0x00, 0x10]);
    expect(decodeBase64(bytes.toString('base64'), 'image_data')).toEqual(bytes);
    expect(decodeBase64(`data:image/png;base64,${bytes.toString('base64')}`, 'image_data')).toEqual(bytes);
    expect(decodeBase64(bytes.toString('base64url'), 'image_data')).toEqual(bytes);
    expect(decodeBase64(` ${bytes.toString('base64').slice(0, 4)}\n${bytes.toString('base64').slice(4)} `, 'image_data')).toEqual(bytes);
  });

  it('refuses what is not base64, naming the field', () => {
    for (const bad of ['not base64!', 'data:image/png,rawbytes', 'abcde', '']) {
      const error = thrown(() => decodeBase64(bad, 'image_data'));
      expect([error.status, error.field]).toEqual([400, 'image_data']);
      expect(error.message).toMatch(/^image_data: /);
    }
  });

  it('sniffs the bytes: non-images, unsupported formats and oversized images are refused', async () => {
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#fff' } }).png().toBuffer();
    expect(await inspectImage(png, 'image_file', limits)).toMatchObject({ format: 'png', mime: 'image/png', width: 10, height: 10 });
    const avif = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#888' } }).avif().toBuffer();
    expect(await inspectImage(avif, 'image_file', limits)).toMatchObject({ format: 'avif', mime: 'image/avif' });

    const notImage = await rejected(inspectImage(Buffer.from('%PDF-1.4 hello'), 'image_file', limits));
    expect([notImage.status, notImage.field, notImage.message]).toEqual([400, 'image_file', 'image_file: not an image (expected JPEG, PNG, WebP, GIF, TIFF or AVIF)']);

    const svg = await rejected(inspectImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'), 'image_data', limits));
    expect(svg.message).toBe('image_data: unsupported image format svg (expected JPEG, PNG, WebP, GIF, TIFF or AVIF)');

    const big = await sharp({ create: { width: 2000, height: 600, channels: 3, background: '#fff' } }).png().toBuffer();
    const tooBig = await rejected(inspectImage(big, 'image_data', limits));
    expect([tooBig.status, tooBig.message]).toEqual([400, 'image_data: the image has 2000x600 pixels, more than the limit of 1000000 pixels']);

    const heavy = await rejected(inspectImage(png, 'image_data', { ...limits, maxBytes: 10 }));
    expect(heavy.status).toBe(413);
  });
});

describe('configuration', () => {
  it('reads the provider order and treats empty keys as unset', () => {
    const config = loadConfig({ VISION_PROVIDER_ORDER: 'ocr_space, google_vision', VISION_OPENAI_API_KEY: '', VISION_GOOGLE_API_KEY: 'k' });
    expect(config.vision.order).toEqual(['ocr_space', 'google_vision']);
    expect(config.vision.openai).toBeUndefined();
    expect(config.vision.googleVision).toEqual({ apiKey: 'k', baseUrl: 'https://vision.googleapis.com/v1' });
    expect(() => loadConfig({ VISION_PROVIDER_ORDER: 'openai,azure' })).toThrow(/VISION_PROVIDER_ORDER/);
  });
});

it('parses model JSON with or without a code fence', () => {
  expect(parseModelJson('{"a":1}')).toEqual({ a: 1 });
  expect(parseModelJson('```json\n{"a":1}\n```')).toEqual({ a: 1 });
});
