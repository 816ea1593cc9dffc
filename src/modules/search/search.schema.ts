// The unified search's answer as callers see it (docs/rest-api.md "Unified image search"), stated once: the
// answer objects (REST names, src/platform/wire.ts) and the GraphQL types made from them (the
// imageSearch query is declared in search.operations.ts).
import { z } from 'zod';
import { answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count } from '../../platform/wire.js';
import type { RankedImage } from './ranking.js';
import type { SearchAnswer } from './search.service.js';

const image = answerFrom(
  z
    .object({
      url: z.string().describe("the service's own signed link (library, community, wiki: works without a key), or the stock library's image URL"),
      title: z.string(),
      source: z.string().describe('my_private_library, my_public_atlas, global_atlas, or a stock library: openverse, unsplash, pexels, pixabay'),
      quality_score: z.number().describe('higher ranks first: the tier top (100, 75, 50, 25) - 24 x the position in the tier / limit'),
      is_private: z.literal(true).optional().describe('present (true) on private-library items'),
      is_verified: z.literal(true).optional().describe('present (true) on verified items: wiki photos, AI-verified community items'),
      page_url: z.string().optional().describe("stock images: the image's page on its library"),
      attribution: z.string().optional().describe('stock images: the credit line the library asks for'),
    })
    .meta({ id: 'SearchResultImage', description: 'Spec "Search result image"' }),
  {},
  'SearchImage',
  'SearchImageFields',
);
answerObject<RankedImage>('SearchImage', image, {
  fields: () => ({
    is_private: { type: 'Boolean', description: 'true on private-library items, else null' },
    is_verified: { type: 'Boolean', description: 'true on verified items (wiki photos, AI-verified community items), else null' },
  }),
  // GraphQL only: REST leaves the sizes out.
  more: (t) => ({
    width: t.int({ nullable: true, resolve: (i) => i.width }),
    height: t.int({ nullable: true, resolve: (i) => i.height }),
  }),
});

const sourceStatistics = z.object({
  sources_active: z.array(z.string()).describe('sources searched that answered'),
  sources_failed: z.array(z.string()).describe('stock libraries that failed or missed the deadline'),
  total_found: count.describe('distinct images found before the page was cut to limit'),
});
answerObject<SearchAnswer>('SearchSourceStatistics', sourceStatistics);

export const searchAnswer = z.object({
  query: z.string().describe('the words searched: the query, or the keywords taken from the image'),
  is_authenticated_search: z.boolean(),
  images: z.array(image),
  source_statistics: sourceStatistics,
});
export const ImageSearchResultRef = answerObject<SearchAnswer>('ImageSearchResult', searchAnswer, {
  fields: () => ({
    is_authenticated_search: { description: 'A key was sent: the private tiers were searched' },
    source_statistics: { resolve: (a) => a },
  }),
});
