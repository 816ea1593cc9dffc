// Image objects: the one identity of an image across the service. An image joins the object whose
// 256-bit blockhash is nearest to its own when that is within SAME_OBJECT_MAX_DISTANCE bits, and
// makes a new object otherwise, so resized, recompressed, re-encoded, lightly cropped or captioned
// copies are one object (the figures behind the distance: README, "Image objects").
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

/**
 * Largest blockhash distance (of 256 bits) at which an image is the same object. Measured copies
 * stay within 20 bits and unrelated pictures beyond 90 (README, "Image objects"); 31 is also the
 * farthest a search probes at band radius 1 (272 tags), while radius 2 (2,192 tags) costs about
 * 25 times as much at a million objects (bench/RESULTS.md).
 */
export const SAME_OBJECT_MAX_DISTANCE = 31;
const BANDS = 16;
const BAND_BITS = 16;
const HASH_HEX = /^[0-9a-f]{64}$/;

/** What an image brings to be identified: an object's columns but its id and time. */
export type ImageFingerprint = Omit<ImageObject, 'id' | 'createdAt'>;

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

  /** The object this image is: the same bytes', the nearest within SAME_OBJECT_MAX_DISTANCE, or a new one. */
  async identify(image: ImageFingerprint): Promise<Identified> {
    const hash = checkedHash(image.blockhash);
    const [same] = await this.db.query<ObjectRow>(
      `SELECT id, sha256, phash, blockhash, bytes, format, width, height, "createdAt" AT TIME ZONE 'UTC' AS created_at, 0 AS distance FROM "ImageObject" WHERE sha256 = $1`,
      [image.sha256],
    );
    if (same) return { ...neighbour(same), created: false };
    const [nearest] = await this.nearest(hash, 1, SAME_OBJECT_MAX_DISTANCE);
    if (nearest) return { ...nearest, created: false };
    // Nothing near: made in one statement that looks again under a lock (the image_objects migration).
    const [made] = await this.db.query<ObjectRow>('SELECT * FROM make_image_object($1, $2, $3, $4, $5, $6, $7, $8::int[], $9)', [
      image.sha256,
      image.phash,
      hash,
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
    const [row] = await this.db.query<ObjectRow>(
      `SELECT id, sha256, phash, blockhash, bytes, format, width, height, "createdAt" AT TIME ZONE 'UTC' AS created_at, 0 AS distance FROM "ImageObject" WHERE id = $1`,
      [id],
    );
    return row ? neighbour(row).object : null;
  }

  /**
   * Up to `limit` objects nearest to the blockhash within `maxDistance` bits, nearest first (ties by
   * age): exact for any distance up to 47 bits.
   */
  async nearest(blockhash: string, limit = 10, maxDistance = SAME_OBJECT_MAX_DISTANCE): Promise<Neighbour[]> {
    const hash = checkedHash(blockhash);
    const farthest = BAND_BITS * 3 - 1;
    if (!Number.isInteger(maxDistance) || maxDistance < 0 || maxDistance > farthest) throw new InvalidInput(`maxDistance: expected an integer from 0 to ${farthest} bits`);
    if (!Number.isInteger(limit) || limit < 1) throw new InvalidInput('limit: expected a positive integer');
    for (let radius = 0; ; radius++) {
      const guaranteed = Math.min(maxDistance, BAND_BITS * (radius + 1) - 1);
      const rows = await this.db.query<ObjectRow>('SELECT * FROM nearest_image_objects($1::bit(256), $2::int[], $3, $4)', [`x${hash}`, tagsWithin(hash, radius), guaranteed, limit]);
      if (rows.length >= limit || guaranteed >= maxDistance) return rows.map(neighbour);
    }
  }
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
