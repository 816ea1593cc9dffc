// What an image's small raster (decoded once, bounded, oriented, sRGB) yields: the WebP thumbnail,
// both perceptual hashes, the low-information flag and the dominant colour.
import type { SharpOptions } from 'sharp';
import { loadSharp } from '../../platform/sharp.js';
import { boundedInside, rawOf, type Raster } from './decode.js';
import { dominantColour } from './dominant-colour.js';
import { blockhashOf, HASH_SIZE, phashOf } from './hash.js';
import { detailOf, isLowInformation } from './information.js';
import type { ProcessedImage } from './process.js';

const THUMBNAIL_WEBP = { quality: 80 } as const;

export type Analysis = Pick<ProcessedImage, 'thumbnail' | 'phash' | 'blockhash' | 'lowInformation' | 'dominantColour'>;

/** `pixels`: the whole image's, for the low-information rule's size floor. */
export async function analyse(small: Raster, thumbnailSize: number, input: SharpOptions, pixels: number): Promise<Analysis> {
  const sharp = await loadSharp();
  const { data, info } = small;
  const rawInput: SharpOptions = { ...input, raw: rawOf(info) };
  const needsResize = info.width > thumbnailSize || info.height > thumbnailSize;
  const [thumbnail, phash, hashRaster] = await Promise.all([
    (needsResize ? sharp(data, rawInput).resize(boundedInside(thumbnailSize)) : sharp(data, rawInput))
      .webp(THUMBNAIL_WEBP)
      .toBuffer({ resolveWithObject: true }),
    phashOf(data, rawOf(info), input),
    sharp(data, rawInput).resize(HASH_SIZE, HASH_SIZE, { fit: 'fill' }).ensureAlpha().raw().toBuffer(),
  ]);
  const blockhash = blockhashOf(hashRaster);
  return {
    thumbnail: { body: thumbnail.data, mime: 'image/webp', width: thumbnail.info.width, height: thumbnail.info.height },
    phash,
    blockhash,
    lowInformation: isLowInformation({ pixels, detail: detailOf(hashRaster, HASH_SIZE), blockhash }),
    dominantColour: dominantColour(hashRaster, HASH_SIZE),
  };
}
