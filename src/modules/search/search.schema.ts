// GraphQL types of the unified search (the imageSearch query is declared in search.operations.ts).
import { builder } from '../../graphql/builder.js';
import type { RankedImage } from './ranking.js';
import type { SearchAnswer } from './search.service.js';

const SearchImageRef = builder.objectRef<RankedImage>('SearchImage').implement({
  description: 'Spec "Search result image"',
  fields: (t) => ({
    url: t.exposeString('url', { description: "The service's own signed link (library, community, wiki: no key needed), or the stock library's image" }),
    title: t.exposeString('title'),
    source: t.exposeString('source', { description: 'my_private_library, my_public_atlas, global_atlas, openverse, unsplash, pexels or pixabay' }),
    qualityScore: t.exposeFloat('qualityScore', { description: 'Higher ranks first: tier top (100, 75, 50, 25) - 24 x position in the tier / limit' }),
    isPrivate: t.boolean({ nullable: true, description: 'true on private-library items, else null', resolve: (i) => i.isPrivate ?? null }),
    isVerified: t.boolean({ nullable: true, description: 'true on verified items (wiki photos, AI-verified community items), else null', resolve: (i) => i.isVerified ?? null }),
    width: t.int({ nullable: true, resolve: (i) => i.width }),
    height: t.int({ nullable: true, resolve: (i) => i.height }),
    pageUrl: t.string({ nullable: true, description: "Stock images: the image's page on its library", resolve: (i) => i.pageUrl ?? null }),
    attribution: t.string({ nullable: true, description: 'Stock images: the credit line the library asks for', resolve: (i) => i.attribution ?? null }),
  }),
});

const SourceStatisticsRef = builder.objectRef<SearchAnswer>('SearchSourceStatistics').implement({
  fields: (t) => ({
    sourcesActive: t.stringList({ description: 'Sources searched that answered', resolve: (a) => a.sourcesActive }),
    sourcesFailed: t.stringList({ description: 'Stock libraries that failed or missed the deadline', resolve: (a) => a.sourcesFailed }),
    totalFound: t.int({ description: 'Distinct images found before the page was cut to limit', resolve: (a) => a.totalFound }),
  }),
});

export const ImageSearchResultRef = builder.objectRef<SearchAnswer>('ImageSearchResult').implement({
  fields: (t) => ({
    query: t.exposeString('query', { description: 'The words searched: the query, or the keywords taken from the image' }),
    isAuthenticatedSearch: t.exposeBoolean('isAuthenticatedSearch', { description: 'A key was sent: the private tiers were searched' }),
    images: t.field({ type: [SearchImageRef], resolve: (a) => a.images }),
    sourceStatistics: t.field({ type: SourceStatisticsRef, resolve: (a) => a }),
  }),
});
