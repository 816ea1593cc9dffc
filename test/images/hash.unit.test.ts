// Perceptual hashes of uploads (pHash, blockhash): close for copies, far apart for different images,
// deterministic; and the Hamming distance between two.
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { hammingDistance, processUpload } from '../../src/modules/images/index.js';
import { LIMITS, photoLike } from './fixtures.js';

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
