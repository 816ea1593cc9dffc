// The featured-image operation, declared once (docs/architecture.md). Spec "Featured image": GET
// /api/featured-image. The rules live in featured.service.ts.
import { defineOperations, defineQuery } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { FeaturedImageRef } from './featured.schema.js';
import { inputSchema } from './featured.service.js';

export const featuredOperations = defineOperations({
  featuredImage: defineQuery({
    description: "The page's featured image with a confidence score (spec \"Featured image\")",
    key: SCOPE.scrape,
    input: inputSchema,
    output: FeaturedImageRef,
    run: ({ ctx, input }) => ctx.services.featured.find(input),
    rest: {
      route: 'GET /api/featured-image',
      summary: "A page's featured image with a score; all=true ranks every candidate; min_score drops weaker ones",
      errors: {
        400: 'a missing or malformed url, or a page that answers an error or is not HTML',
        503: 'render=true, and Chromium is not installed on the server (the message says how to install it)',
      },
    },
  }),
});
