// Search operations declared once (docs/architecture.md): the unified ranked image search (spec
// "Search"). No key needed for the public tiers (spec "Authentication" 4); a key that is sent must be
// valid and, for a sub-key, carry the search scope (the service asks it), and adds the caller's
// private tiers. The answer is stated in search.schema.ts.
import { z } from 'zod';
import { defineOperations, defineQuery } from '../../graphql/operation.js';
import { answerFrom } from '../../platform/wire.js';
import { OrientationEnum } from '../wiki/wiki.schema.js';
import { ImageSearchResultRef, searchAnswer } from './search.schema.js';
import { searchRequestSchema } from './search.input.js';

export const searchOperations = defineOperations({
  imageSearch: defineQuery({
    description:
      'The unified ranked image search (spec "Search"): the caller\'s library, their public contributions, the global verified atlas, then external stock libraries. No key needed; with one (search scope) the private tiers are added.',
    key: null,
    input: searchRequestSchema,
    inputType: 'ImageSearchInput',
    args: { orientation: OrientationEnum },
    output: ImageSearchResultRef,
    run: ({ ctx, input }) => ctx.services.search.search(ctx.actor, input, ctx.baseUrl),
    rest: {
      route: 'POST /api/images/search',
      summary:
        'Unified ranked image search: the caller\'s library (with a key), their public contributions (with a key), the global verified atlas, then stock libraries. query (text), image_data (base64) or image_url (reverse search); limit (20, max 100); orientation (all, landscape, portrait, square)',
      description:
        'No key needed: without one only the public tiers are searched and is_authenticated_search is false. A key that is sent must be valid (401) and a sub-key must carry the search scope (403). ' +
        'image_data and image_url find near copies by perceptual hash and, when no query is sent, keywords from the image (vision labels and text: one analysis, paid by the caller\'s account for external providers, free and local without a key). ' +
        'image_url is fetched through the SSRF-safe fetcher (private addresses refused, 400). The stock libraries fill the places the service\'s own tiers leave, under one deadline (SEARCH_STOCK_TIMEOUT_MS).',
      response: answerFrom(z.object({ data: searchAnswer }), { data: '' }),
      errors: {
        401: 'a key was sent and it is invalid, revoked or expired',
        403: 'a sub-key without the search scope, or an inactive or suspended account',
        413: 'the JSON body is larger than BODY_LIMIT, or the image larger than UPLOAD_MAX_BYTES',
        429: 'with a key: quota exceeded',
      },
    },
  }),
});
