// Spec "Search": POST /api/images/search, the unified ranked search. No key needed for the public
// tiers (spec "Authentication" 4); a key that is sent must be valid and, for a sub-key, carry the
// search scope, and adds the caller's private tiers. Shapes: README "Unified image search".
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { unwrap } from '../result.js';
import { ImageSearchDocument, type SearchImageFieldsFragment } from '../generated/operations.js';
import { count } from '../schemas.js';
import { searchRequestSchema } from '../../src/modules/search/index.js';

const image = z
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
  .meta({ id: 'SearchResultImage', description: 'Spec "Search result image"' });

const imageJson = (i: SearchImageFieldsFragment): z.input<typeof image> => ({
  url: i.url,
  title: i.title,
  source: i.source,
  quality_score: i.qualityScore,
  ...(i.isPrivate ? { is_private: true as const } : {}),
  ...(i.isVerified ? { is_verified: true as const } : {}),
  ...(i.pageUrl ? { page_url: i.pageUrl } : {}),
  ...(i.attribution ? { attribution: i.attribution } : {}),
});

export const searchRoutes = [
  defineRoute({
    method: 'POST',
    path: '/api/images/search',
    auth: 'none',
    summary:
      'Unified ranked image search: the caller\'s library (with a key), their public contributions (with a key), the global verified atlas, then stock libraries. query (text), image_data (base64) or image_url (reverse search); limit (20, max 100); orientation (all, landscape, portrait, square)',
    description:
      'No key needed: without one only the public tiers are searched and is_authenticated_search is false. A key that is sent must be valid (401) and a sub-key must carry the search scope (403). ' +
      'image_data and image_url find near copies by perceptual hash and, when no query is sent, keywords from the image (vision labels and text: one analysis, paid by the caller\'s account for external providers, free and local without a key). ' +
      'image_url is fetched through the SSRF-safe fetcher (private addresses refused, 400). The stock libraries fill the places the service\'s own tiers leave, under one deadline (SEARCH_STOCK_TIMEOUT_MS).',
    operation: ImageSearchDocument,
    request: { body: searchRequestSchema },
    response: z.object({
      data: z.object({
        query: z.string().describe('the words searched: the query, or the keywords taken from the image'),
        is_authenticated_search: z.boolean(),
        images: z.array(image),
        source_statistics: z.object({
          sources_active: z.array(z.string()).describe('sources searched that answered'),
          sources_failed: z.array(z.string()).describe('stock libraries that failed or missed the deadline'),
          total_found: count.describe('distinct images found before the page was cut to limit'),
        }),
      }),
    }),
    errors: {
      401: 'a key was sent and it is invalid, revoked or expired',
      403: 'a sub-key without the search scope, or an inactive or suspended account',
      413: 'the JSON body is larger than BODY_LIMIT, or the image larger than UPLOAD_MAX_BYTES',
      429: 'with a key: quota exceeded',
    },
    variables: ({ body }) => ({
      input: { query: body.query, imageData: body.image_data, imageUrl: body.image_url, limit: body.limit, orientation: body.orientation },
    }),
    shape: (data) => {
      const r = unwrap(data.imageSearch);
      return {
        data: {
          query: r.query,
          is_authenticated_search: r.isAuthenticatedSearch,
          images: r.images.map(imageJson),
          source_statistics: { sources_active: r.sourceStatistics.sourcesActive, sources_failed: r.sourceStatistics.sourcesFailed, total_found: r.sourceStatistics.totalFound },
        },
      };
    },
  }),
];
