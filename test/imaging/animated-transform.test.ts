// Animated GIF and WebP sources through the transformation endpoint: webp keeps every frame (scaled
// alike, with its delays), jpg/png/avif give the first frame, and an animation past the frame
// budget (TRANSFORM_MAX_FRAMES, 8 here) or the pixel budget (UPLOAD_MAX_PIXELS in all frames
// together, 40,000 here) gives the first frame too.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { loadConfig } from '../../src/config.js';

let t: TestApp;
let gif: number; // 3 frames of 120 x 80
let webp: number; // 3 frames of 120 x 80
let long: number; // 6 frames of 120 x 80: 57,600 pixels, past the pixel budget
let many: number; // 10 frames of 8 x 8: past the frame budget

const COLOURS = ['#ff0000', '#00ff00', '#0000ff', '#ffff00', '#00ffff', '#ff00ff'];

async function animation(frames: number, format: 'gif' | 'webp', width = 120, height = 80): Promise<Buffer> {
  const pages = await Promise.all(Array.from({ length: frames }, (_, i) => sharp({ create: { width, height, channels: 3, background: COLOURS[i % COLOURS.length]! } }).png().toBuffer()));
  const joined = sharp(pages, { join: { animated: true } });
  const delay = Array.from({ length: frames }, () => 150);
  return format === 'gif' ? joined.gif({ delay, loop: 0 }).toBuffer() : joined.webp({ delay, loop: 0, lossless: true }).toBuffer();
}

async function render(id: number, body: Record<string, unknown>) {
  const optimized = await t.request('POST', `/api/media/${id}/optimize`, { key: t.ownerKey, body });
  expect(optimized.status, optimized.text).toBe(200);
  const response = await fetch(optimized.body.url);
  expect(response.status).toBe(200);
  return sharp(Buffer.from(await response.arrayBuffer()), { animated: true }).metadata();
}

beforeAll(async () => {
  const defaults = loadConfig({});
  t = await startTestApp({ transform: { ...defaults.transform, maxFrames: 8 }, uploadMaxPixels: 40_000 });
  const actor = await t.app.services.auth.authenticate(t.ownerKey);
  const ingest = async (body: Buffer, filename: string) => (await t.app.services.media.ingest(actor, { body, filename })).media.id;
  gif = await ingest(await animation(3, 'gif'), 'spin.gif');
  webp = await ingest(await animation(3, 'webp'), 'spin.webp');
  long = await ingest(await animation(6, 'gif'), 'long.gif');
  many = await ingest(await animation(10, 'gif', 8, 8), 'many.gif');
}, 60_000);
afterAll(() => t?.stop());

describe('animated sources', () => {
  it('keep every frame in webp, each scaled to the asked width, with their delays', async () => {
    for (const id of [gif, webp]) {
      const meta = await render(id, { width: 60, format: 'webp' });
      expect(meta.format).toBe('webp');
      expect(meta.pages).toBe(3);
      expect(meta.width).toBe(60);
      expect(meta.pageHeight).toBe(40);
      expect(meta.delay).toEqual([150, 150, 150]);
      expect(meta.loop).toBe(0);
    }
  });

  it('give the first frame in png, jpg and avif', async () => {
    for (const format of ['png', 'jpg', 'avif']) {
      const meta = await render(gif, { width: 60, format });
      expect(meta.pages ?? 1, format).toBe(1);
      expect(meta.width).toBe(60);
      expect(meta.height).toBe(40);
    }
  });

  it('give the first frame past the pixel or the frame budget, never a refusal', async () => {
    const large = await render(long, { width: 60, format: 'webp' });
    expect(large.pages ?? 1).toBe(1);
    expect([large.width, large.height]).toEqual([60, 40]);
    const longer = await render(many, { width: 8, format: 'webp' });
    expect(longer.pages ?? 1).toBe(1);
    expect([longer.width, longer.height]).toEqual([8, 8]);
  });
});
