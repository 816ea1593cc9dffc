import { describe, expect, it } from 'vitest';
import { deltaE2000, hexToLab, labToHex, parseHexColour, type Lab } from '../../src/modules/images/colour.js';
import { InvalidInput } from '../../src/platform/errors.js';

// Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference Formula: Implementation Notes, Supplementary
// Test Data, and Mathematical Observations", Color Research and Application 30(1):21-30, 2005,
// Table 1 — all 34 pairs: [L1, a1, b1, L2, a2, b2, ΔE00]. They straddle the hue-averaging and the
// RT rotation branches that ordinary colours never exercise.
const SHARMA_2005: Array<[number, number, number, number, number, number, number]> = [
  [50.0, 2.6772, -79.7751, 50.0, 0.0, -82.7485, 2.0425],
  [50.0, 3.1571, -77.2803, 50.0, 0.0, -82.7485, 2.8615],
  [50.0, 2.8361, -74.02, 50.0, 0.0, -82.7485, 3.4412],
  [50.0, -1.3802, -84.2814, 50.0, 0.0, -82.7485, 1.0],
  [50.0, -1.1848, -84.8006, 50.0, 0.0, -82.7485, 1.0],
  [50.0, -0.9009, -85.5211, 50.0, 0.0, -82.7485, 1.0],
  [50.0, 0.0, 0.0, 50.0, -1.0, 2.0, 2.3669],
  [50.0, -1.0, 2.0, 50.0, 0.0, 0.0, 2.3669],
  [50.0, 2.49, -0.001, 50.0, -2.49, 0.0009, 7.1792],
  [50.0, 2.49, -0.001, 50.0, -2.49, 0.001, 7.1792],
  [50.0, 2.49, -0.001, 50.0, -2.49, 0.0011, 7.2195],
  [50.0, 2.49, -0.001, 50.0, -2.49, 0.0012, 7.2195],
  [50.0, -0.001, 2.49, 50.0, 0.0009, -2.49, 4.8045],
  [50.0, -0.001, 2.49, 50.0, 0.001, -2.49, 4.8045],
  [50.0, -0.001, 2.49, 50.0, 0.0011, -2.49, 4.7461],
  [50.0, 2.5, 0.0, 50.0, 0.0, -2.5, 4.3065],
  [50.0, 2.5, 0.0, 73.0, 25.0, -18.0, 27.1492],
  [50.0, 2.5, 0.0, 61.0, -5.0, 29.0, 22.8977],
  [50.0, 2.5, 0.0, 56.0, -27.0, -3.0, 31.903],
  [50.0, 2.5, 0.0, 58.0, 24.0, 15.0, 19.4535],
  [50.0, 2.5, 0.0, 50.0, 3.1736, 0.5854, 1.0],
  [50.0, 2.5, 0.0, 50.0, 3.2972, 0.0, 1.0],
  [50.0, 2.5, 0.0, 50.0, 1.8634, 0.5757, 1.0],
  [50.0, 2.5, 0.0, 50.0, 3.2592, 0.335, 1.0],
  [60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644],
  [63.0109, -31.0961, -5.8663, 62.8187, -29.7946, -4.0864, 1.263],
  [61.2901, 3.7196, -5.3901, 61.4292, 2.248, -4.962, 1.8731],
  [35.0831, -44.1164, 3.7933, 35.0232, -40.0716, 1.5901, 1.8645],
  [22.7233, 20.0904, -46.694, 23.0331, 14.973, -42.5619, 2.0373],
  [36.4612, 47.858, 18.3852, 36.2715, 50.5065, 21.2231, 1.4146],
  [90.8027, -2.0831, 1.441, 91.1528, -1.6435, 0.0447, 1.4441],
  [90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381],
  [6.7747, -0.2908, -2.4247, 5.8714, -0.0985, -2.2286, 0.6377],
  [2.0776, 0.0795, -1.135, 0.9033, -0.0636, -0.5514, 0.9082],
];

describe('deltaE2000', () => {
  it.each(SHARMA_2005.map((row, i) => [i + 1, ...row] as const))('Sharma et al. 2005 pair %i', (_pair, l1, a1, b1, l2, a2, b2, expected) => {
    // The published values have four decimals.
    expect(Math.abs(deltaE2000([l1, a1, b1], [l2, a2, b2]) - expected)).toBeLessThan(5e-5);
    expect(Math.abs(deltaE2000([l2, a2, b2], [l1, a1, b1]) - expected)).toBeLessThan(5e-5);
  });

  it('is zero for identical colours', () => {
    expect(deltaE2000([53.24, 80.09, 67.2], [53.24, 80.09, 67.2])).toBe(0);
    expect(deltaE2000([0, 0, 0], [0, 0, 0])).toBe(0);
  });
});

describe('hexToLab / labToHex', () => {
  const close = (actual: Lab, expected: Lab) => actual.forEach((v, i) => expect(v).toBeCloseTo(expected[i]!, 3));

  it('converts sRGB to CIE Lab with the D65 white', () => {
    // Reference values from Bruce Lindbloom's calculator (sRGB, D65, no adaptation).
    close(hexToLab('#ff0000'), [53.2408, 80.0925, 67.2032]);
    close(hexToLab('#00ff00'), [87.7347, -86.1827, 83.1793]);
    close(hexToLab('#0000ff'), [32.297, 79.1875, -107.8602]);
    close(hexToLab('#ffffff'), [100, 0, 0]);
    close(hexToLab('#000000'), [0, 0, 0]);
    close(hexToLab('#808080'), [53.585, 0, 0]);
  });

  it('round-trips every sampled 8-bit colour', () => {
    for (let v = 0; v < 0xffffff; v += 4099) {
      const hex = `#${v.toString(16).padStart(6, '0')}`;
      expect(labToHex(hexToLab(hex))).toBe(hex);
    }
  });

  it('clips out-of-gamut Lab colours to the sRGB cube', () => {
    expect(labToHex([50, 200, 0])).toMatch(/^#[0-9a-f]{6}$/);
    expect(labToHex([150, 0, 0])).toBe('#ffffff');
    expect(labToHex([-10, 0, 0])).toBe('#000000');
  });
});

describe('parseHexColour', () => {
  it('accepts #rgb, #rrggbb and rrggbb, any case, and normalises to #rrggbb', () => {
    expect(parseHexColour('#F0a')).toBe('#ff00aa');
    expect(parseHexColour('#FF8800')).toBe('#ff8800');
    expect(parseHexColour('ff8800')).toBe('#ff8800');
    expect(parseHexColour(' #abcdef ')).toBe('#abcdef');
  });

  it.each(['', '#', 'red', '#ff88', '#ff88001', 'fff', '#ggg', 'rgb(1,2,3)', '##ffffff'])('rejects %j as InvalidInput on color', (input) => {
    let error: unknown;
    try {
      parseHexColour(input);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInput);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_INPUT', field: 'color' });
    expect((error as Error).message).toMatch(/#rrggbb, #rgb or rrggbb/);
  });

  it('is what hexToLab parses with', () => {
    expect(() => hexToLab('f00')).toThrow(InvalidInput);
    expect(hexToLab('#f00')).toEqual(hexToLab('ff0000'));
  });
});
