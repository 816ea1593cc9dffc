// Files made here for the image-processing tests (test/images/*.unit.test.ts): photo-like JPEGs,
// PNGs with a chosen header, ISO media, WebM, ZIP, DOCX and PDF bytes, and two small checks.
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { expect } from 'vitest';
import { ImageRejected, type ProcessLimits } from '../../src/modules/images/index.js';

export const LIMITS: ProcessLimits = { maxBytes: 10 * 1024 * 1024, maxPixels: 40_000_000 };
export const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);

export function prng(seed: number): () => number {
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
export async function photoLike(seed: number, width = 640, height = 480): Promise<Buffer> {
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
export function pngWithHeader(width: number, height: number, bitDepth: number, colourType: number, idat: Buffer): Buffer {
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

export function isoMedia(major: string, compatible: string[]): Buffer {
  const ftyp = mp4Box('ftyp', Buffer.concat([Buffer.from(major, 'latin1'), Buffer.from([0, 0, 2, 0]), Buffer.from(compatible.join(''), 'latin1')]));
  return Buffer.concat([ftyp, mp4Box('free', Buffer.alloc(8)), mp4Box('mdat', Buffer.alloc(256, 7))]);
}

export function webm(): Buffer {
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
export function zip(entries: Array<[string, string]>): Buffer {
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

export const PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n',
);

export async function rejection(promise: Promise<unknown>): Promise<ImageRejected> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ImageRejected);
    return error as ImageRejected;
  }
  throw new Error('expected processUpload to reject');
}

export async function pixel(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

export function docx(): Buffer {
  return zip([
    [
      '[Content_Types].xml',
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ],
    ['word/document.xml', '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>'],
  ]);
}
