// Spec "Featured image": GET /api/featured-image (src/modules/featured/).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { FeaturedImageDocument } from '../generated/operations.js';
import { inputSchema as featuredInput } from '../../src/modules/featured/featured.service.js';
import { FEATURED_SOURCES } from '../../src/modules/featured/featured.extractor.js';

const score = z.int().min(0).max(100);

export const featuredRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/featured-image',
    auth: 'key',
    key: SCOPE.scrape,
    summary: "A page's featured image with a score; all=true ranks every candidate; min_score drops weaker ones",
    operation: FeaturedImageDocument,
    request: {
      query: featuredInput.extend({
        url: featuredInput.shape.url.describe('the page: an absolute http or https URL'),
        all: featuredInput.shape.all.describe('rank every candidate (true/false/1/0)'),
        min_score: featuredInput.shape.min_score.describe('drop candidates scoring less'),
      }),
    },
    response: z.object({
      url: z.string().nullable().describe('the featured image; null when the page has none'),
      score: score.nullable(),
      source: z.enum(FEATURED_SOURCES).nullable(),
      page: z.string().describe('the page read, after redirects'),
      all: z.array(z.object({ url: z.string(), score, source: z.enum(FEATURED_SOURCES) })).optional().describe('with all=true: every candidate, best first'),
    }),
    errors: { 400: 'a missing or malformed url, or a page that answers an error or is not HTML' },
    variables: ({ query }) => ({ url: query.url, all: query.all, minScore: query.min_score }),
    shape: (data) => {
      const result = unwrap(data.featuredImage);
      return {
        url: result.url,
        score: result.score,
        source: result.source,
        page: result.page,
        ...(result.all ? { all: result.all.map((c) => ({ url: c.url, score: c.score, source: c.source })) } : {}),
      };
    },
  }),
];
