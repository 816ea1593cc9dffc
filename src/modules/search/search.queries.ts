// The SQL of the unified search's own tiers: the caller's library (full text, and near copies by
// perceptual hash through the band index of the unified_search migration), the caller's own
// community items (full text), and the community items and wiki photos of image objects that
// reverse search found. Every statement names the account it reads for; nothing here decides who
// may call it (search.service.ts does).
import type { Database } from '../../platform/database/database.js';
import { isLowInformation, SAME_OBJECT_MAX_DISTANCE, withinBits, type Likeness } from '../image-objects/index.js';
import type { SearchOrientation } from './search.input.js';

/** The width/height rule of `orientation` ($n its parameter) over a table alias: within 5% is square. */
function orientationSql(alias: string, n: number): string {
  const w = `${alias}."width"`;
  const h = `${alias}."height"`;
  return `($${n}::text = 'all' OR ($${n} = 'landscape' AND ${w} > ${h} * 1.05) OR ($${n} = 'portrait' AND ${h} > ${w} * 1.05)
    OR ($${n} = 'square' AND ${w} BETWEEN ${h} * 0.95 AND ${h} * 1.05))`;
}

export interface LibraryRow {
  id: number;
  name: string;
  sha256: string;
  width: number | null;
  height: number | null;
  blockhash: string | null;
  lowInformation: boolean;
}

/** A file of an image object (a community item, a wiki photo) with the object's print (OBJECT_PRINT). */
interface ObjectFileRow {
  id: number;
  objectId: number;
  storageKey: string;
  width: number;
  height: number;
  blockhash: string;
  /** The image object's bytes and flag (the same-image rule). */
  objectSha256: string;
  lowInformation: boolean;
}

export interface CommunityRow extends ObjectFileRow {
  accountId: number;
  name: string | null;
  tags: string[];
  verified: boolean;
}

export interface WikiRow extends ObjectFileRow {
  title: string;
}

/** A tsquery (search-query.ts text) and its whole-word form, whose matches rank first (null: the same as `match`). */
export interface TextMatch {
  match: string;
  exact: string | null;
}

/**
 * Blockhash bits (the image-objects rule's) and pHash bits within which a library item is a near
 * copy (docs/rest-api.md "Unified image search"); a low-information image or item only by its exact bytes.
 */
export const LIBRARY_MAX_BLOCK_DISTANCE = SAME_OBJECT_MAX_DISTANCE;
export const LIBRARY_MAX_PHASH_DISTANCE = 7;

const LIBRARY_COLUMNS = 'm."id", m."name", m."sha256", m."width", m."height", m."blockhash", m."lowInformation"';
const OBJECT_PRINT = 'o."blockhash", o."sha256" AS "objectSha256", o."lowInformation"';
const COMMUNITY_COLUMNS = `i."id", i."objectId", i."accountId", i."name", i."tags", i."verified", i."storageKey", i."width", i."height", ${OBJECT_PRINT}`;

export class SearchQueries {
  constructor(private readonly db: Database) {}

  /** The account's live library images matching the words, whole-word matches first, then by rank. */
  libraryText(accountId: number, text: TextMatch, orientation: SearchOrientation, limit: number): Promise<LibraryRow[]> {
    return this.db.query<LibraryRow>(
      `SELECT ${LIBRARY_COLUMNS} FROM "MediaItem" m
       WHERE m."accountId" = $1 AND m."trashedAt" IS NULL AND m."kind" = 'image' AND ${orientationSql('m', 4)}
         AND m."searchVector" @@ to_tsquery('english', $2) AND querytree(to_tsquery('english', $2)) <> 'T'
       ORDER BY m."searchVector" @@ to_tsquery('english', $3) DESC,
                ts_rank(m."searchVector", to_tsquery('english', $2)) DESC, m."id" DESC
       LIMIT $5`,
      [accountId, text.match, text.exact ?? text.match, orientation, limit],
    );
  }

  /**
   * The account's live library images that are near copies of the image: blockhash within
   * LIBRARY_MAX_BLOCK_DISTANCE bits (band radius 1: 272 tags) or pHash within
   * LIBRARY_MAX_PHASH_DISTANCE bits (band radius 1: 68 tags; radius 2, for 11 bits, cost four times
   * as much at 100,000 items), blockhash matches first, nearest first.
   */
  async libraryNear(accountId: number, hashes: Likeness & { phash: string }, orientation: SearchOrientation, limit: number): Promise<LibraryRow[]> {
    const block = bands(hashes.blockhash, 16, 0, 1);
    const phash = bands(hashes.phash, 4, 16, 1);
    // The nearest few, then the orientation: near copies are few, so four times the page is plenty.
    return this.db.query<LibraryRow>(
      `SELECT ${LIBRARY_COLUMNS} FROM nearest_media_items($1, $9, $10, ('x' || $2)::bit(256), ('x' || $3)::bit(64), $4::int[], $5, $6, $7) n
       JOIN "MediaItem" m ON m."id" = n."id"
       WHERE ${orientationSql('m', 8)}
       ORDER BY coalesce(n."block_distance" <= $5, FALSE) DESC, n."block_distance", n."phash_distance", n."id" DESC`,
      [accountId, hashes.blockhash, hashes.phash, [...block, ...phash], LIBRARY_MAX_BLOCK_DISTANCE, LIBRARY_MAX_PHASH_DISTANCE, limit * 4, orientation, hashes.sha256, isLowInformation(hashes)],
    );
  }

  /** The account's own listed, not removed community items matching the words, by rank. */
  ownCommunityText(accountId: number, text: TextMatch, orientation: SearchOrientation, limit: number): Promise<CommunityRow[]> {
    return this.db.query<CommunityRow>(
      `SELECT ${COMMUNITY_COLUMNS} FROM "CommunityItem" i JOIN "ImageObject" o ON o."id" = i."objectId"
       WHERE i."accountId" = $1 AND i."removedAt" IS NULL AND i."public" AND ${orientationSql('i', 4)}
         AND i."searchVector" @@ to_tsquery('english', $2) AND querytree(to_tsquery('english', $2)) <> 'T'
       ORDER BY i."searchVector" @@ to_tsquery('english', $3) DESC,
                ts_rank(i."searchVector", to_tsquery('english', $2)) DESC, i."id" DESC
       LIMIT $5`,
      [accountId, text.match, text.exact ?? text.match, orientation, limit],
    );
  }

  /** Listed, not removed community items of these image objects (anyone's). */
  communityOfObjects(objectIds: number[], orientation: SearchOrientation): Promise<CommunityRow[]> {
    if (objectIds.length === 0) return Promise.resolve([]);
    return this.db.query<CommunityRow>(
      `SELECT ${COMMUNITY_COLUMNS} FROM "CommunityItem" i JOIN "ImageObject" o ON o."id" = i."objectId"
       WHERE i."objectId" = ANY($1::int[]) AND i."removedAt" IS NULL AND i."public" AND ${orientationSql('i', 2)}
       ORDER BY i."verified" DESC, i."id" DESC`,
      [objectIds, orientation],
    );
  }

  /** Verified photos of approved wiki subjects of these image objects. */
  wikiOfObjects(objectIds: number[], orientation: SearchOrientation): Promise<WikiRow[]> {
    if (objectIds.length === 0) return Promise.resolve([]);
    return this.db.query<WikiRow>(
      `SELECT w."id", w."objectId", s."name" AS "title", w."storageKey", w."width", w."height", ${OBJECT_PRINT}
       FROM "WikiMedia" w JOIN "WikiSubject" s ON s."id" = w."subjectId" JOIN "ImageObject" o ON o."id" = w."objectId"
       WHERE w."objectId" = ANY($1::int[]) AND w."status" = 'verified' AND s."status" = 'approved' AND ${orientationSql('w', 2)}
       ORDER BY w."confidence" DESC NULLS LAST, w."id" DESC`,
      [objectIds, orientation],
    );
  }

  /** What the same-image rule reads of image objects (to tell copies apart across tiers). */
  async likenessOf(objectIds: number[]): Promise<Map<number, Likeness>> {
    if (objectIds.length === 0) return new Map();
    const rows = await this.db.query<Likeness & { id: number }>(`SELECT "id", "sha256", "blockhash", "lowInformation" FROM "ImageObject" WHERE "id" = ANY($1::int[])`, [objectIds]);
    return new Map(rows.map(({ id, ...likeness }) => [id, likeness]));
  }
}

/** The band tags of a hex hash within `radius` bits per band (the unified_search migration's image_hash_bands). */
function bands(hex: string, count: number, firstTag: number, radius: number): number[] {
  return Array.from({ length: count }, (_, band) => parseInt(hex.slice(band * 4, band * 4 + 4), 16)).flatMap((value, band) =>
    withinBits(value, radius).map((near) => ((firstTag + band) << 16) | near),
  );
}
