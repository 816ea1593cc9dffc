// processUpload on SVG: rasterised to PNG, never stored, refused when its size or its rendering cost
// has no bound, and blind to local files.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImageRejected, processUpload } from '../../src/modules/images/index.js';
import { deltaE2000, hexToLab } from '../../src/modules/images/colour.js';
import { LIMITS, PNG_SIGNATURE, pixel } from './fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'media-processor-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});
describe('processUpload: SVG', () => {
  it('rasterises SVG to PNG and never stores or returns the SVG (scripts and handlers gone)', async () => {
    const body = Buffer.from(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- logo -->\n<svg xmlns="http://www.w3.org/2000/svg" width="300" height="150" onload="alert(1)">' +
        '<script>alert(document.cookie)</script><rect width="300" height="150" fill="#0000cc"/>' +
        '<a href="javascript:alert(2)"><circle cx="150" cy="75" r="20" fill="#ffffff"/></a></svg>',
    );
    const result = await processUpload(body, LIMITS);
    expect(result).toMatchObject({ kind: 'image', mime: 'image/png', ext: 'png', format: 'svg', width: 300, height: 150, orientationApplied: false });
    expect(result.stored.mime).toBe('image/png');
    expect(result.stored.ext).toBe('png');
    expect(result.stored.body.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    for (const output of [result.stored.body, result.thumbnail!.body]) {
      const text = output.toString('latin1').toLowerCase();
      expect(text).not.toContain('<script');
      expect(text).not.toContain('<svg');
      expect(text).not.toContain('javascript:');
    }
    const stored = await sharp(result.stored.body).metadata();
    expect([stored.format, stored.width, stored.height]).toEqual(['png', 300, 150]);
    expect(deltaE2000(result.dominantColour!.lab, hexToLab('#0000cc'))).toBeLessThan(3);
    expect(result.sha256).toBe(createHash('sha256').update(body).digest('hex'));
  });

  it('refuses an SVG that declares more pixels than the limit from its header (width and height, or the viewBox), as any format', async () => {
    const declared = [
      '<svg xmlns="http://www.w3.org/2000/svg" width="30000" height="30000"><rect width="100%" height="100%" fill="#c00"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="50000"><rect width="100%" height="100%" fill="#c00"/></svg>',
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30000 30000"><rect width="100%" height="100%" fill="#c00"/></svg>',
      // Just over: 6400 x 6400 = 40,960,000 pixels against a 40,000,000-pixel limit.
      '<svg xmlns="http://www.w3.org/2000/svg" width="6400" height="6400"><rect width="100%" height="100%" fill="#c00"/></svg>',
    ];
    for (const svg of declared) {
      const refused = await processUpload(Buffer.from(svg), LIMITS).then(() => null, (error: unknown) => error);
      expect(refused, svg).toBeInstanceOf(ImageRejected);
      expect((refused as ImageRejected).status, svg).toBe(413);
      expect((refused as ImageRejected).message).toMatch(/^file: the image (is \d+x\d+ pixels, over|declares more pixels than) the 40,000,000-pixel limit; refused before decoding$/);
    }
  });

  it('rasterises an SVG within the pixel limit to at most 2048 px on its longest side', async () => {
    const body = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="6000" height="3000"><rect width="100%" height="100%" fill="#c00"/></svg>');
    const result = await processUpload(body, LIMITS);
    expect([result.width, result.height]).toEqual([2048, 1024]);
  });

  it('refuses SVG filters and what could spell them (entities, character references, CSS escapes) before rendering', async () => {
    const svg = (inner: string, prolog = '') => `${prolog}<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000">${inner}<rect width="100%" height="100%"/></svg>`;
    const filters = [
      // About 300 bytes: a filter costing seconds of CPU at this size before.
      svg('<filter id="f"><feTurbulence baseFrequency="0.9" numOctaves="10"/><feGaussianBlur stdDeviation="500"/></filter><rect width="100%" height="100%" filter="url(#f)"/>'),
      svg('<filter id="f"><feConvolveMatrix order="3" kernelMatrix="1 1 1 1 1 1 1 1 1"/></filter>'),
      svg('<svg:filter xmlns:svg="http://www.w3.org/2000/svg" id="f"/>'),
      svg('<rect width="10" height="10" style="filter: blur(500px)"/>'),
      svg('<style>rect { filter: blur(500px) }</style>'),
      svg('<rect width="10" height="10" style="&#102;ilter: blur(500px)"/>'),
      svg('<style>rect { filt\\65r: blur(500px) }</style>'),
      svg('<rect width="10" height="10" filter="url(#x)"/>'),
      svg('&f;', '<!DOCTYPE svg [<!ENTITY f "&#60;filter id=\'x\'/&#62;">]>'),
      // A CSS comment between the property and its colon is still a filter declaration.
      svg('<rect width="10" height="10" style="filter/**/: blur(500px)"/>'),
      svg('<style>rect { filter /* x */ : blur(500px) }</style>'),
      // What data: URLs carry, which librsvg loads: an <image> of an SVG with a filter, a stylesheet of CSS.
      svg(`<image width="100" height="100" href="data:image/svg+xml;base64,${Buffer.from(svg('<rect style="filter: blur(500px)"/>')).toString('base64')}"/>`),
      svg(`<image width="100" height="100" href="data:image/svg+xml,${encodeURIComponent(svg('<filter id="f"><feTurbulence/></filter>'))}"/>`),
      svg(`<image width="100" height="100" href="data:image/svg+xml;base64;charset=utf-8,${Buffer.from(svg('<filter id="f"/>')).toString('base64')}"/>`),
      `<?xml-stylesheet type="text/css" href="data:text/css;base64,${Buffer.from('rect { filter: blur(500px) }').toString('base64')}"?>${svg('')}`,
    ];
    for (const body of filters) {
      const refused = await processUpload(Buffer.from(body), LIMITS).then(() => null, (error: unknown) => error);
      expect(refused, body).toBeInstanceOf(ImageRejected);
      expect((refused as ImageRejected).status, body).toBe(400);
      expect((refused as ImageRejected).message, body).toMatch(/^file: SVG (filters|with entity declarations)/);
    }
    // Gradients, and the word in text, are fine.
    const fine = svg('<defs><linearGradient id="g"><stop offset="0" stop-color="#00f"/></linearGradient></defs><text x="5" y="20">no filters here</text>');
    expect((await processUpload(Buffer.from(fine), LIMITS)).format).toBe('svg');
    // An embedded raster image is fine; a compressed payload (a gzipped SVG librsvg would inflate) is not.
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0a0' } }).png().toBuffer();
    expect((await processUpload(Buffer.from(svg(`<image width="8" height="8" href="data:image/png;base64,${png.toString('base64')}"/>`)), LIMITS)).format).toBe('svg');
    const gzipped = svg(`<image width="8" height="8" href="data:image/svg+xml;base64,${gzipSync(svg('<filter id="f"/>')).toString('base64')}"/>`);
    await expect(processUpload(Buffer.from(gzipped), LIMITS)).rejects.toThrow(/compressed \(gzip\) data: URL/);
    // Data URLs in data URLs are read to a bounded depth; a text of many "data:" is read once, not
    // once per occurrence (a few MB of them answered, never a stack overflow).
    let nested = svg('');
    for (let i = 0; i < 4; i++) nested = svg(`<image width="8" height="8" href="data:image/svg+xml;base64,${Buffer.from(nested).toString('base64')}"/>`);
    await expect(processUpload(Buffer.from(nested), LIMITS)).rejects.toThrow(/data: URLs nested more than 3 deep/);
    for (const text of ['data:'.repeat(400_000), 'data:,%64ata:,'.repeat(200_000)]) {
      expect((await processUpload(Buffer.from(svg(`<desc>${text}</desc>`)), LIMITS)).format).toBe('svg');
    }
  });

  it('does not let an SVG pull in local files', async () => {
    const red = join(dir, 'red.png');
    writeFileSync(red, await sharp({ create: { width: 50, height: 50, channels: 3, background: '#ff0000' } }).png().toBuffer());
    const body = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">` +
        `<rect width="50" height="50" fill="#00ff00"/><image href="file://${red}" width="50" height="50"/><image xlink:href="${red}" width="50" height="50"/></svg>`,
    );
    const result = await processUpload(body, LIMITS);
    expect(await pixel(result.stored.body, 25, 25)).toEqual([0, 255, 0]);
  });
});
