// Validation of the unified search (spec "Search": POST /api/images/search; GraphQL imageSearch
// passes the same names). At least one of query, image_data and image_url.
import { z } from 'zod';
import { absoluteHttpUrl } from '../../platform/validation.js';

export const SEARCH_ORIENTATIONS = ['all', 'landscape', 'portrait', 'square'] as const;
export type SearchOrientation = (typeof SEARCH_ORIENTATIONS)[number];

export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_MAX_LIMIT = 100;
export const SEARCH_MAX_QUERY = 200;
/** Base64 text of an image as large as UPLOAD_MAX_BYTES allows by default (25 MB); the JSON body limit (BODY_LIMIT) usually stops it first. */
export const SEARCH_MAX_IMAGE_DATA = 36_000_000;

const blankIsNone = (value: string) => (value.trim() === '' ? undefined : value);

export const searchRequestSchema = z
  .object({
    query: z
      .string({ error: 'expected a string' })
      .trim()
      .max(SEARCH_MAX_QUERY, `expected at most ${SEARCH_MAX_QUERY} characters`)
      .transform(blankIsNone)
      .optional()
      .describe('words to find (full text: every word required, `or` between words for either, `-word` to leave out, the last word a prefix)'),
    image_data: z
      .string({ error: 'expected a string' })
      .max(SEARCH_MAX_IMAGE_DATA, `expected at most ${SEARCH_MAX_IMAGE_DATA} characters of base64`)
      .transform(blankIsNone)
      .optional()
      .describe('an image, base64-encoded (optionally a data: URI): its near copies, and keywords from its labels and text'),
    image_url: absoluteHttpUrl('expected a URL')
      .optional()
      .describe('a public image URL, fetched here: reverse image search for its near copies, and its keywords'),
    limit: z
      .number({ error: 'expected an integer' })
      .int('expected an integer')
      .min(1, 'expected at least 1')
      .max(SEARCH_MAX_LIMIT, `expected at most ${SEARCH_MAX_LIMIT}`)
      .default(SEARCH_DEFAULT_LIMIT)
      .describe(`results at most (default ${SEARCH_DEFAULT_LIMIT}, max ${SEARCH_MAX_LIMIT})`),
    orientation: z
      .enum(SEARCH_ORIENTATIONS, { error: `expected one of ${SEARCH_ORIENTATIONS.join(', ')}` })
      .default('all')
      .describe('landscape: wider than 1.05 x the height; portrait: taller; square: within 5%'),
  })
  .superRefine((request, ctx) => {
    if (request.query === undefined && request.image_data === undefined && request.image_url === undefined) {
      ctx.addIssue({ code: 'custom', path: ['query'], message: 'query is required unless image_data or image_url is sent: send query (text), image_data (a base64 image) or image_url (an image URL)' });
    }
    if (request.image_data !== undefined && request.image_url !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['image_url'], message: 'send either image_data or image_url, not both' });
    }
  })
  .describe('at least one of query, image_data and image_url (image_data and image_url not together)');

export type SearchRequest = z.output<typeof searchRequestSchema>;
