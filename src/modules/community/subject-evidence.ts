// "Does this community upload show subject S?": the one rule that bounty claims, the verified atlas
// and the unified search (through the atlas) ask (docs/rest-api.md "Community": per-tag verification).
//
// An upload shows a subject when
//   - one of its current tags has the subject's key and is confirmed by evidence that shows the
//     picture (a label, a model's judgement, a caption word: SUBJECT_EVIDENCE; text read in the image
//     alone does not), or
//   - a wiki photo of that subject (by slug), verified by the community vote, of an approved subject,
//     is of the same image object.
// The rule is SQL (showsSubjectSql) so that lists filter by it in the database; single checks run the
// same statement (SubjectCheck explains a "no" from the item's tags and confirmations).
import type { Database } from '../../platform/database/database.js';
import type { Tx } from '../ledger/index.js';
import { SUBJECT_EVIDENCE, subjectKey, subjectKeys, type TagEvidence } from './tag-confirmation.js';

/** A subject as bounties name it (slug and name), or an atlas word (both the same). */
export interface Subject {
  slug: string;
  name: string;
}

export type SubjectCheck =
  | { shows: true; by: 'tag' | 'wiki' }
  /** `tag`: the item's tag naming the subject, when it has one; `evidence`: that tag's confirmation (null: none). */
  | { shows: false; tag: string | null; evidence: TagEvidence | null };

const PICTURE_EVIDENCE_SQL = SUBJECT_EVIDENCE.map((e) => `'${e}'`).join(', ');

/** SQL: the confirmed tags of the item under `alias` that show one of the subjects keyed by the text[] parameter $n. */
function byTagSql(alias: string, n: number): string {
  return `EXISTS (SELECT 1 FROM "CommunityTagConfirmation" c WHERE c."itemId" = ${alias}."id" AND c."key" = ANY($${n}::text[]) AND c."evidence" IN (${PICTURE_EVIDENCE_SQL}))`;
}

/** SQL: a verified wiki photo of an approved subject whose slug is in the text[] parameter $n, on the image object of the item under `alias`. */
function byWikiSql(alias: string, n: number): string {
  return `EXISTS (SELECT 1 FROM "WikiMedia" wm JOIN "WikiSubject" ws ON ws."id" = wm."subjectId"
                  WHERE wm."objectId" = ${alias}."objectId" AND wm."status" = 'verified' AND ws."status" = 'approved' AND ws."slug" = ANY($${n}::text[]))`;
}

/** SQL predicate: the community item under `alias` shows one of the subjects whose keys (subjectKeysOf) are the text[] parameter $n. */
export function showsSubjectSql(alias: string, n: number): string {
  return `(${byTagSql(alias, n)} OR ${byWikiSql(alias, n)})`;
}

/** The keys of subjects, for showsSubjectSql's parameter. */
export function subjectKeysOf(subjects: readonly Subject[]): string[] {
  return [...new Set(subjects.flatMap((s) => subjectKeys(s.slug, s.name)))];
}

type Runner = Pick<Database, 'query'> | Tx;

async function run<T>(runner: Runner, sql: string, params: unknown[]): Promise<T[]> {
  return 'query' in runner ? runner.query<T>(sql, params) : runner.$queryRawUnsafe<T[]>(sql, ...params);
}

type CheckRow = { by_tag: boolean; by_wiki: boolean; tags: string[]; confirmed: Array<{ tag: string; evidence: TagEvidence }> | string };

/** SQL of one item's check ($1 the item, $2 its subject's keys): also run inside bounty_claim(), after its locks. */
export const SUBJECT_CHECK_SQL = `SELECT ${byTagSql('i', 2)} AS by_tag, ${byWikiSql('i', 2)} AS by_wiki, i."tags",
            coalesce((SELECT json_agg(json_build_object('tag', c."tag", 'evidence', c."evidence")) FROM "CommunityTagConfirmation" c WHERE c."itemId" = i."id"), '[]'::json) AS confirmed
     FROM "CommunityItem" i WHERE i."id" = $1`;

/** What SUBJECT_CHECK_SQL's row (none: no such item) says of the subject whose keys are `keys`. */
export function subjectCheckOf(row: CheckRow | null | undefined, keys: readonly string[]): SubjectCheck {
  if (!row) return { shows: false, tag: null, evidence: null };
  if (row.by_tag) return { shows: true, by: 'tag' };
  if (row.by_wiki) return { shows: true, by: 'wiki' };
  const confirmed = typeof row.confirmed === 'string' ? (JSON.parse(row.confirmed) as Array<{ tag: string; evidence: TagEvidence }>) : row.confirmed;
  const tag = row.tags.find((t) => keys.includes(subjectKey(t))) ?? null;
  return { shows: false, tag, evidence: confirmed.find((c) => c.tag === tag)?.evidence ?? null };
}

/** Whether one item shows the subject, and when not, what is missing (in the caller's transaction with a Tx). */
export async function checkSubject(runner: Runner, itemId: number, subject: Subject): Promise<SubjectCheck> {
  const keys = subjectKeysOf([subject]);
  const [row] = await run<CheckRow>(runner, SUBJECT_CHECK_SQL, [itemId, keys]);
  return subjectCheckOf(row, keys);
}
