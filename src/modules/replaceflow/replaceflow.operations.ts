// ReplaceFlow's operations, each declared once (docs/architecture.md): the keyed run (search scope)
// and the public demo (no key, 5 per hour per client address). GraphQL fields and REST rows are made
// from these; the pipeline lives in replaceflow.service.ts. The answer is the spec's (headline,
// source_domain, watermarked_url, phash_enabled, count, results[]) plus `searched`, ours: what each
// search tier did. Result entries carry the spec's fields; those that do not apply to an entry are
// left out (README "ReplaceFlow").
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { ANY_KEY, SCOPE } from '../access/index.js';
import { count } from '../../platform/wire.js';
import { ReplaceFlowResultRef } from './replaceflow.schema.js';
import { DEFAULT_MAX_RESULTS, demoSchema, MAX_RESULTS, replaceflowSchema } from './replaceflow.input.js';

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

const failures = {
  400: 'a missing or malformed article_url (or max_results, phash), an address the service may not fetch, a page that answers an error or is not HTML, or a page without a readable featured image',
} as const;

export const replaceflowOperations = defineOperations({
  replaceFlow: defineOperation({
    kind: 'mutation',
    description: `Clean versions of an article's watermarked featured image (spec "ReplaceFlow"): maxResults ${DEFAULT_MAX_RESULTS} by default, at most ${MAX_RESULTS}`,
    key: SCOPE.search,
    input: replaceflowSchema,
    output: ReplaceFlowResultRef,
    run: ({ ctx, actor, input }) => ctx.services.replaceflow.find(actor, input, ctx.baseUrl),
    rest: {
      method: 'POST',
      path: '/api/replaceflow',
      summary: "Clean versions of an article's watermarked featured image: reverse search (Google web detection when configured, our image index, your library), stock search by the headline as fallback, pHash comparison",
      description: 'max_results: 4 by default, at most 10. phash: true by default; false skips fetching and hashing the candidates (faster, no phash fields). See README "ReplaceFlow".',
      response: answer,
      fragment: 'ReplaceFlowResult',
      errors: failures,
    },
  }),
  // Plain (no result union): a 429 must reach the caller with its Retry-After header, which travels
  // in the error's extensions (the union's ServiceError has no headers).
  replaceFlowDemo: defineOperation({
    kind: 'mutation',
    description: 'The ReplaceFlow demo (no key): the same pipeline with the defaults, 5 requests per hour per client address',
    key: ANY_KEY,
    input: demoSchema,
    output: ReplaceFlowResultRef,
    plain: true,
    run: ({ ctx, input }) => ctx.services.replaceflow.demo(ctx.clientAddress, input, ctx.baseUrl),
    rest: {
      method: 'POST',
      path: '/api/replaceflow/demo',
      auth: 'none',
      summary: 'The ReplaceFlow demo, no key: the same pipeline with max_results 4 and phash on; 5 requests per hour per client address (429 with Retry-After beyond)',
      description:
        'Counted before any work, in the database (exact under concurrency, across restarts). IPv6 clients are counted by their /64. Behind a proxy, set TRUST_PROXY so that X-Forwarded-For names the client.',
      response: answer,
      fragment: 'ReplaceFlowResult',
      errors: { ...failures, 429: 'the 5 demo requests of this hour from this address are used up (Retry-After says when to come back)' },
    },
  }),
});
