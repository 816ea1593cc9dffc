// GraphQL types of ReplaceFlow (spec "ReplaceFlow"); its operations (the keyed run and the public
// demo) are declared in replaceflow.operations.ts. Thin: the pipeline lives in replaceflow.service.ts.
import { builder } from '../../graphql/builder.js';
import type { ReplaceFlowEntry, ReplaceFlowResult, SearchReport } from './replaceflow.service.js';

const ResultTypeEnum = builder.enumType('ReplaceFlowResultType', { values: ['source_lead', 'clean_discovery'] as const });
const TierEnum = builder.enumType('ReplaceFlowSearchTier', { values: ['google_vision', 'local_index', 'library', 'stock'] as const });
const TierStatusEnum = builder.enumType('ReplaceFlowSearchStatus', { values: ['ok', 'failed', 'skipped'] as const });

const EntryRef = builder.objectRef<ReplaceFlowEntry>('ReplaceFlowEntry').implement({
  description: 'The watermarked source lead, or a clean version found for it',
  fields: (t) => ({
    type: t.field({ type: ResultTypeEnum, resolve: (e) => e.type }),
    url: t.exposeString('url'),
    isWatermarked: t.exposeBoolean('isWatermarked', { description: 'Marks found on it that a same-photo copy lacks (README "ReplaceFlow")' }),
    domain: t.exposeString('domain'),
    headline: t.exposeString('headline', { nullable: true, description: 'source_lead only' }),
    source: t.exposeString('source', { nullable: true, description: 'Where it came from: the featured-image source of the lead, the search tier of a discovery' }),
    pageUrl: t.exposeString('pageUrl', { nullable: true, description: 'The page it was found on, when known' }),
    qualityScore: t.exposeInt('qualityScore', { nullable: true, description: 'clean_discovery only: 0 to 100' }),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
    phash: t.exposeString('phash', { nullable: true, description: '64-bit pHash, 16 hex digits (null when phash is false)' }),
    phashDistance: t.exposeInt('phashDistance', { nullable: true, description: 'Hamming distance to the lead: 0 identical, 10 or less the same photo' }),
    phashMatch: t.exposeBoolean('phashMatch', { nullable: true, description: 'The same photo as the lead' }),
  }),
});

const SearchRef = builder.objectRef<SearchReport>('ReplaceFlowSearch').implement({
  description: 'One search tier of the run: what it did and how many candidates it gave',
  fields: (t) => ({
    tier: t.field({ type: TierEnum, resolve: (s) => s.tier }),
    status: t.field({ type: TierStatusEnum, resolve: (s) => s.status }),
    found: t.exposeInt('found'),
  }),
});

export const ReplaceFlowResultRef = builder.objectRef<ReplaceFlowResult>('ReplaceFlowResult').implement({
  fields: (t) => ({
    headline: t.exposeString('headline', { nullable: true }),
    sourceDomain: t.exposeString('sourceDomain'),
    watermarkedUrl: t.exposeString('watermarkedUrl'),
    phashEnabled: t.exposeBoolean('phashEnabled'),
    count: t.exposeInt('count', { description: 'Entries in results, the source lead included' }),
    results: t.field({ type: [EntryRef], description: 'The source lead first, then clean discoveries, best first', resolve: (r) => r.results }),
    searched: t.field({ type: [SearchRef], resolve: (r) => r.searched }),
  }),
});
