// Spec "Live editor" and GET /api/search-links.
import { defineRoute } from '../route.js';
import { optionalString } from '../input.js';
import { unwrap } from '../result.js';
import { LiveEditorStatusDocument, SearchLinksDocument } from '../generated/operations.js';

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
];
