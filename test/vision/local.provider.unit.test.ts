// The local provider's threads end once idle (VISION_LOCAL_IDLE_MS), taking their models' memory
// with them, and a later analysis starts a thread again and still reads. A short configured idle
// period here; no timing is asserted beyond waiting for the thread to go.
import { afterAll, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { inspectImage } from '../../src/modules/vision/vision.input.js';
import { LocalProvider } from '../../src/modules/vision/providers/local.provider.js';
import { textImage } from '../fixtures/vision/images.js';

const provider = new LocalProvider(
  { threads: 1, idleTimeoutMs: 300, maxQueue: 4, taskTimeoutMs: 60_000, ocrMinConfidence: 60, labelMinScore: 0.4, maxPixels: 40_000_000 },
  createLogger('silent'),
);
afterAll(() => provider.close());

const read = async (words: string) => {
  const image = await inspectImage(await textImage(words, { width: 700, fontSize: 64 }), 'image_data', { maxPixels: 40_000_000, maxBytes: 10 * 1024 * 1024 });
  return provider.analyze(image, 'ocr', 'image_data');
};

it('ends an idle worker thread after the idle period, and reads again afterwards', async () => {
  expect(provider.threads).toBe(0);
  expect((await read('FIRST SIGN')).text).toBe('FIRST SIGN');
  expect(provider.threads).toBe(1);
  await vi.waitFor(() => expect(provider.threads).toBe(0), { timeout: 30_000, interval: 100 });
  expect((await read('SECOND SIGN')).text).toBe('SECOND SIGN');
  expect(provider.threads).toBe(1);
});
