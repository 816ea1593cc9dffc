// ReplaceFlow's answer as callers see it (spec "ReplaceFlow"), stated once: the answer objects (REST
// names, src/platform/wire.ts) and the GraphQL types made from them; its operations (the keyed run
// and the public demo) are declared in replaceflow.operations.ts. Result entries carry the spec's
// fields; those that do not apply to an entry are left out (docs/rest-api.md "ReplaceFlow").
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import { count } from '../../platform/wire.js';
import type { ReplaceFlowEntry, ReplaceFlowResult, SearchReport } from './replaceflow.service.js';

const RESULT_TYPES = ['source_lead', 'clean_discovery'] as const;
const TIERS = ['google_vision', 'local_index', 'library', 'stock'] as const;
const TIER_STATUSES = ['ok', 'failed', 'skipped'] as const;
answerEnum('ReplaceFlowResultType', { values: RESULT_TYPES });
answerEnum('ReplaceFlowSearchTier', { values: TIERS });
// The same values as PipelineStepStatus: the field names its type.
const TierStatusEnum = answerEnum('ReplaceFlowSearchStatus', { values: TIER_STATUSES });

const entry = z
  .object({
    type: z.enum(RESULT_TYPES),
    url: z.string(),
    is_watermarked: z.boolean().describe('marks found on it that a same-photo copy lacks (README "ReplaceFlow": the detector)'),
    domain: z.string(),
    headline: z.string().optional().describe('source_lead only'),
    source: z.string().optional().describe('the lead: its featured-image source (og_meta ...); a discovery: google_full_match, google_page_match, google_partial_match, google_similar, community, wiki, library or stock:<provider>'),
    page_url: z.string().optional().describe('the page it was found on (the article for the lead, reverse-search page matches)'),
    quality_score: z.int().min(0).max(100).optional().describe('clean_discovery only: 0 to 100'),
    width: z.int().optional(),
    height: z.int().optional(),
    phash: z.string().optional().describe('64-bit pHash, 16 hex digits; left out when phash is false'),
    phash_distance: z.int().min(0).max(64).optional().describe('Hamming distance to the lead: 0 identical, 10 or less the same photo'),
    phash_match: z.boolean().optional().describe('phash_distance <= 10'),
  })
  .meta({ id: 'ReplaceFlowEntry', description: 'The watermarked source lead, or a clean version found for it' });
answerObject<ReplaceFlowEntry>('ReplaceFlowEntry', entry);

const search = z.object({ tier: z.enum(TIERS), status: z.enum(TIER_STATUSES), found: count });
answerObject<SearchReport>('ReplaceFlowSearch', search, {
  description: 'One search tier of the run: what it did and how many candidates it gave',
  fields: () => ({ status: { type: TierStatusEnum } }),
});

export const replaceflowAnswer = z.object({
  headline: z.string().nullable().describe("the article's headline; null when the page has none"),
  source_domain: z.string(),
  watermarked_url: z.string().describe('the featured image read from the article'),
  phash_enabled: z.boolean(),
  count: count.describe('entries in results, the source lead included'),
  results: z.array(entry).describe('the source lead first, then clean discoveries, best first (at most max_results)'),
  searched: z.array(search).describe('ours: what each search tier did and how many candidates it gave'),
});
export const ReplaceFlowResultRef = answerObject<ReplaceFlowResult>('ReplaceFlowResult', replaceflowAnswer);
