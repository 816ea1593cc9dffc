// Image objects: the one identity of an image across the service, and the one rule for "the same
// image" every caller uses (sameImage, compareImages, identify, nearest): two images are the same
// when they have the same bytes (SHA-256), or when neither is low-information and their 256-bit
// blockhashes are within SAME_OBJECT_MAX_DISTANCE bits (pHash: within SAME_PHOTO_MAX_PHASH_DISTANCE,
// for ReplaceFlow's spec'd comparison). Low-information images (flat, smooth gradients, almost
// blank, tiny: src/modules/images/information.ts) carry too little for a perceptual hash, so they
// are the same as another only by exact bytes, whichever side they are on. An image joins the object
// nearest to it by that rule and makes a new object otherwise, so resized, recompressed,
// re-encoded, lightly cropped or captioned copies are one object (docs/image-objects.md "Image objects").
//
// Nearest neighbours by Hamming distance use multi-index hashing: the blockhash is cut into 16
// bands of 16 bits, kept as tags in one GIN index (the image_objects migration). Two hashes within
// distance d agree to within floor(d / 16) bits on at least one band (pigeonhole), so asking for
// every band value within that radius finds them all: radius 0 (16 tags) finds everything within
// 15 bits, radius 1 (272 tags) within 31, radius 2 (2,192 tags) within 47. A search widens the
// radius only while it has not found enough within what the radius guarantees.
import type { ImageObject } from '../../generated/prisma/client.js';
import type { Database } from '../../platform/database/database.js';
import { InvalidInput } from '../../platform/errors.js';
import { hammingDistance, isDegenerateBlockhash } from '../images/index.js';

/**
 * Largest blockhash distance (of 256 bits) at which an image is the same object. Measured copies
 * stay within 20 bits and unrelated pictures beyond 90 (docs/image-objects.md "Image objects"); 31 is also the
 * farthest a search probes at band radius 1 (272 tags), while radius 2 (2,192 tags) costs about
 * 25 times as much at a million objects (bench/RESULTS.md).
 */
export const SAME_OBJECT_MAX_DISTANCE = 31;
/** The specification's pHash rule (ReplaceFlow): a Hamming distance of 10 or less (of 64 bits) is the same photo. */
export const SAME_PHOTO_MAX_PHASH_DISTANCE = 10;
const BANDS = 16;
const BAND_BITS = 16;
const HASH_HEX = /^[0-9a-f]{64}$/;

/** What an image brings to be identified: an object's columns but its id and time. */
export type ImageFingerprint = Omit<ImageObject, 'id' | 'createdAt'>;

/** What the same-image rule reads of an image (an object, a library item, a fetched or uploaded image). */
export interface Likeness {
  sha256: string;
  blockhash: string;
  /** Needed only to compare by pHash. */
  phash?: string | null;
  lowInformation: boolean;
}

export interface Comparison {
  same: boolean;
  /** Hamming distance of the measure's hashes (0 for the same bytes). */
  distance: number;
  /** True when either image is low-information, so only exact bytes could make them the same. */
  exactOnly: boolean;
}

/** Low-information by its flag, or (the backstop for hashes without one) by a degenerate blockhash. */
export function isLowInformation(image: Pick<Likeness, 'blockhash' | 'lowInformation'>): boolean {
  return image.lowInformation || isDegenerateBlockhash(image.blockhash.toLowerCase());
}

/** The same-image rule (see the top of this file), by blockhash or, for ReplaceFlow, by pHash. */
export function compareImages(a: Likeness, b: Likeness, measure: 'blockhash' | 'phash' = 'blockhash'): Comparison {
  const exactOnly = isLowInformation(a) || isLowInformation(b);
  if (a.sha256 === b.sha256) return { same: true, distance: 0, exactOnly };
  const distance = measure === 'blockhash' ? hammingDistance(a.blockhash, b.blockhash) : hammingDistance(required(a.phash), required(b.phash));
  const most = measure === 'blockhash' ? SAME_OBJECT_MAX_DISTANCE : SAME_PHOTO_MAX_PHASH_DISTANCE;
  return { same: !exactOnly && distance <= most, distance, exactOnly };
}

/** True when the two are the same image by the rule. */
export function sameImage(a: Likeness, b: Likeness): boolean {
  return compareImages(a, b).same;
}

/** What nearest() looks for: a whole image (its flag and bytes count), or only a blockhash. */
export type Probe = string | Likeness;

export interface Neighbour {
  object: ImageObject;
  /** Blockhash distance in bits (0 to 256). */
  distance: number;
}

export interface Identified extends Neighbour {
  /** True when this image made a new object. */
  created: boolean;
}

interface ObjectRow extends ImageFingerprint {
  id: number;
  created_at: Date;
  distance: number;
  created?: boolean;
}

// Written on the driver: a list of hundreds of band tags costs Prisma 6 tens of milliseconds to
// pass (measured: 47 ms for 272 tags), the driver next to nothing.
export class ImageObjectsService {
  constructor(private readonly db: Database) {}

  /**
   * The object this image is: the same bytes', else (unless the image is low-information) the
   * nearest within SAME_OBJECT_MAX_DISTANCE that is not low-information, else a new one.
   */
  async identify(image: ImageFingerprint): Promise<Identified> {
    const hash = checkedHash(image.blockhash);
    const low = isLowInformation(image);
    const [nearest] = await this.nearest({ ...image, lowInformation: low }, 1, SAME_OBJECT_MAX_DISTANCE);
    if (nearest) return { ...nearest, created: false };
    // Nothing near: made in one statement that looks again under a lock (the image_objects and image_detail migrations).
    const [made] = await this.db.query<ObjectRow>('SELECT * FROM make_image_object($1, $2, $3, $4, $5, $6, $7, $8, $9::int[], $10)', [
      image.sha256,
      image.phash,
      hash,
      low,
      image.bytes,
      image.format,
      image.width,
      image.height,
      tagsWithin(hash, radiusFor(SAME_OBJECT_MAX_DISTANCE)),
      SAME_OBJECT_MAX_DISTANCE,
    ]);
    return { ...neighbour(made!), created: made!.created === true };
  }

  /** One object by id, or null. */
  async byId(id: number): Promise<ImageObject | null> {
    const [row] = await this.db.query<ObjectRow>(`SELECT ${OBJECT_COLUMNS} FROM "ImageObject" WHERE id = $1`, [id]);
    return row ? neighbour(row).object : null;
  }

  /**
   * Up to `limit` objects that are the probe by the same-image rule, nearest first (ties by age):
   * the object of the image's exact bytes first, then (unless either side is low-information)
   * objects within `maxDistance` blockhash bits, exact for any distance up to 47. A bare blockhash
   * has no bytes: a degenerate one (flat, almost blank) finds nothing.
   */
  async nearest(probe: Probe, limit = 10, maxDistance = SAME_OBJECT_MAX_DISTANCE): Promise<Neighbour[]> {
    const hash = checkedHash(typeof probe === 'string' ? probe : probe.blockhash);
    const farthest = BAND_BITS * 3 - 1;
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > farthest) throw new InvalidInput(`maxDistance: expected an integer from 0 to ${farthest} bits`);
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidInput('limit: expected a positive integer');
    const [exact] = typeof probe === 'string' ? [] : await this.db.query<ObjectRow>(`SELECT ${OBJECT_COLUMNS} FROM "ImageObject" WHERE sha256 = $1`, [probe.sha256]);
    const found = exact ? [neighbour(exact)] : [];
    if (isLowInformation(typeof probe === 'string' ? { blockhash: hash, lowInformation: false } : probe)) return found;
    for (let radius = 0; ; radius++) {
      const guaranteed = Math.min(maxDistance, BAND_BITS * (radius + 1) - 1);
      const rows = await this.db.query<ObjectRow>('SELECT * FROM nearest_image_objects($1::bit(256), $2::int[], $3, $4)', [`x${hash}`, tagsWithin(hash, radius), guaranteed, limit]);
      const all = [...found, ...rows.filter((r) => r.id !== exact?.id).map(neighbour)];
      if (all.length >= limit || guaranteed >= maxDistance) return all.slice(0, limit);
    }
  }

  /**
   * True when the account's live media library holds this image by the same-image rule (its exact
   * bytes, or, neither side low-information, within SAME_OBJECT_MAX_DISTANCE blockhash bits):
   * through nearest_media_items and its band index (the unified_search and image_detail migrations).
   */
  async inLibrary(accountId: number, image: Likeness): Promise<boolean> {
    const hash = checkedHash(image.blockhash);
    const rows = await this.db.query<{ id: number }>('SELECT id FROM nearest_media_items($1, $2, $3, $4::bit(256), $5::bit(64), $6::int[], $7, -1, 1)', [
      accountId,
      image.sha256,
      isLowInformation(image),
      `x${hash}`,
      `x${'0'.repeat(16)}`,
      tagsWithin(hash, radiusFor(SAME_OBJECT_MAX_DISTANCE)),
      SAME_OBJECT_MAX_DISTANCE,
    ]);
    return rows.length > 0;
  }
}

const OBJECT_COLUMNS = `id, sha256, phash, blockhash, "lowInformation", bytes, format, width, height, "createdAt" AT TIME ZONE 'UTC' AS created_at, 0 AS distance`;

function required(phash: string | null | undefined): string {
  if (!phash) throw new RangeError('compareImages: comparing by pHash needs both images\' pHash');
  return phash;
}

function neighbour(row: ObjectRow): Neighbour {
  const { created_at, distance, created: _created, ...fingerprint } = row;
  return { object: { ...fingerprint, createdAt: created_at }, distance: Number(distance) };
}

/** The smallest band radius that finds everything within `distance` bits. */
function radiusFor(distance: number): number {
  return Math.floor(distance / BAND_BITS);
}

/** The band tags (band << 16 | value) within `radius` bits of each band of the hash. */
function tagsWithin(hash: string, radius: number): number[] {
  return Array.from({ length: BANDS }, (_, band) => parseInt(hash.slice(band * 4, band * 4 + 4), 16)).flatMap((value, band) =>
    withinBits(value, radius).map((near) => (band << BAND_BITS) | near),
  );
}

function checkedHash(blockhash: string): string {
  const hash = blockhash.toLowerCase();
  if (!HASH_HEX.test(hash)) throw new InvalidInput(`blockhash: expected 64 hex characters, not ${JSON.stringify(blockhash.slice(0, 80))}`);
  return hash;
}

/** Every 16-bit value within `radius` bits of `value` (1, 17 or 137 of them for radius 0, 1, 2). */
export function withinBits(value: number, radius: number): number[] {
  let values = [value];
  let frontier = [{ value, lowestBit: 0 }];
  for (let flipped = 0; flipped < radius; flipped++) {
    const next: typeof frontier = [];
    for (const { value: base, lowestBit } of frontier) {
      for (let bit = lowestBit; bit < BAND_BITS; bit++) next.push({ value: base ^ (1 << bit), lowestBit: bit + 1 });
    }
    values = values.concat(next.map((n) => n.value));
    frontier = next;
  }
  return values;
}
