// gpsOf: EXIF GPS positions from JPEG, PNG, WebP, AVIF and HEIC, with signs from the N/S and E/W
// references; null for anything without a usable position, and quickly for crafted containers.
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { gpsOf } from '../../src/modules/images/exif.js';

/** Degrees, minutes and hundredths of seconds as EXIF rationals, the way sharp's withExif takes them. */
function dms(degrees: number): string {
  const hundredths = Math.round(Math.abs(degrees) * 360_000);
  return `${Math.floor(hundredths / 360_000)}/1 ${Math.floor(hundredths / 6000) % 60}/1 ${hundredths % 6000}/100`;
}

async function photoAt(latitude: number, longitude: number, format: 'jpeg' | 'png' | 'webp' | 'avif' = 'jpeg'): Promise<Buffer> {
  const gps = { GPSLatitudeRef: latitude < 0 ? 'S' : 'N', GPSLatitude: dms(latitude), GPSLongitudeRef: longitude < 0 ? 'W' : 'E', GPSLongitude: dms(longitude) };
  return sharp({ create: { width: 48, height: 32, channels: 3, background: '#4080c0' } })
    .withExif({ IFD0: { Make: 'Test camera' }, IFD3: gps })
    .toFormat(format)
    .toBuffer();
}

function expectPosition(found: Awaited<ReturnType<typeof gpsOf>>, latitude: number, longitude: number) {
  expect(found).not.toBeNull();
  expect(found!.latitude).toBeCloseTo(latitude, 5);
  expect(found!.longitude).toBeCloseTo(longitude, 5);
}

describe('gpsOf', () => {
  it.each([
    ['north and east', 48.858222, 2.2945],
    ['south and west', -33.4489, -70.6693],
    ['north and west', 40.689167, -74.044444],
    ['south and east', -33.856784, 151.215297],
  ])('reads a JPEG position %s, with the signs of its references', async (_name, latitude, longitude) => {
    expectPosition(await gpsOf(await photoAt(latitude, longitude)), latitude, longitude);
  });

  it.each(['png', 'webp', 'avif'] as const)('reads the position in a %s', async (format) => {
    const body = await photoAt(-22.951916, -43.210487, format);
    expect((await sharp(body).metadata()).format).toBe(format === 'avif' ? 'heif' : format);
    expectPosition(await gpsOf(body), -22.951916, -43.210487);
  });

  it('reads the position in a HEIC (the fixture made by heif-enc from a JPEG with GPS)', async () => {
    expectPosition(await gpsOf(readFileSync(new URL('../fixtures/heic/scene.heic', import.meta.url))), -33.4489, -70.6693);
  });

  it('is null without GPS tags, without EXIF, and for what is not an image', async () => {
    const plain = sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } });
    expect(await gpsOf(await plain.clone().withExif({ IFD0: { Make: 'Test camera' } }).jpeg().toBuffer())).toBeNull();
    expect(await gpsOf(await plain.clone().jpeg().toBuffer())).toBeNull();
    expect(await gpsOf(await plain.clone().png().toBuffer())).toBeNull();
    expect(await gpsOf(readFileSync(new URL('../fixtures/heic/alpha.heic', import.meta.url)))).toBeNull();
    expect(await gpsOf(Buffer.alloc(0))).toBeNull();
    expect(await gpsOf(Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\n'))).toBeNull();
  });

  it('is null for a latitude that is not on Earth', async () => {
    const body = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#000' } })
      .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '95/1 0/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '10/1 0/1 0/1' } })
      .jpeg()
      .toBuffer();
    expect(await gpsOf(body)).toBeNull();
  });

  it('never throws on damaged files: random bytes changed, files cut short', async () => {
    let state = 7;
    const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const originals = [...(await Promise.all((['jpeg', 'png', 'webp', 'avif'] as const).map((f) => photoAt(51.5, -0.12, f)))), readFileSync(new URL('../fixtures/heic/scene.heic', import.meta.url))];
    for (const original of originals) {
      for (let i = 0; i < 200; i++) {
        const damaged = Buffer.from(original);
        for (let k = 1 + Math.floor(random() * 8); k > 0; k--) damaged[Math.floor(random() * damaged.length)] = Math.floor(random() * 256);
        const body = random() < 0.3 ? damaged.subarray(0, Math.floor(random() * damaged.length)) : damaged;
        const found = await gpsOf(body);
        if (found) {
          expect(Math.abs(found.latitude)).toBeLessThanOrEqual(90);
          expect(Math.abs(found.longitude)).toBeLessThanOrEqual(180);
        }
      }
    }
  });

  describe('bounded time on crafted 25 MB files', () => {
    const SIZE = 25 * 1024 * 1024;
    const quick = async (body: Buffer) => {
      const started = performance.now();
      expect(await gpsOf(body)).toBeNull();
      expect(performance.now() - started).toBeLessThan(250);
    };

    it('a PNG of two million empty chunks', async () => {
      await quick(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(SIZE)]));
    });

    it('a WebP of three million empty chunks', async () => {
      const header = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0xf0, 0xff, 0xff, 0x0f]), Buffer.from('WEBP')]);
      await quick(Buffer.concat([header, Buffer.alloc(SIZE)]));
    });

    it('a JPEG of fill bytes', async () => {
      await quick(Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(SIZE, 0xff)]));
    });

    it('a PNG whose eXIf chunk holds a GPS latitude claiming three million values', async () => {
      // Little-endian TIFF: IFD0 points at the GPS IFD, whose GPSLatitude (RATIONAL) count spans the chunk.
      const tiff = Buffer.alloc(SIZE, 1);
      tiff.write('II*\0', 0, 'latin1');
      tiff.writeUInt32LE(8, 4);
      tiff.writeUInt16LE(1, 8);
      tiff.writeUInt16LE(0x8825, 10); // GPS IFD pointer
      tiff.writeUInt16LE(4, 12);
      tiff.writeUInt32LE(1, 14);
      tiff.writeUInt32LE(26, 18);
      tiff.writeUInt32LE(0, 22);
      tiff.writeUInt16LE(1, 26);
      tiff.writeUInt16LE(0x0002, 28); // GPSLatitude
      tiff.writeUInt16LE(5, 30);
      tiff.writeUInt32LE(Math.floor((SIZE - 64) / 8), 32);
      tiff.writeUInt32LE(64, 36);
      tiff.writeUInt32LE(0, 40);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(tiff.length);
      const ihdr = (await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer()).subarray(0, 33);
      await quick(Buffer.concat([ihdr, length, Buffer.from('eXIf'), tiff, Buffer.alloc(4)]));
    });
  });
});
