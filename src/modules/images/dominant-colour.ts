// The dominant colour of an image (hex and CIE Lab), from the square RGBA raster its hashes are made
// from, for colour search.
import { hexToLab, labToHex, rgbToLab, type Lab } from './colour.js';

/** Side of the grid the dominant colour is clustered on (box averages of the hash raster). */
const COLOUR_GRID = 64;

/**
 * Dominant colour, "k-means-lite" in CIE Lab: the square RGBA hash raster is box-averaged to a
 * 64x64 grid (alpha-weighted; fully transparent cells ignored), each cell converted to Lab (D65);
 * seeds are the centres of the most populated cells of a coarse Lab histogram (L 10, a/b 12 units
 * wide) at least 10 ΔE*ab apart, at most six of them; up to ten Lloyd iterations with Euclidean Lab
 * distance; the dominant colour is the centroid of the cluster holding the largest (alpha) weight.
 * Clustering in Lab groups pixels by perceived similarity, so a textured red surface yields one red
 * rather than being split across RGB histogram bins. Null for a fully transparent image.
 */
export function dominantColour(rgba: Buffer, size: number): { hex: string; lab: Lab } | null {
  const cell = size / COLOUR_GRID;
  const count = COLOUR_GRID * COLOUR_GRID;
  const L = new Float64Array(count);
  const A = new Float64Array(count);
  const B = new Float64Array(count);
  const W = new Float64Array(count);
  let n = 0;
  for (let gy = 0; gy < COLOUR_GRID; gy++) {
    for (let gx = 0; gx < COLOUR_GRID; gx++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let y = gy * cell; y < (gy + 1) * cell; y++) {
        for (let x = gx * cell; x < (gx + 1) * cell; x++) {
          const i = (y * size + x) * 4;
          const alpha = rgba[i + 3]!;
          r += rgba[i]! * alpha;
          g += rgba[i + 1]! * alpha;
          b += rgba[i + 2]! * alpha;
          a += alpha;
        }
      }
      if (a === 0) continue;
      const [l, la, lb] = rgbToLab(Math.round(r / a), Math.round(g / a), Math.round(b / a));
      L[n] = l;
      A[n] = la;
      B[n] = lb;
      W[n] = a;
      n++;
    }
  }
  if (n === 0) return null;

  // Seeds from a coarse Lab histogram.
  const bins = new Map<number, { w: number; l: number; a: number; b: number }>();
  for (let i = 0; i < n; i++) {
    const key = Math.floor(L[i]! / 10) * 10_000 + (Math.floor(A[i]! / 12) + 20) * 100 + (Math.floor(B[i]! / 12) + 20);
    const bin = bins.get(key) ?? { w: 0, l: 0, a: 0, b: 0 };
    bin.w += W[i]!;
    bin.l += L[i]! * W[i]!;
    bin.a += A[i]! * W[i]!;
    bin.b += B[i]! * W[i]!;
    bins.set(key, bin);
  }
  const centres: Lab[] = [];
  for (const bin of [...bins.values()].sort((x, y) => y.w - x.w)) {
    const c: Lab = [bin.l / bin.w, bin.a / bin.w, bin.b / bin.w];
    if (centres.every((d) => (d[0] - c[0]) ** 2 + (d[1] - c[1]) ** 2 + (d[2] - c[2]) ** 2 >= 100)) centres.push(c);
    if (centres.length === 6) break;
  }

  const k = centres.length;
  const assignment = new Int32Array(n).fill(-1);
  const weights = new Float64Array(k);
  for (let iteration = 0; iteration < 10; iteration++) {
    let changed = false;
    for (let i = 0; i < n; i++) {
      let best = 0;
      let bestDistance = Infinity;
      for (let j = 0; j < k; j++) {
        const c = centres[j]!;
        const d = (L[i]! - c[0]) ** 2 + (A[i]! - c[1]) ** 2 + (B[i]! - c[2]) ** 2;
        if (d < bestDistance) {
          bestDistance = d;
          best = j;
        }
      }
      if (assignment[i] !== best) {
        assignment[i] = best;
        changed = true;
      }
    }
    if (!changed) break;
    const sums = Array.from({ length: k }, () => [0, 0, 0] as Lab);
    weights.fill(0);
    for (let i = 0; i < n; i++) {
      const j = assignment[i]!;
      const w = W[i]!;
      sums[j]![0] += L[i]! * w;
      sums[j]![1] += A[i]! * w;
      sums[j]![2] += B[i]! * w;
      weights[j]! += w;
    }
    for (let j = 0; j < k; j++) {
      if (weights[j]! > 0) centres[j] = [sums[j]![0] / weights[j]!, sums[j]![1] / weights[j]!, sums[j]![2] / weights[j]!];
    }
  }
  weights.fill(0);
  for (let i = 0; i < n; i++) weights[assignment[i]!]! += W[i]!;
  let dominant = 0;
  for (let j = 1; j < k; j++) if (weights[j]! > weights[dominant]!) dominant = j;
  const hex = labToHex(centres[dominant]!);
  // The Lab of the hex colour itself (so it matches hexToLab(hex) in search), float noise rounded off.
  const lab = hexToLab(hex).map((v) => Math.round(v * 1e4) / 1e4 + 0) as Lab;
  return { hex, lab };
}
