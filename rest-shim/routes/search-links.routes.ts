// GET /api/search-links (src/modules/search-links/): deep links into web and reverse image search.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { unwrap } from '../result.js';
import { SearchLinksDocument } from '../generated/operations.js';
import { querySchema as searchLinksQuery, SEARCH_LINK_KINDS } from '../../src/modules/search-links/search-links.service.js';

export const searchLinksRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/search-links',
    auth: 'key',
    key: SCOPE.search,
    summary: 'Deep links to web and reverse image search engines (query: text or image URL)',
    operation: SearchLinksDocument,
    request: { query: searchLinksQuery.extend({ query: searchLinksQuery.shape.query.describe('text, or an image URL (adds reverse image search links)') }) },
    response: z.object({ query: z.string(), links: z.array(z.object({ name: z.string(), kind: z.enum(SEARCH_LINK_KINDS), url: z.string() })) }),
    variables: ({ query }) => ({ query: query.query }),
    shape: (data) => {
      const result = unwrap(data.searchLinks);
      return { query: result.query, links: result.links.map((l) => ({ name: l.name, kind: l.kind, url: l.url })) };
    },
  }),
];
