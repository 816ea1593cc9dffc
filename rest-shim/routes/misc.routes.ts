// Spec "Live editor" and GET /api/search-links.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { optionalBool, optionalInt, optionalString } from '../input.js';
import { unwrap } from '../result.js';
import { FeaturedImageDocument, LiveEditorStatusDocument, SearchLinksDocument } from '../generated/operations.js';
import { querySchema as searchLinksQuery } from '../../src/modules/search-links/search-links.service.js';
import { inputSchema as featuredInput } from '../../src/modules/featured/featured.service.js';
import { SEARCH_LINK_KINDS } from '../../src/modules/search-links/search-links.service.js';

const FEATURED_SOURCES = ['og_meta', 'twitter_meta', 'json_ld', 'link_image_src', 'next_data', 'img_tag', 'srcset', 'regex'] as const;
const score = z.int().min(0).max(100);

export const miscRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/live-editor/status',
    auth: 'key',
    scope: 'any',
    summary: 'Whether the live editor is available, and its planned features',
    operation: LiveEditorStatusDocument,
    response: z.object({ available: z.boolean(), message: z.string(), features: z.array(z.string()) }),
    shape: (data) => ({ ...data.liveEditorStatus }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/search-links',
    auth: 'key',
    scope: 'search',
    summary: 'Deep links to web and reverse image search engines (query: text or image URL)',
    operation: SearchLinksDocument,
    request: { query: z.object({ query: searchLinksQuery.shape.query.describe('text, or an image URL (adds reverse image search links)') }) },
    response: z.object({ query: z.string(), links: z.array(z.object({ name: z.string(), kind: z.enum(SEARCH_LINK_KINDS), url: z.string() })) }),
    // An absent query still reaches the service, whose message says what is expected.
    variables: ({ query }) => ({ query: optionalString(query, 'query') ?? '' }),
    shape: (data) => {
      const result = unwrap(data.searchLinks);
      return { query: result.query, links: result.links.map((l) => ({ name: l.name, kind: l.kind, url: l.url })) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/featured-image',
    auth: 'key',
    scope: 'scrape',
    summary: "A page's featured image with a score; all=true ranks every candidate; min_score drops weaker ones",
    operation: FeaturedImageDocument,
    request: {
      query: featuredInput.extend({
        url: featuredInput.shape.url.describe('the page: an absolute http or https URL'),
        all: featuredInput.shape.all.describe('rank every candidate (true/false/1/0)'),
        min_score: featuredInput.shape.min_score.describe('drop candidates scoring less'),
      }),
    },
    response: z.object({
      url: z.string().nullable().describe('the featured image; null when the page has none'),
      score: score.nullable(),
      source: z.enum(FEATURED_SOURCES).nullable(),
      page: z.string().describe('the page read, after redirects'),
      all: z.array(z.object({ url: z.string(), score, source: z.enum(FEATURED_SOURCES) })).optional().describe('with all=true: every candidate, best first'),
    }),
    errors: { 400: 'a missing or malformed url, or a page that answers an error or is not HTML' },
    variables: ({ query }) => ({ url: optionalString(query, 'url') ?? '', all: optionalBool(query, 'all'), minScore: optionalInt(query, 'min_score') }),
    shape: (data) => {
      const result = unwrap(data.featuredImage);
      return {
        url: result.url,
        score: result.score,
        source: result.source,
        page: result.page,
        ...(result.all ? { all: result.all.map((c) => ({ url: c.url, score: c.score, source: c.source })) } : {}),
      };
    },
  }),
];
