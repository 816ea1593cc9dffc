// What processUpload refuses, and how: unknown bytes, empty and oversized files, undecodable images,
// and decompression bombs refused from the header before any pixel is decoded.
import { deflateSync, gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { processUpload, type ProcessLimits } from '../../src/modules/images/index.js';
import { LIMITS, photoLike, pngWithHeader, prng, rejection } from './fixtures.js';

describe('processUpload: refusals', () => {
  it('refuses random bytes with 400 IMAGE_REJECTED on file', async () => {
    const random = prng(99);
    const body = Buffer.from(Array.from({ length: 4096 }, () => Math.floor(random() * 256)));
    const error = await rejection(processUpload(body, LIMITS));
    expect(error).toMatchObject({ status: 400, code: 'IMAGE_REJECTED', field: 'file' });
    expect(error.message).toBe('file: not a supported image, video or document (detected unknown binary data)');
  });

  it.each([
    ['a Windows executable', Buffer.concat([Buffer.from('MZ'), Buffer.alloc(300)]), 'application/x-msdownload'],
    ['a gzipped SVG', gzipSync(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), 'application/gzip'],
    ['an HTML page', Buffer.from('<!doctype html><html><body><p>a, b</p><p>c</p></body></html>'), 'plain text'],
    ['plain prose', Buffer.from('Dear reader, this is a letter.\nIt has lines, and commas, in varying numbers, here.\n'), 'plain text'],
    ['XML that is not SVG', Buffer.from('<?xml version="1.0"?><feed><entry/></feed>'), 'application/xml'],
  ])('refuses %s, naming what it detected', async (_name, body, detected) => {
    const error = await rejection(processUpload(body, LIMITS));
    expect(error.status).toBe(400);
    expect(error.message).toBe(`file: not a supported image, video or document (detected ${detected})`);
  });

  it('refuses an empty file', async () => {
    expect((await rejection(processUpload(Buffer.alloc(0), LIMITS))).status).toBe(400);
  });

  it('refuses a file over maxBytes with 413', async () => {
    const body = await photoLike(21, 200, 100);
    const error = await rejection(processUpload(body, { ...LIMITS, maxBytes: body.length - 1 }));
    expect(error).toMatchObject({ status: 413, code: 'IMAGE_REJECTED', field: 'file' });
    expect(error.message).toMatch(/^file: [\d,]+ bytes is over the [\d,]+-byte limit$/);
    expect((await processUpload(body, { ...LIMITS, maxBytes: body.length })).kind).toBe('image');
  });

  it('refuses an image that cannot be decoded with 400', async () => {
    const png = await sharp(await photoLike(22, 200, 100)).png().toBuffer();
    const truncated = png.subarray(0, Math.floor(png.length / 2));
    const error = await rejection(processUpload(truncated, LIMITS));
    expect(error).toMatchObject({ status: 400, code: 'IMAGE_REJECTED', field: 'file' });
    expect(error.message).toMatch(/^file: the png image could not be decoded \(.+\)$/);
  });

  describe('decompression bombs and oversized images, refused from the header before decoding', () => {
    const fast = async (body: Buffer, limits: ProcessLimits = LIMITS) => {
      const started = performance.now();
      const error = await rejection(processUpload(body, limits));
      const elapsed = performance.now() - started;
      expect(error).toMatchObject({ status: 413, code: 'IMAGE_REJECTED', field: 'file' });
      expect(error.message).toMatch(/pixel limit; refused before decoding$/);
      expect(elapsed).toBeLessThan(250);
      return error;
    };

    it('a crafted PNG header claiming 100000x100000 pixels', async () => {
      const body = pngWithHeader(100_000, 100_000, 8, 2, deflateSync(Buffer.alloc(64)));
      expect(body.length).toBeLessThan(200);
      await fast(body);
    });

    it('a real 20000x20000 PNG bomb (48 KB on disk, 400 megapixels)', async () => {
      // 1-bit greyscale, every row filter 0 + 2500 zero bytes: a valid, fully decodable image.
      const rows = Buffer.alloc(20_000 * 2501);
      const body = pngWithHeader(20_000, 20_000, 1, 0, deflateSync(rows, { level: 9 }));
      expect(body.length).toBeLessThan(64 * 1024);
      await fast(body);
    });

    it('a JPEG whose frame header is patched to 60000x60000', async () => {
      const body = Buffer.from(await photoLike(31, 64, 48));
      const sof = body.indexOf(Buffer.from([0xff, 0xc0]));
      expect(sof).toBeGreaterThan(0);
      body.writeUInt16BE(60_000, sof + 5);
      body.writeUInt16BE(60_000, sof + 7);
      await fast(body);
    });

    it('an ordinary image one pixel over maxPixels, accepted at exactly maxPixels', async () => {
      const body = await photoLike(32, 200, 100);
      const error = await fast(body, { ...LIMITS, maxPixels: 19_999 });
      expect(error.message).toContain('the 19,999-pixel limit');
      expect((await processUpload(body, { ...LIMITS, maxPixels: 20_000 })).width).toBe(200);
    });
  });
});
