import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
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

const FeaturedImageRef = builder.objectRef<FeaturedImageResult>('FeaturedImage').implement({
  fields: (t) => ({
    url: t.exposeString('url', { nullable: true }),
    score: t.exposeInt('score', { nullable: true }),
    source: t.field({ type: FeaturedSourceEnum, nullable: true, resolve: (r) => r.source }),
    page: t.exposeString('page'),
    all: t.field({ type: [FeaturedCandidateRef], nullable: true, description: 'Every candidate, best first (when all is true)', resolve: (r) => r.all }),
  }),
});

builder.queryField('featuredImage', (t) =>
  t.field({
    type: FeaturedImageRef,
    description: "The page's featured image with a confidence score (spec \"Featured image\")",
    authScopes: authScopesOf(SCOPE.scrape),
    errors: {},
    args: { url: t.arg.string({ required: true }), all: t.arg.boolean(), minScore: t.arg.int() },
    resolve: (_root, args, ctx) => ctx.services.featured.find({ url: args.url, all: args.all, min_score: args.minScore }),
  }),
);
