// The featured-image operation, declared once (docs/architecture.md). Spec "Featured image": GET
// /api/featured-image. The rules live in featured.service.ts.
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { FeaturedImageRef } from './featured.schema.js';
import { inputSchema } from './featured.service.js';
import { FEATURED_SOURCES } from './featured.extractor.js';

const score = z.int().min(0).max(100);

export const featuredOperations = {
  featuredImage: defineOperation({
    kind: 'query',
    name: 'featuredImage',
    description: "The page's featured image with a confidence score (spec \"Featured image\")",
    key: SCOPE.scrape,
    input: inputSchema,
    output: FeaturedImageRef,
    run: ({ ctx, input }) => ctx.services.featured.find(input),
    rest: {
      method: 'GET',
      path: '/api/featured-image',
      summary: "A page's featured image with a score; all=true ranks every candidate; min_score drops weaker ones",
      response: z.object({
        url: z.string().nullable().describe('the featured image; null when the page has none'),
        score: score.nullable(),
        source: z.enum(FEATURED_SOURCES).nullable(),
        page: z.string().describe('the page read, after redirects'),
        all: z.array(z.object({ url: z.string(), score, source: z.enum(FEATURED_SOURCES) })).optional().describe('with all=true: every candidate, best first'),
      }),
      errors: { 400: 'a missing or malformed url, or a page that answers an error or is not HTML' },
    },
  }),
};
