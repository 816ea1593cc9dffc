// Spec "ReplaceFlow": POST /api/replaceflow (a key with the search scope) and POST
// /api/replaceflow/demo (no key, 5 per hour per client address) over src/modules/replaceflow/.
// The answer is the spec's (headline, source_domain, watermarked_url, phash_enabled, count,
// results[]) plus `searched`, ours: what each search tier did. Result entries carry the spec's
// fields; those that do not apply to an entry are left out (README "ReplaceFlow").
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { ReplaceFlowDemoDocument, ReplaceFlowDocument, type ReplaceFlowResultFieldsFragment } from '../generated/operations.js';
import { count } from '../schemas.js';
import { demoSchema, replaceflowSchema } from '../../src/modules/replaceflow/replaceflow.input.js';

const entry = z
  .object({
    type: z.enum(['source_lead', 'clean_discovery']),
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

const answer = z.object({
  headline: z.string().nullable().describe("the article's headline; null when the page has none"),
  source_domain: z.string(),
  watermarked_url: z.string().describe('the featured image read from the article'),
  phash_enabled: z.boolean(),
  count: count.describe('entries in results, the source lead included'),
  results: z.array(entry).describe('the source lead first, then clean discoveries, best first (at most max_results)'),
  searched: z
    .array(z.object({ tier: z.enum(['google_vision', 'local_index', 'library', 'stock']), status: z.enum(['ok', 'failed', 'skipped']), found: count }))
    .describe('ours: what each search tier did and how many candidates it gave'),
});

type Entry = ReplaceFlowResultFieldsFragment['results'][number];

/** A present value, or the field left out. */
const present = <K extends string, V>(key: K, value: V | null | undefined) => (value === null || value === undefined ? {} : ({ [key]: value } as Record<K, V>));

const entryJson = (e: Entry): z.input<typeof entry> => ({
  type: e.type,
  url: e.url,
  is_watermarked: e.isWatermarked,
  domain: e.domain,
  ...present('headline', e.type === 'source_lead' ? e.headline : null),
  ...present('source', e.source),
  ...present('page_url', e.pageUrl),
  ...present('quality_score', e.qualityScore),
  ...present('width', e.width),
  ...present('height', e.height),
  ...present('phash', e.phash),
  ...present('phash_distance', e.phashDistance),
  ...present('phash_match', e.phashMatch),
});

const answerJson = (r: ReplaceFlowResultFieldsFragment): z.input<typeof answer> => ({
  headline: r.headline ?? null,
  source_domain: r.sourceDomain,
  watermarked_url: r.watermarkedUrl,
  phash_enabled: r.phashEnabled,
  count: r.count,
  results: r.results.map(entryJson),
  searched: r.searched.map((s) => ({ tier: s.tier, status: s.status, found: s.found })),
});

const failures = {
  400: 'a missing or malformed article_url (or max_results, phash), an address the service may not fetch, a page that answers an error or is not HTML, or a page without a readable featured image',
} as const;

export const replaceflowRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/replaceflow',
    auth: 'key',
    key: SCOPE.search,
    summary: "Clean versions of an article's watermarked featured image: reverse search (Google web detection when configured, our image index, your library), stock search by the headline as fallback, pHash comparison",
    description: 'max_results: 4 by default, at most 10. phash: true by default; false skips fetching and hashing the candidates (faster, no phash fields). See README "ReplaceFlow".',
    operation: ReplaceFlowDocument,
    request: {
      body: replaceflowSchema.extend({
        article_url: replaceflowSchema.shape.article_url.describe('the article page: an absolute http or https URL'),
        max_results: replaceflowSchema.shape.max_results.describe('clean discoveries at most (1 to 10)'),
        phash: replaceflowSchema.shape.phash.describe('compare candidates by perceptual hash'),
      }),
    },
    response: answer,
    errors: failures,
    variables: ({ body }) => ({ articleUrl: body.article_url, maxResults: body.max_results, phash: body.phash }),
    shape: (data) => answerJson(unwrap(data.replaceFlow)),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/replaceflow/demo',
    auth: 'none',
    summary: 'The ReplaceFlow demo, no key: the same pipeline with max_results 4 and phash on; 5 requests per hour per client address (429 with Retry-After beyond)',
    description: 'Counted before any work, in the database (exact under concurrency, across restarts). IPv6 clients are counted by their /64. Behind a proxy, set TRUST_PROXY so that X-Forwarded-For names the client.',
    operation: ReplaceFlowDemoDocument,
    request: { body: demoSchema.extend({ article_url: demoSchema.shape.article_url.describe('the article page: an absolute http or https URL') }) },
    response: answer,
    errors: { ...failures, 429: 'the 5 demo requests of this hour from this address are used up (Retry-After says when to come back)' },
    variables: ({ body }) => ({ articleUrl: body.article_url }),
    shape: (data) => answerJson(data.replaceFlowDemo),
  }),
];
