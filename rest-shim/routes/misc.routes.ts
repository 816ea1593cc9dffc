// Spec "Live editor" and GET /api/search-links.
import { defineRoute } from '../route.js';
import { optionalBool, optionalInt, optionalString } from '../input.js';
import { unwrap } from '../result.js';
import { FeaturedImageDocument, LiveEditorStatusDocument, SearchLinksDocument } from '../generated/operations.js';

export const miscRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/live-editor/status',
    auth: 'key',
    scope: 'any',
    summary: 'Whether the live editor is available, and its planned features',
    operation: LiveEditorStatusDocument,
    shape: (data) => ({ ...data.liveEditorStatus }),
  }),
  defineRoute({
    method: 'GET',
    path: '/api/search-links',
    auth: 'key',
    scope: 'search',
    summary: 'Deep links to web and reverse image search engines (query: text or image URL)',
    operation: SearchLinksDocument,
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
