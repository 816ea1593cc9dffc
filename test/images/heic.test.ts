// HEIC/HEIF uploads: real HEVC decodes (libheif-js in a worker thread) of the committed fixtures in
// test/fixtures/heic/ (its README says how they were made), through processUpload. The upload route
// (a JPEG served, the HEIC kept privately and purged with the item): test/media/heic-upload.test.ts.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { gpsOf } from '../../src/modules/images/exif.js';
import { decodeHeic } from '../../src/modules/images/heic.decoder.js';
import { hammingDistance, processUpload, type ProcessLimits } from '../../src/modules/images/index.js';
import { brokenHeics, heicFixture as fixture } from '../helpers/heic.js';
import { scene } from '../helpers/images.js';

const LIMITS: ProcessLimits = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };
const sha256 = (body: Buffer) => createHash('sha256').update(body).digest('hex');

async function rejection(promise: Promise<unknown>): Promise<Error & { status: number; code: string; field: string }> {
  try {
    await promise;
  } catch (error) {
    return error as Error & { status: number; code: string; field: string };
  }
  throw new Error('expected a rejection');
}

describe('processUpload: HEIC/HEIF', () => {
  it('decodes the HEIC, hashes it like the JPEG it was encoded from, and stores a metadata-free JPEG', async () => {
    const heic = fixture('scene.heic');
    const [fromHeic, fromJpeg, other] = await Promise.all([
      processUpload(heic, LIMITS),
      processUpload(fixture('scene.jpg'), LIMITS),
      processUpload(await scene(8, 330, 250), LIMITS),
    ]);
    expect(fromHeic).toMatchObject({ kind: 'image', mime: 'image/jpeg', ext: 'jpg', format: 'heif', width: 330, height: 250, bytes: heic.length, sha256: sha256(heic), orientationApplied: false });
    expect(hammingDistance(fromHeic.blockhash!, fromJpeg.blockhash!)).toBeLessThanOrEqual(8);
    expect(hammingDistance(fromHeic.phash!, fromJpeg.phash!)).toBeLessThanOrEqual(4);
    // Close means something: another picture is far from both.
    expect(hammingDistance(fromHeic.blockhash!, other.blockhash!)).toBeGreaterThan(60);
    expect(fromHeic.dominantColour!.hex).toMatch(/^#[0-9a-f]{6}$/);
    expect(fromHeic.thumbnail).toMatchObject({ mime: 'image/webp', width: 320, height: 242 });

    expect(fromHeic.stored.mime).toBe('image/jpeg');
    expect(fromHeic.stored.ext).toBe('jpg');
    const stored = await sharp(fromHeic.stored.body).metadata();
    expect(stored).toMatchObject({ format: 'jpeg', width: 330, height: 250 });
    expect(stored.exif).toBeUndefined();
    expect(await gpsOf(heic)).not.toBeNull(); // the upload had a position; the served file has none
    expect(await gpsOf(fromHeic.stored.body)).toBeNull();
    // The pixels are the picture's: mean difference from the source JPEG of a few levels per channel.
    const [a, b] = await Promise.all([sharp(fromHeic.stored.body).raw().toBuffer(), sharp(fixture('scene.jpg')).raw().toBuffer()]);
    let difference = 0;
    for (let i = 0; i < a.length; i++) difference += Math.abs(a[i]! - b[i]!);
    expect(difference / a.length).toBeLessThan(6);

    expect(fromHeic.original).toEqual({ body: heic, mime: 'image/heic', ext: 'heic' });
    expect(fromJpeg.original).toBeNull();
  });

  it('flattens transparency onto white in the JPEG and leaves it out of the dominant colour', async () => {
    const result = await processUpload(fixture('alpha.heic'), LIMITS);
    expect(result).toMatchObject({ width: 64, height: 48, mime: 'image/jpeg', format: 'heif' });
    const { data, info } = await sharp(result.stored.body).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    expect(info.channels).toBe(3);
    for (const [channel, expected] of pixel(8, 24).map((v, i) => [v, [0xd0, 0x20, 0x20][i]!])) expect(Math.abs(channel! - expected!)).toBeLessThan(12);
    for (const channel of pixel(56, 24)) expect(channel).toBeGreaterThan(245);
    expect(result.dominantColour!.hex).toMatch(/^#[c-d][0-9a-f]2[0-9a-f]2[0-9a-f]$/);
  });

  it('takes an AVIF that carries the generic HEIF brand (mif1) as AVIF, decoded by sharp', async () => {
    const avif = await sharp(await scene(9, 120, 90)).avif().toBuffer();
    avif.write('mif1', 8, 'latin1');
    const result = await processUpload(avif, LIMITS);
    expect(result).toMatchObject({ mime: 'image/avif', ext: 'avif', format: 'avif', width: 120, height: 90, original: null });
    expect(result.stored.body).toBe(avif);
  });

  it('refuses a HEIC over the pixel limit from its header, before decoding (413)', async () => {
    const heic = fixture('scene.heic');
    const error = await rejection(processUpload(heic, { ...LIMITS, maxPixels: 330 * 250 - 1 }));
    expect(error).toMatchObject({ status: 413, code: 'IMAGE_REJECTED', field: 'file' });
    expect(error.message).toMatch(/pixel limit; refused before decoding$/);
    expect((await processUpload(heic, { ...LIMITS, maxPixels: 330 * 250 })).width).toBe(330);
    // The decoding thread checks the size libheif reads from the container too.
    expect(await decodeHeic(heic, 1000)).toEqual({ ok: false, tooManyPixels: { width: 330, height: 250 } });
  });

  it.each(brokenHeics())('refuses %s with 400 IMAGE_REJECTED naming file', async (_name, body) => {
    const error = await rejection(processUpload(body, LIMITS));
    expect(error).toMatchObject({ status: 400, code: 'IMAGE_REJECTED', field: 'file' });
    expect(error.message).toMatch(/^file: the heif image could not be (read|decoded) \(.+\)$/);
  });

  it('keeps decoding after a refusal (the worker survives bad input)', async () => {
    await rejection(processUpload(brokenHeics()[2]![1], LIMITS));
    expect((await processUpload(fixture('alpha.heic'), LIMITS)).width).toBe(64);
  });
});
