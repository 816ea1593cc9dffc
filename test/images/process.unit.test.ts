// processUpload on images: EXIF orientation applied and re-encoded, alpha, animation, the thumbnail
// and the dominant colour.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { processUpload } from '../../src/modules/images/index.js';
import { deltaE2000, hexToLab } from '../../src/modules/images/colour.js';
import { LIMITS, photoLike, pixel, prng } from './fixtures.js';

describe('processUpload: images', () => {
  it('applies EXIF orientation 6: dimensions swapped, stored re-encoded upright with only the ICC profile kept, thumbnail upright', async () => {
    // Stored pixels 400x200: left half red, right half blue. Orientation 6 = rotate 90° clockwise to
    // display, so upright the image is 200x400 with red on top and blue below.
    const raw = Buffer.alloc(400 * 200 * 3);
    for (let y = 0; y < 200; y++) {
      for (let x = 0; x < 400; x++) raw.set(x < 200 ? [230, 20, 20] : [20, 20, 230], (y * 400 + x) * 3);
    }
    const body = await sharp(raw, { raw: { width: 400, height: 200, channels: 3 } })
      .withIccProfile('p3')
      .withMetadata({ orientation: 6 })
      .withExifMerge({ IFD0: { Copyright: 'someone', Artist: 'someone else' } })
      .jpeg({ quality: 90 })
      .toBuffer();
    const before = await sharp(body).metadata();
    expect([before.orientation, before.width, before.height, before.hasProfile, Boolean(before.exif)]).toEqual([6, 400, 200, true, true]);

    const result = await processUpload(body, LIMITS);
    expect(result).toMatchObject({ kind: 'image', mime: 'image/jpeg', ext: 'jpg', format: 'jpeg', width: 200, height: 400, orientationApplied: true });
    expect(result.stored.mime).toBe('image/jpeg');
    expect(result.stored.body.equals(body)).toBe(false);

    const stored = await sharp(result.stored.body).metadata();
    expect([stored.format, stored.width, stored.height]).toEqual(['jpeg', 200, 400]);
    expect(stored.orientation ?? 1).toBe(1);
    expect(stored.exif).toBeUndefined();
    expect(stored.icc?.equals(before.icc!)).toBe(true);
    const storedTop = await pixel(result.stored.body, 100, 20);
    const storedBottom = await pixel(result.stored.body, 100, 380);
    expect(storedTop[0]).toBeGreaterThan(150);
    expect(storedBottom[2]).toBeGreaterThan(150);

    const thumbnail = result.thumbnail!;
    expect(thumbnail.mime).toBe('image/webp');
    expect([thumbnail.width, thumbnail.height]).toEqual([160, 320]);
    const thumbMeta = await sharp(thumbnail.body).metadata();
    expect([thumbMeta.format, thumbMeta.width, thumbMeta.height, thumbMeta.orientation ?? 1]).toEqual(['webp', 160, 320, 1]);
    const top = await pixel(thumbnail.body, 80, 20);
    const bottom = await pixel(thumbnail.body, 80, 300);
    expect(top[0]).toBeGreaterThan(150);
    expect(top[2]).toBeLessThan(100);
    expect(bottom[2]).toBeGreaterThan(150);
    expect(bottom[0]).toBeLessThan(100);
  });

  it('stores an orientation-1 JPEG as uploaded (no re-encode) and keeps 180° dimensions unswapped', async () => {
    const upright = await photoLike(11, 300, 200);
    const result = await processUpload(upright, LIMITS);
    expect(result).toMatchObject({ width: 300, height: 200, orientationApplied: false });
    expect(result.stored.body).toBe(upright);

    const upsideDown = await sharp(upright).withMetadata({ orientation: 3 }).jpeg().toBuffer();
    const turned = await processUpload(upsideDown, LIMITS);
    expect(turned).toMatchObject({ width: 300, height: 200, orientationApplied: true });
    expect((await sharp(turned.stored.body).metadata()).orientation ?? 1).toBe(1);
  });

  it('handles a PNG with alpha: kept as uploaded, transparent thumbnail, colour from the opaque pixels only', async () => {
    const raw = Buffer.alloc(120 * 80 * 4);
    for (let y = 0; y < 80; y++) {
      for (let x = 0; x < 120; x++) raw.set(x < 60 ? [255, 255, 255, 0] : [0, 160, 60, 255], (y * 120 + x) * 4);
    }
    const body = await sharp(raw, { raw: { width: 120, height: 80, channels: 4 } }).png().toBuffer();
    const result = await processUpload(body, LIMITS);
    expect(result).toMatchObject({ kind: 'image', mime: 'image/png', ext: 'png', format: 'png', width: 120, height: 80, orientationApplied: false });
    expect(result.stored).toEqual({ body, mime: 'image/png', ext: 'png' });
    const thumbMeta = await sharp(result.thumbnail!.body).metadata();
    expect([thumbMeta.format, thumbMeta.width, thumbMeta.height, thumbMeta.hasAlpha]).toEqual(['webp', 120, 80, true]);
    expect(deltaE2000(result.dominantColour!.lab, hexToLab('#00a03c'))).toBeLessThan(2);
    expect(result.phash).toMatch(/^[0-9a-f]{16}$/);
    expect(result.blockhash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives a fully transparent image no dominant colour', async () => {
    const body = await sharp({ create: { width: 50, height: 50, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    expect((await processUpload(body, LIMITS)).dominantColour).toBeNull();
  });

  it.each(['gif', 'webp'] as const)('keeps an animated %s animated (stored as uploaded), thumbnail from the first frame', async (format) => {
    const frames = await Promise.all(
      ['#ff0000', '#00ff00', '#0000ff'].map((background) => sharp({ create: { width: 40, height: 30, channels: 4, background } }).png().toBuffer()),
    );
    const animation = sharp(frames, { join: { animated: true } });
    const body = await (format === 'gif' ? animation.gif({ delay: 100, loop: 0 }) : animation.webp({ delay: 100, loop: 0 })).toBuffer();
    expect((await sharp(body).metadata()).pages).toBe(3);

    const result = await processUpload(body, LIMITS);
    expect(result).toMatchObject({ kind: 'image', mime: `image/${format}`, ext: format, format, width: 40, height: 30, orientationApplied: false });
    expect(result.stored.body.equals(body)).toBe(true);
    expect((await sharp(result.stored.body, { animated: true }).metadata()).pages).toBe(3);
    const thumb = await sharp(result.thumbnail!.body).metadata();
    expect(thumb.pages ?? 1).toBe(1);
    expect((await pixel(result.thumbnail!.body, 20, 15))[0]).toBeGreaterThan(200); // first frame: red
    expect(deltaE2000(result.dominantColour!.lab, hexToLab('#ff0000'))).toBeLessThan(3);
  });

  it('fits the thumbnail inside thumbnailSize without enlarging small images', async () => {
    const large = await photoLike(12, 1000, 500);
    expect((await processUpload(large, LIMITS)).thumbnail).toMatchObject({ width: 320, height: 160 });
    expect((await processUpload(large, { ...LIMITS, thumbnailSize: 128 })).thumbnail).toMatchObject({ width: 128, height: 64 });
    expect((await processUpload(large, { ...LIMITS, thumbnailSize: 600 })).thumbnail).toMatchObject({ width: 600, height: 300 });
    const small = await photoLike(13, 100, 50);
    expect((await processUpload(small, LIMITS)).thumbnail).toMatchObject({ width: 100, height: 50 });
  });

  it('finds a reddish dominant colour in a mostly red image', async () => {
    // 70% textured red, a blue band and a grey corner.
    const width = 300;
    const height = 200;
    const random = prng(7);
    const raw = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const jitter = () => Math.round((random() - 0.5) * 30);
        const colour = y > 160 ? [40, 60, 200] : x > 240 && y < 60 ? [128, 128, 128] : [235 + jitter() / 2, 15 + jitter() / 3, 20 + jitter() / 3];
        raw.set(colour.map((c) => Math.max(0, Math.min(255, Math.round(c)))), (y * width + x) * 3);
      }
    }
    const body = await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
    const { dominantColour } = await processUpload(body, LIMITS);
    expect(dominantColour!.hex).toMatch(/^#[0-9a-f]{6}$/);
    expect(dominantColour!.lab).toEqual(hexToLab(dominantColour!.hex).map((v) => expect.closeTo(v, 3)));
    expect(deltaE2000(dominantColour!.lab, hexToLab('#ff0000'))).toBeLessThan(6);
  });
});
