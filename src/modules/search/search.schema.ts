// GraphQL surface of the unified search: the imageSearch query (no key needed; a key adds the
// caller's private tiers and must carry the search scope). POST /api/images/search runs it.
import { builder } from '../../graphql/builder.js';
import { OrientationEnum } from '../wiki/wiki.schema.js';
import type { RankedImage } from './ranking.js';
import type { SearchAnswer } from './search.service.js';

const ImageSearchInput = builder.inputType('ImageSearchInput', {
  description: 'At least one of query, imageData and imageUrl (imageData and imageUrl not together)',
  fields: (t) => ({
    query: t.string({ description: 'Words to find (the library search rules)' }),
    imageData: t.string({ description: 'An image, base64-encoded (optionally a data: URI): near copies, and keywords from it when no query is sent' }),
    imageUrl: t.string({ description: 'A public image URL (fetched through the SSRF-safe fetcher): reverse image search, and its keywords when no query is sent' }),
    limit: t.int({ description: 'Default 20, at most 100' }),
    orientation: t.field({ type: OrientationEnum, description: 'Default all' }),
  }),
});

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

const ImageSearchResultRef = builder.objectRef<SearchAnswer>('ImageSearchResult').implement({
  fields: (t) => ({
    query: t.exposeString('query', { description: 'The words searched: the query, or the keywords taken from the image' }),
    isAuthenticatedSearch: t.exposeBoolean('isAuthenticatedSearch', { description: 'A key was sent: the private tiers were searched' }),
    images: t.field({ type: [SearchImageRef], resolve: (a) => a.images }),
    sourceStatistics: t.field({ type: SourceStatisticsRef, resolve: (a) => a }),
  }),
});

builder.queryField('imageSearch', (t) =>
  t.field({
    type: ImageSearchResultRef,
    errors: {},
    description:
      'The unified ranked image search (spec "Search"): the caller\'s library, their public contributions, the global verified atlas, then external stock libraries. No key needed; with one (search scope) the private tiers are added.',
    args: { input: t.arg({ type: ImageSearchInput, required: true }) },
    resolve: (_root, { input }, ctx) =>
      ctx.services.search.search(
        ctx.actor,
        { query: input.query ?? undefined, image_data: input.imageData ?? undefined, image_url: input.imageUrl ?? undefined, limit: input.limit ?? undefined, orientation: input.orientation ?? undefined },
        ctx.baseUrl,
      ),
  }),
);
