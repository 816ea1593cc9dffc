// GraphQL types of a page's featured image; the featuredImage query is declared in featured.operations.ts.
import { builder } from '../../graphql/builder.js';
import type { FeaturedCandidate } from './featured.extractor.js';
import type { FeaturedImageResult } from './featured.service.js';
import { FEATURED_SOURCES } from './featured.extractor.js';

const FeaturedSourceEnum = builder.enumType('FeaturedSource', {
  values: FEATURED_SOURCES,
});

const FeaturedCandidateRef = builder.objectRef<FeaturedCandidate>('FeaturedCandidate').implement({
  fields: (t) => ({
    url: t.exposeString('url'),
    score: t.exposeInt('score', { description: '0 to 100' }),
    source: t.field({ type: FeaturedSourceEnum, resolve: (c) => c.source }),
  }),
});

export const FeaturedImageRef = builder.objectRef<FeaturedImageResult>('FeaturedImage').implement({
  fields: (t) => ({
    url: t.exposeString('url', { nullable: true }),
    score: t.exposeInt('score', { nullable: true }),
    source: t.field({ type: FeaturedSourceEnum, nullable: true, resolve: (r) => r.source }),
    page: t.exposeString('page'),
    all: t.field({ type: [FeaturedCandidateRef], nullable: true, description: 'Every candidate, best first (when all is true)', resolve: (r) => r.all }),
  }),
});
