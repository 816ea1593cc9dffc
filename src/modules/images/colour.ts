// Colour maths for the media library: hex parsing, sRGB <-> CIE L*a*b* (D65) and the CIEDE2000
// colour difference, so search can rank stored dominant colours by perceptual distance.
import { InvalidInput } from '../../platform/errors.js';

export type Lab = [number, number, number];

const HEX_FORMS = '#rrggbb, #rgb or rrggbb';

/**
 * Parses a colour written as `#rgb`, `#rrggbb` or `rrggbb` (case-insensitive, surrounding spaces
 * ignored) and returns it as lower-case `#rrggbb`. Anything else is an InvalidInput on `color`.
 */
export function parseHexColour(input: string): string {
  const text = typeof input === 'string' ? input.trim() : '';
  let match = /^#?([0-9a-f]{6})$/i.exec(text);
  if (match) return `#${match[1]!.toLowerCase()}`;
  match = /^#([0-9a-f]{3})$/i.exec(text);
  if (match) {
    const [r, g, b] = match[1]!.toLowerCase();
    return `#${r}${r}${g}${g}${b}${b}`;
  }
  const shown = typeof input === 'string' ? JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input) : String(input);
  throw new InvalidInput(`color: expected a hex colour written as ${HEX_FORMS}, got ${shown}`, 'color');
}

// sRGB (IEC 61966-2-1) primaries with the D65 white (X 0.95047, Y 1, Z 1.08883), matrix as published
// by Bruce Lindbloom; the reference white is the matrix applied to RGB (1, 1, 1), so white maps to
// exactly L* = 100, a* = b* = 0.
const RGB_TO_XYZ = [
  [0.4124564, 0.3575761, 0.1804375],
  [0.2126729, 0.7151522, 0.072175],
  [0.0193339, 0.119192, 0.9503041],
] as const;
const XYZ_TO_RGB = invert3(RGB_TO_XYZ);
const WHITE: [number, number, number] = [
  RGB_TO_XYZ[0][0] + RGB_TO_XYZ[0][1] + RGB_TO_XYZ[0][2],
  RGB_TO_XYZ[1][0] + RGB_TO_XYZ[1][1] + RGB_TO_XYZ[1][2],
  RGB_TO_XYZ[2][0] + RGB_TO_XYZ[2][1] + RGB_TO_XYZ[2][2],
];
const EPSILON = 216 / 24389; // (6/29)^3
const KAPPA = 24389 / 27;

/** sRGB 8-bit channel to linear light, as a lookup table (the media processor converts many pixels). */
const LINEAR = Float64Array.from({ length: 256 }, (_, v) => {
  const c = v / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
});

function labF(t: number): number {
  return t > EPSILON ? Math.cbrt(t) : (KAPPA * t + 16) / 116;
}

function labFInverse(f: number): number {
  const cube = f * f * f;
  return cube > EPSILON ? cube : (116 * f - 16) / KAPPA;
}

/** CIE L*a*b* (D65, 2°) of an 8-bit sRGB colour. */
export function rgbToLab(r: number, g: number, b: number): Lab {
  const lr = LINEAR[clampByte(r)]!;
  const lg = LINEAR[clampByte(g)]!;
  const lb = LINEAR[clampByte(b)]!;
  const fx = labF((RGB_TO_XYZ[0][0] * lr + RGB_TO_XYZ[0][1] * lg + RGB_TO_XYZ[0][2] * lb) / WHITE[0]);
  const fy = labF((RGB_TO_XYZ[1][0] * lr + RGB_TO_XYZ[1][1] * lg + RGB_TO_XYZ[1][2] * lb) / WHITE[1]);
  const fz = labF((RGB_TO_XYZ[2][0] * lr + RGB_TO_XYZ[2][1] * lg + RGB_TO_XYZ[2][2] * lb) / WHITE[2]);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** The nearest 8-bit sRGB colour to a L*a*b* colour (channels outside the gamut are clipped). */
export function labToRgb([l, a, b]: Lab): [number, number, number] {
  const fy = (l + 16) / 116;
  const x = labFInverse(fy + a / 500) * WHITE[0];
  const y = labFInverse(fy) * WHITE[1];
  const z = labFInverse(fy - b / 200) * WHITE[2];
  const encode = (linear: number) => {
    const c = linear <= 0.0031308 ? 12.92 * linear : 1.055 * Math.max(linear, 0) ** (1 / 2.4) - 0.055;
    return clampByte(Math.round(c * 255));
  };
  return [
    encode(XYZ_TO_RGB[0][0] * x + XYZ_TO_RGB[0][1] * y + XYZ_TO_RGB[0][2] * z),
    encode(XYZ_TO_RGB[1][0] * x + XYZ_TO_RGB[1][1] * y + XYZ_TO_RGB[1][2] * z),
    encode(XYZ_TO_RGB[2][0] * x + XYZ_TO_RGB[2][1] * y + XYZ_TO_RGB[2][2] * z),
  ];
}

/** CIE L*a*b* (D65) of a hex colour in any form parseHexColour accepts. */
export function hexToLab(hex: string): Lab {
  const value = Number.parseInt(parseHexColour(hex).slice(1), 16);
  return rgbToLab((value >> 16) & 255, (value >> 8) & 255, value & 255);
}

/** `#rrggbb` of the nearest sRGB colour to a L*a*b* colour. */
export function labToHex(lab: Lab): string {
  return rgbToHex(...labToRgb(lab));
}

export function rgbToHex(r: number, g: number, b: number): string {
  return `#${[r, g, b].map((c) => clampByte(Math.round(c)).toString(16).padStart(2, '0')).join('')}`;
}

const DEG = Math.PI / 180;
const POW25_7 = 25 ** 7;

/**
 * CIEDE2000 colour difference (kL = kC = kH = 1), following Sharma, Wu and Dalal, "The CIEDE2000
 * Color-Difference Formula: Implementation Notes, Supplementary Test Data, and Mathematical
 * Observations", Color Research and Application 30(1), 2005. About 1 is a just-noticeable difference.
 */
export function deltaE2000([l1, a1, b1]: Lab, [l2, a2, b2]: Lab): number {
  const cMean = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const cMean7 = cMean ** 7;
  const g = 0.5 * (1 - Math.sqrt(cMean7 / (cMean7 + POW25_7)));
  const a1p = (1 + g) * a1;
  const a2p = (1 + g) * a2;
  const c1p = Math.hypot(a1p, b1);
  const c2p = Math.hypot(a2p, b2);
  const hue = (b: number, ap: number) => {
    if (b === 0 && ap === 0) return 0;
    const h = Math.atan2(b, ap) / DEG;
    return h < 0 ? h + 360 : h;
  };
  const h1p = hue(b1, a1p);
  const h2p = hue(b2, a2p);

  const dLp = l2 - l1;
  const dCp = c2p - c1p;
  let dhp = 0;
  if (c1p * c2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(c1p * c2p) * Math.sin((dhp / 2) * DEG);

  const lMean = (l1 + l2) / 2;
  const cMeanP = (c1p + c2p) / 2;
  let hMeanP = h1p + h2p;
  if (c1p * c2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) hMeanP /= 2;
    else hMeanP = hMeanP < 360 ? (hMeanP + 360) / 2 : (hMeanP - 360) / 2;
  }
  const t =
    1 -
    0.17 * Math.cos((hMeanP - 30) * DEG) +
    0.24 * Math.cos(2 * hMeanP * DEG) +
    0.32 * Math.cos((3 * hMeanP + 6) * DEG) -
    0.2 * Math.cos((4 * hMeanP - 63) * DEG);
  const dTheta = 30 * Math.exp(-(((hMeanP - 275) / 25) ** 2));
  const cMeanP7 = cMeanP ** 7;
  const rC = 2 * Math.sqrt(cMeanP7 / (cMeanP7 + POW25_7));
  const l50 = (lMean - 50) ** 2;
  const sL = 1 + (0.015 * l50) / Math.sqrt(20 + l50);
  const sC = 1 + 0.045 * cMeanP;
  const sH = 1 + 0.015 * cMeanP * t;
  const rT = -Math.sin(2 * dTheta * DEG) * rC;

  const termL = dLp / sL;
  const termC = dCp / sC;
  const termH = dHp / sH;
  return Math.sqrt(termL * termL + termC * termC + termH * termH + rT * termC * termH);
}

function clampByte(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : value | 0;
}

type Matrix3 = readonly [readonly [number, number, number], readonly [number, number, number], readonly [number, number, number]];

function invert3(m: Matrix3): [[number, number, number], [number, number, number], [number, number, number]] {
  const [[a, b, c], [d, e, f], [g, h, i]] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
    [C / det, -(a * h - b * g) / det, (a * e - b * d) / det],
  ];
}
