// Perceptual hashes of an image and the distance between two: a 64-bit DCT pHash (sharp-phash) and
// a 256-bit blockhash (blockhash-core, 16x16 blocks) of a square RGBA raster of HASH_SIZE pixels a
// side. Near-identical images (resized, recompressed, re-encoded) have hashes a few bits apart.
import { createRequire } from 'node:module';
import type { SharpOptions } from 'sharp';
import { bmvbhash } from 'blockhash-core';
import type { RawInfo } from './decode.js';

// sharp-phash is CommonJS (`module.exports = phash`) while its typings declare a default export.
// Required on first use: it loads sharp (see platform/sharp.ts).
const phash = (image: Buffer, options?: SharpOptions): Promise<string> =>
  (createRequire(import.meta.url)('sharp-phash') as (image: Buffer, options?: SharpOptions) => Promise<string>)(image, options);

/** Side of the square RGBA raster blockhash (and the dominant colour) is computed from. */
export const HASH_SIZE = 256;
const BLOCKHASH_BITS = 16; // 16 x 16 = 256 bits

/** The 64-bit pHash (16 hex digits) of a raw raster of any number of bands. */
export async function phashOf(data: Buffer, info: RawInfo, input: SharpOptions): Promise<string> {
  // sharp-phash greys and resizes whatever it is given; with an alpha band its raw output would
  // interleave grey and alpha, so it gets the raster flattened onto white.
  const opaque = info.channels === 3 ? data : flattenOnWhite(data, info.channels);
  return bitsToHex(await phash(opaque, { ...input, raw: { width: info.width, height: info.height, channels: 3 } }));
}

/** The 256-bit blockhash (64 hex digits) of a square RGBA raster of HASH_SIZE pixels a side. */
export function blockhashOf(rgba: Buffer): string {
  return bmvbhash({ width: HASH_SIZE, height: HASH_SIZE, data: rgba }, BLOCKHASH_BITS);
}

/** Hamming distance between two equal-length hex hashes (pHash: 0-64, blockhash: 0-256). */
export function hammingDistance(hexA: string, hexB: string): number {
  if (hexA.length !== hexB.length) throw new RangeError(`hammingDistance: hashes differ in length (${hexA.length} and ${hexB.length} hex digits)`);
  if (!/^[0-9a-f]*$/i.test(hexA) || !/^[0-9a-f]*$/i.test(hexB)) throw new RangeError('hammingDistance: hashes must be hex strings');
  let distance = 0;
  for (let i = 0; i < hexA.length; i += 6) {
    let x = Number.parseInt(hexA.slice(i, i + 6), 16) ^ Number.parseInt(hexB.slice(i, i + 6), 16);
    while (x) {
      x &= x - 1;
      distance++;
    }
  }
  return distance;
}

function flattenOnWhite(data: Buffer, channels: number): Buffer {
  const pixels = data.length / channels;
  const out = Buffer.allocUnsafe(pixels * 3);
  for (let p = 0; p < pixels; p++) {
    const i = p * channels;
    const alpha = data[i + channels - 1]!;
    const white = 255 * (255 - alpha);
    for (let c = 0; c < 3; c++) {
      const v = channels >= 3 ? data[i + c]! : data[i]!; // grey + alpha repeats the grey
      out[p * 3 + c] = Math.round((v * alpha + white) / 255);
    }
  }
  return out;
}

function bitsToHex(bits: string): string {
  let hex = '';
  for (let i = 0; i < bits.length; i += 4) hex += Number.parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}
