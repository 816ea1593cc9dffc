// How much an image tells a perceptual hash: flat colours, smooth gradients, almost blank pages
// (a white page with one dot) and tiny images carry a few bits of structure at most, so their
// hashes say next to nothing about which image they are (every flat image's blockhash is all
// zeros; two gradients of any colours share theirs). Such images are "low-information", and the
// same-image rule (src/modules/image-objects) matches them by exact bytes only.
//
// The measure, computed once with the hashes from the same 256x256 raster: the luminance the
// blockhash reads ((r + g + b) / 3, transparent pixels white) averaged over a 64x64 grid of 4x4
// cells, and the share of cells where the grid bends sharply: |4c - n - s - e - w| above 12 of 255
// levels (edges, texture, lines, letters). A gradient bends almost nowhere (its second difference is
// near zero), a flat image nowhere, a dot or a disc only along its rim; JPEG noise stays under 12.
// Calibrated on fixtures (test/image-objects/same-image.unit.test.ts prints them): flat colours 0%,
// linear and radial gradients, also JPEG quality 15, at most 0.3%; a white page with one dot or disc
// of radius 4 to 60 px (of 1000x1400) 0.1-1.5%; that test's photo-like images 4.8-7.8%; scenes
// 22-30%.
/** Fewer pixels than this (32 x 32) is a tiny image: low-information whatever it shows. */
export const MIN_INFORMATIVE_PIXELS = 1024;
/** Share of the grid's cells that must carry structure. */
export const MIN_DETAIL = 0.035;
/**
 * A blockhash with at most this many bits set, or at most this many clear, is degenerate: the mark
 * of a flat or almost blank image (the backstop for rows hashed before the measure existed).
 */
export const DEGENERATE_BLOCKHASH_BITS = 16;

const GRID = 64;
const BEND_LEVELS = 12;

/** The share (0 to 1) of the image's grid cells that carry structure (see the top of this file). */
export function detailOf(rgba: Buffer, size: number): number {
  if (size % GRID !== 0 || rgba.length !== size * size * 4) throw new RangeError(`detailOf: expected a ${size}x${size} RGBA raster, a multiple of ${GRID} a side`);
  const cell = size / GRID;
  const grid = new Float64Array(GRID * GRID);
  const perCell = 3 * cell * cell;
  for (let y = 0; y < size; y++) {
    const row = Math.floor(y / cell) * GRID;
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      // As blockhash-core reads a pixel: r + g + b, a fully transparent one white.
      grid[row + Math.floor(x / cell)]! += (rgba[i + 3] === 0 ? 765 : rgba[i]! + rgba[i + 1]! + rgba[i + 2]!) / perCell;
    }
  }
  let bent = 0;
  for (let y = 1; y < GRID - 1; y++) {
    for (let x = 1; x < GRID - 1; x++) {
      const c = y * GRID + x;
      if (Math.abs(4 * grid[c]! - grid[c - GRID]! - grid[c + GRID]! - grid[c - 1]! - grid[c + 1]!) > BEND_LEVELS) bent++;
    }
  }
  return bent / ((GRID - 2) * (GRID - 2));
}

/** A blockhash (64 hex digits) with almost all bits equal. */
export function isDegenerateBlockhash(blockhash: string): boolean {
  let ones = 0;
  for (const digit of blockhash) for (let bits = parseInt(digit, 16); bits; bits &= bits - 1) ones++;
  return ones <= DEGENERATE_BLOCKHASH_BITS || ones >= blockhash.length * 4 - DEGENERATE_BLOCKHASH_BITS;
}

/** Too little information for a perceptual hash: tiny, too little structure, or a degenerate blockhash. */
export function isLowInformation(image: { pixels: number; detail: number; blockhash: string }): boolean {
  return image.pixels < MIN_INFORMATIVE_PIXELS || image.detail < MIN_DETAIL || isDegenerateBlockhash(image.blockhash);
}
