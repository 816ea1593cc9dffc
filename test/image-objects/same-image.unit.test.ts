// The same-image rule (src/modules/image-objects: compareImages, sameImage) and the measure behind
// it (src/modules/images/information.ts), on images made here: flat colours of different colours,
// linear and radial gradients of different colours and directions (also heavily compressed), a white
// page with one dot, tiny images, and the photo-like images that match today with their resized,
// recompressed, re-encoded and lightly cropped copies. The figures are printed for docs/image-objects.md.
import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { photo, scene } from '../helpers/images.js';
import { processUpload } from '../../src/modules/images/index.js';
import { isDegenerateBlockhash, MIN_DETAIL, MIN_INFORMATIVE_PIXELS, detailOf } from '../../src/modules/images/information.js';
import { compareImages, isLowInformation, sameImage, SAME_OBJECT_MAX_DISTANCE, type Likeness } from '../../src/modules/image-objects/index.js';
import { flat, gradient, pageWithDot, radial, tinyNoise } from './plain-images.js';

const LIMITS = { maxBytes: 50_000_000, maxPixels: 80_000_000 };

type Print = Likeness & { phash: string };

async function likeness(image: Buffer): Promise<Print> {
  const processed = await processUpload(image, LIMITS);
  return { sha256: processed.sha256, blockhash: processed.blockhash!, phash: processed.phash!, lowInformation: processed.lowInformation! };
}

/** The measure itself, on the raster the processor hashes (for the printed figures). */
async function detail(image: Buffer): Promise<number> {
  const raster = await sharp(image).resize(256, 256, { fit: 'fill' }).ensureAlpha().raw().toBuffer();
  return detailOf(raster, 256);
}

const PLAIN: Record<string, () => Promise<Buffer>> = {
  'flat red': () => flat('#ff0000'),
  'flat green': () => flat('#00ff00'),
  'flat blue': () => flat('#0000ff'),
  'flat white JPEG': () => flat('#ffffff', { format: 'jpeg' }),
  'flat black 1920x1080 JPEG': () => flat('#000000', { width: 1920, height: 1080, format: 'jpeg' }),
  'gradient red to blue, left to right': () => gradient('#ff0000', '#0000ff', 1, 0),
  'gradient black to white, top to bottom': () => gradient('#000000', '#ffffff', 0, 1),
  'gradient green to yellow, diagonal': () => gradient('#00aa00', '#ffff00', 1, 1),
  'gradient navy to sand, JPEG quality 15': () => gradient('#102030', '#f0e0d0', 1, 0.3, 15),
  'radial white to black': () => radial('#ffffff', '#000000'),
  'radial orange to navy, off centre': () => radial('#ff8800', '#002244', 0.2, 0.7),
  'white page, one dot of radius 4': () => pageWithDot(4),
  'white page, one dot of radius 25': () => pageWithDot(25, 120, 1200),
  'white page, one disc of radius 60': () => pageWithDot(60),
  'tiny: 8 x 8 noise': () => tinyNoise(8),
  'tiny: 31 x 31 noise': () => tinyNoise(31, 2),
  'tiny: 1 x 1': () => flat('#123456', { width: 1, height: 1 }),
};

describe('the low-information measure', () => {
  it('finds every plain image low-information, and every photo-like image not', async () => {
    const figures: string[] = [];
    for (const [name, make] of Object.entries(PLAIN)) {
      const image = await make();
      const print = await likeness(image);
      figures.push(`${name} ${(100 * (await detail(image))).toFixed(2)}%`);
      expect({ name, low: print.lowInformation }).toEqual({ name, low: true });
    }
    const informative: Record<string, () => Promise<Buffer>> = {
      ...Object.fromEntries([500, 501, 502, 9001].map((seed) => [`scene ${seed}`, () => scene(seed)])),
      ...Object.fromEntries(['#3366cc', '#ee1111', '#0a0b0c', '#808080', '#cc6633'].map((colour) => [`photo ${colour}`, () => photo(colour, { seed: 7 })])),
      'photo 64 x 48': () => photo('#557799', { seed: 2, width: 64, height: 48 }),
    };
    for (const [name, make] of Object.entries(informative)) {
      const image = await make();
      figures.push(`${name} ${(100 * (await detail(image))).toFixed(2)}%`);
      expect({ name, low: (await likeness(image)).lowInformation }).toEqual({ name, low: false });
    }
    // Faint circles on a bright colour: structure on the grid, but the blockhash sees almost none of
    // it (bright ties count as ones: 243 of 256 bits set), so it would match any bright flat image.
    const pale = await likeness(await photo('#cc9944', { seed: 7 }));
    expect([pale.lowInformation, isDegenerateBlockhash(pale.blockhash)]).toEqual([true, true]);
    expect(sameImage(pale, await likeness(await flat('#ffffff')))).toBe(false);
    console.error(`detail (share of structured cells; low-information under ${(100 * MIN_DETAIL).toFixed(1)}% or ${MIN_INFORMATIVE_PIXELS} px): ${figures.join(', ')}`);
  });

  it('counts a blockhash with almost all bits equal as degenerate, and a structured one not', () => {
    expect(isDegenerateBlockhash('0'.repeat(64))).toBe(true);
    expect(isDegenerateBlockhash('f'.repeat(64))).toBe(true);
    expect(isDegenerateBlockhash(`${'0'.repeat(60)}ffff`)).toBe(true); // 16 bits set
    expect(isDegenerateBlockhash(`${'0'.repeat(59)}1ffff`)).toBe(false); // 17
    expect(isDegenerateBlockhash('a5'.repeat(32))).toBe(false);
    // The backstop for hashes without a flag.
    expect(isLowInformation({ blockhash: '0'.repeat(64), lowInformation: false })).toBe(true);
    expect(isLowInformation({ blockhash: 'a5'.repeat(32), lowInformation: false })).toBe(false);
    expect(isLowInformation({ blockhash: 'a5'.repeat(32), lowInformation: true })).toBe(true);
  });
});

describe('the same-image rule', () => {
  it('tells flat images of different colours apart (all-zero blockhashes), and knows the same bytes again', async () => {
    const [red, green, blue] = (await Promise.all([flat('#ff0000'), flat('#00ff00'), flat('#0000ff')].map(async (image) => likeness(await image)))) as [Print, Print, Print];
    expect([red.blockhash, green.blockhash, blue.blockhash]).toEqual(['0'.repeat(64), '0'.repeat(64), '0'.repeat(64)]);
    for (const [a, b] of [[red, green], [green, blue], [blue, red]] as const) {
      expect(compareImages(a, b)).toEqual({ same: false, distance: 0, exactOnly: true });
      expect(compareImages(a, b, 'phash')).toMatchObject({ same: false, exactOnly: true });
    }
    expect(compareImages(red, { ...red })).toEqual({ same: true, distance: 0, exactOnly: true });
    // The same colour encoded again (other bytes) is not the same image either: plain images match by bytes only.
    const redJpeg = await likeness(await flat('#ff0000', { format: 'jpeg' }));
    expect(sameImage(red, redJpeg)).toBe(false);
  });

  it('tells gradients of other colours and a page with a dot apart from each other and from every flat image', async () => {
    const prints = await Promise.all(Object.values(PLAIN).map(async (make) => likeness(await make())));
    for (let i = 0; i < prints.length; i++) for (let j = i + 1; j < prints.length; j++) expect(sameImage(prints[i]!, prints[j]!)).toBe(false);
    // Two gradients of other colours in one direction share their blockhash pattern: what the rule is for.
    const [redBlue, greenWhite] = (await Promise.all([gradient('#ff0000', '#0000ff', 0, 1), gradient('#006600', '#ffffff', 0, 1)].map(async (g) => likeness(await g)))) as [Print, Print];
    expect(compareImages(redBlue, greenWhite)).toMatchObject({ same: false, exactOnly: true });
  });

  it('is symmetric: a plain image on either side matches nothing by distance, even a hash within the distance', async () => {
    const photoLike = await likeness(await scene(503));
    const plain = { ...photoLike, sha256: 'other bytes', lowInformation: true };
    expect(compareImages(photoLike, plain)).toEqual({ same: false, distance: 0, exactOnly: true });
    expect(compareImages(plain, photoLike)).toEqual({ same: false, distance: 0, exactOnly: true });
  });

  it(`keeps the photo-like copies that match today the same image (within ${SAME_OBJECT_MAX_DISTANCE} bits), and unrelated scenes apart`, async () => {
    const copies: Record<string, (image: Buffer) => Promise<Buffer>> = {
      'resized to half': (image) => sharp(image).resize({ width: 400 }).jpeg().toBuffer(),
      'JPEG quality 30': (image) => sharp(image).jpeg({ quality: 30 }).toBuffer(),
      WebP: (image) => sharp(image).webp({ quality: 75 }).toBuffer(),
      'cropped by 5% of its area': (image) => sharp(image).extract({ left: 10, top: 8, width: 780, height: 585 }).jpeg().toBuffer(),
    };
    const originals = [];
    for (const seed of [510, 511, 512]) {
      const image = await scene(seed);
      const original = await likeness(image);
      originals.push(original);
      for (const [name, copy] of Object.entries(copies)) {
        const copied = await likeness(await copy(image));
        expect({ seed, name, same: sameImage(original, copied), low: copied.lowInformation }).toEqual({ seed, name, same: true, low: false });
      }
    }
    expect(sameImage(originals[0]!, originals[1]!)).toBe(false);
    expect(sameImage(originals[1]!, originals[2]!)).toBe(false);
    // The spec's pHash measure (ReplaceFlow) under the same rule.
    const image = await scene(513);
    expect(compareImages(await likeness(image), await likeness(await sharp(image).resize({ width: 500 }).jpeg({ quality: 60 }).toBuffer()), 'phash').same).toBe(true);
  });
});
