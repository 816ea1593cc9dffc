// The search-links operation, declared once (docs/architecture.md): GET /api/search-links, deep
// links into web and reverse image search. The rules live in search-links.service.ts.
import { defineOperations, defineQuery } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { SearchLinksRef } from './search-links.schema.js';
import { querySchema, searchLinks } from './search-links.service.js';

export const searchLinksOperations = defineOperations({
  searchLinks: defineQuery({
    description: 'Deep links to web and reverse image search engines for a text or an image URL',
    key: SCOPE.search,
    input: querySchema,
    output: SearchLinksRef,
    run: ({ input }) => searchLinks(input),
    rest: {
      route: 'GET /api/search-links',
      summary: 'Deep links to web and reverse image search engines (query: text or image URL)',
    },
  }),
});
