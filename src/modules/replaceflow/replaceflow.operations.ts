// ReplaceFlow's operations, each declared once (docs/architecture.md): the keyed run (search scope)
// and the public demo (no key, 5 per hour per client address). GraphQL fields and REST rows are made
// from these; the pipeline lives in replaceflow.service.ts. The answer (replaceflow.schema.ts) is the
// spec's (headline, source_domain, watermarked_url, phash_enabled, count, results[]) plus `searched`,
// ours: what each search tier did.
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { ANY_KEY, SCOPE } from '../access/index.js';
import { ReplaceFlowResultRef } from './replaceflow.schema.js';
import { DEFAULT_MAX_RESULTS, demoSchema, MAX_RESULTS, replaceflowSchema } from './replaceflow.input.js';

const failures = {
  400: 'a missing or malformed article_url (or max_results, phash), an address the service may not fetch, a page that answers an error or is not HTML, or a page without a readable featured image',
} as const;

export const replaceflowOperations = defineOperations({
  replaceFlow: defineMutation({
    description: `Clean versions of an article's watermarked featured image (spec "ReplaceFlow"): maxResults ${DEFAULT_MAX_RESULTS} by default, at most ${MAX_RESULTS}`,
    key: SCOPE.search,
    input: replaceflowSchema,
    output: ReplaceFlowResultRef,
    run: ({ ctx, actor, input }) => ctx.services.replaceflow.find(actor, input, ctx.baseUrl),
    rest: {
      route: 'POST /api/replaceflow',
      summary: "Clean versions of an article's watermarked featured image: reverse search (Google web detection when configured, our image index, your library), stock search by the headline as fallback, pHash comparison",
      description: 'max_results: 4 by default, at most 10. phash: true by default; false skips fetching and hashing the candidates (faster, no phash fields). See README "ReplaceFlow".',
      fragment: 'ReplaceFlowResult',
      errors: failures,
    },
  }),
  // Plain (no result union): a 429 must reach the caller with its Retry-After header, which travels
  // in the error's extensions (the union's ServiceError has no headers).
  replaceFlowDemo: defineMutation({
    description: 'The ReplaceFlow demo (no key): the same pipeline with the defaults, 5 requests per hour per client address',
    key: ANY_KEY,
    input: demoSchema,
    output: ReplaceFlowResultRef,
    plain: true,
    run: ({ ctx, input }) => ctx.services.replaceflow.demo(ctx.clientAddress, input, ctx.baseUrl),
    rest: {
      route: 'POST /api/replaceflow/demo',
      auth: 'none',
      summary: 'The ReplaceFlow demo, no key: the same pipeline with max_results 4 and phash on; 5 requests per hour per client address (429 with Retry-After beyond)',
      description:
        'Counted before any work, in the database (exact under concurrency, across restarts). IPv6 clients are counted by their /64. Behind a proxy, set TRUST_PROXY so that X-Forwarded-For names the client.',
      fragment: 'ReplaceFlowResult',
      errors: { ...failures, 429: 'the 5 demo requests of this hour from this address are used up (Retry-After says when to come back)' },
    },
  }),
});
