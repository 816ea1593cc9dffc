import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync, gzipSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hammingDistance, ImageRejected, processUpload, type ProcessLimits } from '../../src/modules/media/image.processor.js';
import { deltaE2000, hexToLab } from '../../src/modules/media/colour.js';

const LIMITS: ProcessLimits = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };
const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

// ---------------------------------------------------------------------------------------------
// Fixtures, generated here

function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A photo-like JPEG: gradient at a random angle, a wave texture, grain and overlapping shapes. */
async function photoLike(seed: number, width = 640, height = 480): Promise<Buffer> {
  const random = prng(seed);
  const colour = () => [0, 0, 0].map(() => Math.round(random() * 255));
  const [from, to] = [colour(), colour()] as [number[], number[]];
  const angle = random() * 2 * Math.PI;
  const [dx, dy] = [Math.cos(angle), Math.sin(angle)];
  const kx = (2 * Math.PI * (2 + random() * 8)) / width;
  const ky = (2 * Math.PI * (2 + random() * 8)) / height;
  const pixels = new Uint8ClampedArray(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = Math.min(1, Math.max(0, (x / width - 0.5) * dx + (y / height - 0.5) * dy + 0.5));
      const wave = 20 * Math.sin(kx * x + ky * y);
      const grain = (random() - 0.5) * 24;
      for (let c = 0; c < 3; c++) pixels[(y * width + x) * 3 + c] = from[c]! + (to[c]! - from[c]!) * t + wave + grain;
    }
  }
  const shapes = Array.from({ length: 8 }, () => {
    const [r, g, b] = colour();
    const cx = Math.round(random() * width);
    const cy = Math.round(random() * height);
    const s = Math.round((0.08 + random() * 0.25) * height);
    return random() < 0.5
      ? `<circle cx="${cx}" cy="${cy}" r="${s}" fill="rgb(${r},${g},${b})" fill-opacity="0.85"/>`
      : `<rect x="${cx - s}" y="${cy - s / 2}" width="${2 * s}" height="${s}" fill="rgb(${r},${g},${b})" fill-opacity="0.85"/>`;
  });
  const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`);
  return sharp(Buffer.from(pixels.buffer), { raw: { width, height, channels: 3 } })
    .composite([{ input: svg }])
    .jpeg({ quality: 90 })
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A PNG whose IHDR declares width x height; `idat` is whatever compressed data follows. */
function pngWithHeader(width: number, height: number, bitDepth: number, colourType: number, idat: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = bitDepth;
  ihdr[9] = colourType;
  return Buffer.concat([PNG_SIGNATURE, pngChunk('IHDR', ihdr), pngChunk('IDAT', idat), pngChunk('IEND', Buffer.alloc(0))]);
}

function mp4Box(type: string, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + payload.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, payload]);
}

function isoMedia(major: string, compatible: string[]): Buffer {
  const ftyp = mp4Box('ftyp', Buffer.concat([Buffer.from(major, 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from(compatible.join(''), 'latin1')]));
  return Buffer.concat([ftyp, mp4Box('free', Buffer.alloc(8)), mp4Box('mdat', Buffer.alloc(256, 7))]);
}

function webm(): Buffer {
  const element = (id: number[], payload: Buffer) => Buffer.concat([Buffer.from(id), Buffer.from([0x80 | payload.length]), payload]);
  const header = Buffer.concat([
    element([0x42, 0x86], Buffer.from([1])),
    element([0x42, 0xf7], Buffer.from([1])),
    element([0x42, 0xf2], Buffer.from([4])),
    element([0x42, 0xf3], Buffer.from([8])),
    element([0x42, 0x82], Buffer.from('webm')),
    element([0x42, 0x87], Buffer.from([4])),
    element([0x42, 0x85], Buffer.from([2])),
  ]);
  const segment = Buffer.from([0x18, 0x53, 0x80, 0x67, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
  return Buffer.concat([element([0x1a, 0x45, 0xdf, 0xa3], header), segment, Buffer.alloc(128)]);
}

/** A ZIP archive of stored (uncompressed) entries. */
function zip(entries: Array<[string, string]>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const data = Buffer.from(content);
    const fileName = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    locals.push(local, fileName, data);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(data.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(fileName.length, 28);
    record.writeUInt32LE(offset, 42);
    central.push(record, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n',
);

async function rejection(promise: Promise<unknown>): Promise<ImageRejected> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImageRejected);
    return error as ImageRejected;
  }
  throw new Error('expected processUpload to reject');
}

async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'media-processor-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------

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

describe('processUpload: perceptual hashes', () => {
  let originals: Buffer[];
  beforeAll(async () => {
    originals = await Promise.all([1, 2, 3, 4].map((seed) => photoLike(seed)));
  });

  it('keeps pHash (<= 10 of 64) and blockhash (<= 24 of 256) close for resized and recompressed copies', async () => {
    for (const original of originals) {
      const base = await processUpload(original, LIMITS);
      const copies = [
        await sharp(original).resize(320).jpeg({ quality: 40 }).toBuffer(),
        await sharp(original).resize(900).jpeg({ quality: 30 }).toBuffer(),
        await sharp(original).webp({ quality: 50 }).toBuffer(),
        await sharp(original).png().toBuffer(),
      ];
      for (const copy of copies) {
        const other = await processUpload(copy, LIMITS);
        expect(hammingDistance(base.phash!, other.phash!)).toBeLessThanOrEqual(10);
        expect(hammingDistance(base.blockhash!, other.blockhash!)).toBeLessThanOrEqual(24);
      }
    }
  });

  it('keeps them far apart for different images (pHash >= 20, blockhash >= 64)', async () => {
    const results = await Promise.all(originals.map((body) => processUpload(body, LIMITS)));
    for (let i = 0; i < results.length; i++) {
      for (let j = i + 1; j < results.length; j++) {
        expect(hammingDistance(results[i]!.phash!, results[j]!.phash!)).toBeGreaterThanOrEqual(20);
        expect(hammingDistance(results[i]!.blockhash!, results[j]!.blockhash!)).toBeGreaterThanOrEqual(64);
      }
    }
  });

  it('is deterministic: same bytes, same sha256 and hashes', async () => {
    const body = originals[0]!;
    const [a, b] = await Promise.all([processUpload(body, LIMITS), processUpload(Buffer.from(body), LIMITS)]);
    expect(a.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(b.sha256).toBe(a.sha256);
    expect([b.phash, b.blockhash, b.dominantColour]).toEqual([a.phash, a.blockhash, a.dominantColour]);
    expect((await processUpload(originals[1]!, LIMITS)).sha256).not.toBe(a.sha256);
  });
});

describe('hammingDistance', () => {
  it('counts differing bits of hex hashes', () => {
    expect(hammingDistance('ff', '00')).toBe(8);
    expect(hammingDistance('0123456789abcdef', '0123456789abcdef')).toBe(0);
    expect(hammingDistance('0000000000000001', '8000000000000000')).toBe(2);
    expect(hammingDistance('F0F0', 'f0f1')).toBe(1);
    expect(hammingDistance('f'.repeat(64), '0'.repeat(64))).toBe(256);
  });

  it('refuses hashes of different lengths or non-hex input', () => {
    expect(() => hammingDistance('ff', 'fff')).toThrow(RangeError);
    expect(() => hammingDistance('zz', 'ff')).toThrow(RangeError);
  });
});

describe('processUpload: videos and documents, by their bytes', () => {
  // The uploads are named as if they were JPEGs; processUpload never sees a name or declared type.
  const uploads: Array<[string, () => Buffer, string, string, string]> = [
    ['invoice.jpg (a PDF)', () => PDF, 'document', 'application/pdf', 'pdf'],
    ['clip.jpg (an MP4)', () => isoMedia('isom', ['isom', 'iso2', 'avc1', 'mp41']), 'video', 'video/mp4', 'mp4'],
    ['clip.jpg (a QuickTime movie)', () => isoMedia('qt  ', ['qt  ']), 'video', 'video/quicktime', 'mov'],
    ['clip.jpg (a WebM)', () => webm(), 'video', 'video/webm', 'webm'],
    ['report.jpg (a DOCX)', () => docx(), 'document', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'docx'],
    ['archive.jpg (a ZIP)', () => zip([['notes.txt', 'hello']]), 'document', 'application/zip', 'zip'],
    ['table.jpg (a CSV)', () => Buffer.from('name,price,"note, with comma"\r\nwidget,1.50,ok\r\ngadget,2.00,"fine"\r\n'), 'document', 'text/csv', 'csv'],
  ];

  it.each(uploads)('%s', async (_name, make, kind, mime, ext) => {
    const body = make();
    const result = await processUpload(body, LIMITS);
    expect(result).toEqual({
      kind,
      mime,
      ext,
      bytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      width: null,
      height: null,
      format: null,
      orientationApplied: false,
      dominantColour: null,
      phash: null,
      blockhash: null,
      lowInformation: null,
      thumbnail: null,
      stored: { body, mime, ext },
      original: null,
    });
  });
});

function docx(): Buffer {
  return zip([
    [
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    ['word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>'],
  ]);
}

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
