// The global verified atlas (the unified search's third tier, spec "Search"): verified wiki photos
// of approved subjects, then AI-verified community items (listed, not taken down). A text query
// matches a wiki photo by its subject's full text (name, category, description), its photo type or
// vision's labels, and a community item when it shows the word's subject (the community's rule,
// subject-evidence.ts: a tag of it confirmed by what vision sees, or a verified wiki photo of it on
// the same image object); without a query the atlas lists its newest AI-verified items. Wiki
// photos come first, most confident first; community items after, newest first.
import { z } from 'zod';
import type { Database } from '../../platform/database/database.js';
import { parseInput } from '../../platform/validation.js';
import { showsSubjectSql, subjectKeysOf } from '../community/index.js';

export const ORIENTATIONS = ['all', 'landscape', 'portrait', 'square'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

export const atlasSchema = z.object({
  query: z.string({ error: 'expected a string' }).trim().max(200, 'expected at most 200 characters').optional(),
  orientation: z.enum(ORIENTATIONS, { error: `expected one of ${ORIENTATIONS.join(', ')}` }).default('all'),
  limit: z.number({ error: 'expected an integer' }).int('expected an integer').min(1, 'expected at least 1').max(100, 'expected at most 100').default(20),
});

export interface AtlasEntry {
  source: 'wiki' | 'community';
  /** The wiki photo or community item id. */
  id: number;
  imageObjectId: number;
  width: number;
  height: number;
  /** Wiki photos: their confidence; community items: null (AI-verified by tags). */
  confidence: number | null;
  /** Wiki photos: their subject. */
  subjectSlug: string | null;
  title: string | null;
  tags: string[];
  accountId: number;
  /** What the file route needs to sign a link. */
  storageKey: string;
}

/** Width against height (within 5% is square), as SQL over a table alias. */
function orientationSql(orientation: Orientation, alias: string): string {
  switch (orientation) {
    case 'landscape':
      return `${alias}."width" > ${alias}."height" * 1.05`;
    case 'portrait':
      return `${alias}."height" > ${alias}."width" * 1.05`;
    case 'square':
      return `${alias}."width" BETWEEN ${alias}."height" * 0.95 AND ${alias}."height" * 1.05`;
    default:
      return 'TRUE';
  }
}

export class AtlasService {
  constructor(private readonly db: Database) {}

  async search(input: z.input<typeof atlasSchema>): Promise<AtlasEntry[]> {
    const { query, orientation, limit } = parseInput(atlasSchema, input);
    const text = query || null;
    const words = query ? [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}-]+/u).filter(Boolean))].slice(0, 10) : [];
    // A community item is found by a word (or the whole query) only when it shows that subject: the community's one rule.
    const subjects = query ? subjectKeysOf([query, ...words].map((word) => ({ slug: word, name: word }))) : [];
    const wiki = await this.db.query<Omit<AtlasEntry, 'source' | 'tags'> & { tags: string[] }>(
      `SELECT m."id", m."objectId" AS "imageObjectId", m."width", m."height", m."confidence", s."slug" AS "subjectSlug", s."name" AS "title",
              m."labels" AS "tags", m."accountId", m."storageKey"
       FROM "WikiMedia" m JOIN "WikiSubject" s ON s."id" = m."subjectId"
       WHERE m."status" = 'verified' AND s."status" = 'approved' AND ${orientationSql(orientation, 'm')}
         AND ($1::text IS NULL OR s."search" @@ plainto_tsquery('simple', $1) OR m."labels" && $2::text[] OR m."photoType" = ANY($2::text[]))
       ORDER BY m."confidence" DESC NULLS LAST, m."id" DESC LIMIT $3`,
      [text, words, limit],
    );
    const left = limit - wiki.length;
    const community =
      left > 0
        ? await this.db.query<Omit<AtlasEntry, 'source' | 'confidence' | 'subjectSlug'>>(
            `SELECT i."id", i."objectId" AS "imageObjectId", i."width", i."height", i."name" AS "title", i."tags", i."accountId", i."storageKey"
             FROM "CommunityItem" i
             WHERE i."verified" AND i."public" AND i."removedAt" IS NULL AND ${orientationSql(orientation, 'i')}
               AND (cardinality($1::text[]) = 0 OR ${showsSubjectSql('i', 1)})
             ORDER BY i."id" DESC LIMIT $2`,
            [subjects, left],
          )
        : [];
    return [
      ...wiki.map((w) => ({ ...w, source: 'wiki' as const, confidence: w.confidence === null ? null : Number(w.confidence) })),
      ...community.map((c) => ({ ...c, source: 'community' as const, confidence: null, subjectSlug: null })),
    ];
  }
}
