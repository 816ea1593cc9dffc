// Image objects (src/modules/image-objects): the distance at which an image is the same object,
// measured on a fixture set made here (resized, JPEG quality 30, WebP, cropped by 5%, captioned
// copies, and unrelated scenes); joining and making objects, also at the same moment; and the
// banded nearest-neighbour search, checked against a full scan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { scene } from '../helpers/images.js';
import { processUpload, hammingDistance } from '../../src/modules/images/index.js';
import { SAME_OBJECT_MAX_DISTANCE, withinBits, type ImageFingerprint } from '../../src/modules/image-objects/index.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.stop());

/** The copies of a picture that must stay the same object. */
const COPIES: Record<string, (image: Buffer) => Promise<Buffer>> = {
  'resized to half': (image) => sharp(image).resize({ width: 400 }).jpeg().toBuffer(),
  'JPEG quality 30': (image) => sharp(image).jpeg({ quality: 30 }).toBuffer(),
  WebP: (image) => sharp(image).webp({ quality: 75 }).toBuffer(),
  // 5% of the area: 2.5% off each side's length, split between both ends.
  'cropped by 5% of its area': (image) => sharp(image).extract({ left: 10, top: 8, width: 780, height: 585 }).jpeg().toBuffer(),
  'small caption': (image) =>
    sharp(image)
      .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="300" height="40"><text x="5" y="30" font-size="26" font-family="sans-serif" fill="white">© Agency 2026</text></svg>'), left: 480, top: 545 }])
      .jpeg()
      .toBuffer(),
};

async function fingerprint(image: Buffer): Promise<ImageFingerprint> {
  const processed = await processUpload(image, { maxBytes: 50_000_000, maxPixels: 80_000_000 });
  return { sha256: processed.sha256, phash: processed.phash!, blockhash: processed.blockhash!, lowInformation: processed.lowInformation!, bytes: processed.bytes, format: processed.format!, width: processed.width!, height: processed.height! };
}

describe('the same-object distance', () => {
  it(`keeps every copy within ${SAME_OBJECT_MAX_DISTANCE} bits of its picture and every unrelated picture beyond`, async () => {
    const scenes = 12;
    const originals: ImageFingerprint[] = [];
    const copies: Record<string, number[]> = {};
    // 5% off each side's length (about 10% of the area): reported for docs/image-objects.md, not required.
    const harderCrop: number[] = [];
    for (let seed = 0; seed < scenes; seed++) {
      const image = await scene(500 + seed);
      const original = await fingerprint(image);
      originals.push(original);
      for (const [name, copy] of Object.entries(COPIES)) (copies[name] ??= []).push(hammingDistance(original.blockhash, (await fingerprint(await copy(image))).blockhash));
      harderCrop.push(hammingDistance(original.blockhash, (await fingerprint(await sharp(image).extract({ left: 20, top: 15, width: 760, height: 570 }).jpeg().toBuffer())).blockhash));
    }
    const unrelated = originals.flatMap((a, i) => originals.slice(i + 1).map((b) => hammingDistance(a.blockhash, b.blockhash)));
    const figures = Object.entries(copies).map(([name, distances]) => `${name}: max ${Math.max(...distances)}`);
    console.error(`blockhash distances over ${scenes} scenes: ${figures.join(', ')}; cropped by 5% of each side: max ${Math.max(...harderCrop)}; unrelated pairs: min ${Math.min(...unrelated)}`);
    for (const distances of Object.values(copies)) expect(Math.max(...distances)).toBeLessThanOrEqual(SAME_OBJECT_MAX_DISTANCE);
    expect(Math.min(...unrelated)).toBeGreaterThan(SAME_OBJECT_MAX_DISTANCE);
  });
});

describe('identifying images', () => {
  it('joins each copy to its picture, keeps an unrelated picture apart, and knows the same bytes again', async () => {
    const image = await scene(9001);
    const first = await t.app.services.imageObjects.identify(await fingerprint(image));
    expect(first.created).toBe(true);
    for (const [name, copy] of Object.entries(COPIES)) {
      const joined = await t.app.services.imageObjects.identify(await fingerprint(await copy(image)));
      expect({ name, created: joined.created, id: joined.object.id }).toEqual({ name, created: false, id: first.object.id });
      expect(joined.distance).toBeLessThanOrEqual(SAME_OBJECT_MAX_DISTANCE);
    }
    const again = await t.app.services.imageObjects.identify(await fingerprint(image));
    expect(again).toMatchObject({ created: false, distance: 0, object: { id: first.object.id } });
    const other = await t.app.services.imageObjects.identify(await fingerprint(await scene(9002)));
    expect(other.created).toBe(true);
    expect(other.object.id).not.toBe(first.object.id);
  });

  it('makes one object when copies of a new picture arrive at the same moment', async () => {
    const image = await scene(9100);
    const prints = await Promise.all([image, ...(await Promise.all(Object.values(COPIES).map((copy) => copy(image))))].map(fingerprint));
    const results = await Promise.all([...prints, ...prints].map((print) => t.app.services.imageObjects.identify(print)));
    expect(new Set(results.map((r) => r.object.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });
});

describe('nearest objects', () => {
  it('probes 1, 17 and 137 band values at radius 0, 1 and 2', () => {
    for (const [radius, count] of [[0, 1], [1, 17], [2, 137]] as const) {
      const values = withinBits(0xbeef, radius);
      expect(new Set(values).size).toBe(count);
      for (const value of values) expect(popcount(value ^ 0xbeef)).toBeLessThanOrEqual(radius);
    }
  });

  it('finds exactly what a full scan finds within 47 bits, nearest first', async () => {
    const random = seeded(7);
    const query = randomHash(random);
    // Planted neighbours at known distances, with unrelated hashes around them.
    const planted = [0, 3, 9, 15, 16, 22, 31, 32, 40, 47, 48, 60].map((distance) => flipBits(query, distance, random));
    const noise = Array.from({ length: 300 }, () => randomHash(random));
    const hashes = [...planted, ...noise];
    const rows = hashes.map((blockhash, i) => ({ sha256: `nearest-${i}-${blockhash.slice(0, 8)}`, phash: '0'.repeat(16), blockhash, bytes: 1, format: 'jpeg', width: 1, height: 1 }));
    await t.app.services.db.prisma.imageObject.createMany({ data: rows });
    const mine = new Set(rows.map((r) => r.sha256));
    const scan = (max: number) =>
      hashes
        .map((blockhash) => hammingDistance(query, blockhash))
        .filter((distance) => distance <= max)
        .sort((a, b) => a - b);
    for (const [limit, max] of [[10, 47], [3, 40], [50, 15], [50, 31], [50, 47]] as const) {
      const found = (await t.app.services.imageObjects.nearest(query, limit, max)).filter((n) => mine.has(n.object.sha256));
      expect(found.map((n) => n.distance), `limit ${limit}, within ${max}`).toEqual(scan(max).slice(0, limit));
      for (const n of found) expect(n.distance).toBe(hammingDistance(query, n.object.blockhash));
    }
  });

  it('refuses what is not a blockhash', async () => {
    await expect(t.app.services.imageObjects.nearest('xyz')).rejects.toThrow(/64 hex characters/);
    await expect(t.app.services.imageObjects.nearest('g'.repeat(64))).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/^blockhash: /) });
  });

  it('refuses a distance it cannot answer exactly, and a limit below one, naming the field', async () => {
    const hash = 'a'.repeat(64);
    for (const maxDistance of [48, -1, 1.5]) await expect(t.app.services.imageObjects.nearest(hash, 10, maxDistance)).rejects.toMatchObject({ status: 400, message: 'maxDistance: expected an integer from 0 to 47 bits' });
    for (const limit of [0, 2.5]) await expect(t.app.services.imageObjects.nearest(hash, limit)).rejects.toMatchObject({ status: 400, message: 'limit: expected a positive integer' });
  });
});

function popcount(value: number): number {
  let count = 0;
  for (let v = value; v; v &= v - 1) count++;
  return count;
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

function randomHash(random: () => number): string {
  return Array.from({ length: 64 }, () => Math.floor(random() * 16).toString(16)).join('');
}

/** The hash with `count` distinct bits flipped. */
function flipBits(hash: string, count: number, random: () => number): string {
  const bits = [...hash].flatMap((digit) => parseInt(digit, 16).toString(2).padStart(4, '0').split('').map(Number));
  const positions = new Set<number>();
  while (positions.size < count) positions.add(Math.floor(random() * 256));
  for (const position of positions) bits[position] = 1 - bits[position]!;
  return Array.from({ length: 64 }, (_, i) => parseInt(bits.slice(i * 4, i * 4 + 4).join(''), 2).toString(16)).join('');
}
