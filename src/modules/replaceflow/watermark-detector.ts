// The watermark detector: which of two copies of the same photo carries marks (text, a logo, a
// banner) that the other lacks. Pixel-level, local, no model:
//
// 1. Both images are decoded to greyscale at one size (the first image's aspect, ALIGN_WIDTH wide;
//    copies that pHash calls the same photo line up well enough after resizing), lightly blurred
//    so JPEG noise and resampling differences fade.
// 2. The second is matched to the first's brightness and contrast (mean and standard deviation),
//    so a brighter or recompressed copy is not "different".
// 3. A pixel differs when |a - b| exceeds a threshold set from the images' own noise (the median
//    difference) plus half the smaller local gradient: misaligned photo edges, where both copies
//    have strong gradients, do not count; marks on smooth or textured areas do.
// 4. Differing pixels are gathered into CELL x CELL cells; a cell is marked when MARKED_CELL_SHARE
//    of its pixels differ. Marks cover between MIN_MARKED_AREA and MAX_MARKED_AREA of the picture:
//    less is noise, more is another edit (a crop, a colour grade), where nothing is concluded.
// 5. Direction: marks add structure. Marked cells are grouped (8-connected); in each group of at
//    least MIN_GROUP_CELLS, the copy with clearly more edge energy (DIRECTION_MARGIN) is the marked
//    one there. A copy is marked when its groups cover at least MIN_MARKED_AREA (both can be: a
//    press watermark on one, a stock preview's mark on the other).
//
// Measured in bench/replaceflow-accuracy.bench.ts (precision and recall in bench/RESULTS.md).
import { loadSharp } from '../../platform/sharp.js';

const ALIGN_WIDTH = 384;
const CELL = 8;
const MARKED_CELL_SHARE = 0.12;
const MIN_MARKED_AREA = 0.004;
/** Smaller groups of marked cells are noise (a recompressed edge), not a mark. */
const MIN_GROUP_CELLS = 3;
const MAX_MARKED_AREA = 0.5;
const DIRECTION_MARGIN = 0.12;
const MIN_THRESHOLD = 8;

export interface MarkComparison {
  /** The first image carries marks the second lacks. */
  firstMarked: boolean;
  /** The second image carries marks the first lacks. */
  secondMarked: boolean;
  /** No difference worth a mark anywhere: the two copies carry the same marks, or none. */
  identical: boolean;
  /** Share of the picture covered by marked cells (0 to 1). */
  markedArea: number;
  /** Share of the picture where the first copy has the extra structure, and where the second has. */
  firstArea: number;
  secondArea: number;
}

interface Grey {
  pixels: Float32Array;
  width: number;
  height: number;
}

/** Compares two copies of one photo; `limitInputPixels` bounds the decode of each. */
export async function compareMarks(first: Buffer, second: Buffer, maxPixels: number): Promise<MarkComparison> {
  const sharp = await loadSharp();
  const meta = await sharp(first, { limitInputPixels: maxPixels }).rotate().metadata();
  const upright = (meta.orientation ?? 1) >= 5 ? { w: meta.height ?? 1, h: meta.width ?? 1 } : { w: meta.width ?? 1, h: meta.height ?? 1 };
  const width = ALIGN_WIDTH;
  const height = Math.max(CELL, Math.min(ALIGN_WIDTH * 4, Math.round((ALIGN_WIDTH * upright.h) / Math.max(1, upright.w))));
  const [a, b] = await Promise.all([greyAt(first, width, height, maxPixels), greyAt(second, width, height, maxPixels)]);
  matchLevels(b, a);
  return compareGrey(a, b);
}

async function greyAt(image: Buffer, width: number, height: number, maxPixels: number): Promise<Grey> {
  const sharp = await loadSharp();
  const { data } = await sharp(image, { limitInputPixels: maxPixels })
    .rotate()
    .flatten({ background: '#ffffff' })
    .resize(width, height, { fit: 'fill' })
    .greyscale()
    .blur(0.8)
    .raw()
    .toBuffer({ resolveWithObject: true });
  const pixels = new Float32Array(width * height);
  // greyscale() may still leave 1 channel or more; take the first of each pixel.
  const channels = data.length / (width * height);
  for (let i = 0; i < pixels.length; i++) pixels[i] = data[i * channels]!;
  return { pixels, width, height };
}

/** Gives `image` the mean and standard deviation of `reference`. */
function matchLevels(image: Grey, reference: Grey): void {
  const stats = (p: Float32Array) => {
    let sum = 0;
    let squares = 0;
    for (const v of p) {
      sum += v;
      squares += v * v;
    }
    const mean = sum / p.length;
    return { mean, sd: Math.sqrt(Math.max(1e-6, squares / p.length - mean * mean)) };
  };
  const from = stats(image.pixels);
  const to = stats(reference.pixels);
  const scale = to.sd / from.sd;
  for (let i = 0; i < image.pixels.length; i++) image.pixels[i] = (image.pixels[i]! - from.mean) * scale + to.mean;
}

function gradient(image: Grey): Float32Array {
  const { pixels, width, height } = image;
  const out = new Float32Array(pixels.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const dx = pixels[y * width + Math.min(width - 1, x + 1)]! - pixels[y * width + Math.max(0, x - 1)]!;
      const dy = pixels[Math.min(height - 1, y + 1) * width + x]! - pixels[Math.max(0, y - 1) * width + x]!;
      out[i] = Math.abs(dx) + Math.abs(dy);
    }
  }
  return out;
}

/** Steps 3 to 5 on two aligned, level-matched rasters. Exported for the unit tests. */
export function compareGrey(a: Grey, b: Grey): MarkComparison {
  const { width, height } = a;
  const gradientA = gradient(a);
  const gradientB = gradient(b);
  const difference = new Float32Array(a.pixels.length);
  for (let i = 0; i < difference.length; i++) difference[i] = Math.abs(a.pixels[i]! - b.pixels[i]!);
  const noise = median(difference);
  const base = Math.max(MIN_THRESHOLD, 3 * noise);
  const columns = Math.floor(width / CELL);
  const rows = Math.floor(height / CELL);
  // Per cell: marked or not, and each copy's edge energy.
  const marked = new Uint8Array(columns * rows);
  const energyA = new Float64Array(columns * rows);
  const energyB = new Float64Array(columns * rows);
  let markedCells = 0;
  for (let row = 0; row < rows; row++) {
    for (let column = 0; column < columns; column++) {
      let differing = 0;
      const cell = row * columns + column;
      for (let y = row * CELL; y < (row + 1) * CELL; y++) {
        for (let x = column * CELL; x < (column + 1) * CELL; x++) {
          const i = y * width + x;
          if (difference[i]! > base + 0.5 * Math.min(gradientA[i]!, gradientB[i]!)) differing++;
          energyA[cell]! += gradientA[i]!;
          energyB[cell]! += gradientB[i]!;
        }
      }
      if (differing >= MARKED_CELL_SHARE * CELL * CELL) {
        marked[cell] = 1;
        markedCells++;
      }
    }
  }
  // Connected groups of marked cells (8-neighbours) are judged whole: a solid logo hides the
  // texture under it (less structure there) while its outline and lettering add more.
  let cellsA = 0;
  let cellsB = 0;
  const seen = new Uint8Array(columns * rows);
  for (let start = 0; start < marked.length; start++) {
    if (!marked[start] || seen[start]) continue;
    const stack = [start];
    seen[start] = 1;
    let size = 0;
    let sumA = 0;
    let sumB = 0;
    while (stack.length) {
      const cell = stack.pop()!;
      size++;
      sumA += energyA[cell]!;
      sumB += energyB[cell]!;
      const row = Math.floor(cell / columns);
      const column = cell % columns;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const r = row + dy;
          const c = column + dx;
          if (r < 0 || c < 0 || r >= rows || c >= columns) continue;
          const next = r * columns + c;
          if (marked[next] && !seen[next]) {
            seen[next] = 1;
            stack.push(next);
          }
        }
      }
    }
    if (size < MIN_GROUP_CELLS) continue;
    const lean = sumA + sumB === 0 ? 0 : (sumA - sumB) / (sumA + sumB);
    if (lean > DIRECTION_MARGIN) cellsA += size;
    else if (lean < -DIRECTION_MARGIN) cellsB += size;
  }
  const cells = Math.max(1, columns * rows);
  const markedArea = markedCells / cells;
  const conclusive = markedArea <= MAX_MARKED_AREA;
  return {
    identical: markedArea < MIN_MARKED_AREA,
    firstMarked: conclusive && cellsA / cells >= MIN_MARKED_AREA,
    secondMarked: conclusive && cellsB / cells >= MIN_MARKED_AREA,
    markedArea: round(markedArea),
    firstArea: round(cellsA / cells),
    secondArea: round(cellsB / cells),
  };
}

const round = (value: number) => Math.round(value * 10_000) / 10_000;

function median(values: Float32Array): number {
  // A histogram: differences are 0..255 after level matching (clamped).
  const bins = new Uint32Array(256);
  for (const v of values) bins[Math.min(255, Math.max(0, Math.round(v)))]!++;
  let seen = 0;
  for (let i = 0; i < 256; i++) {
    seen += bins[i]!;
    if (seen * 2 >= values.length) return i;
  }
  return 255;
}
