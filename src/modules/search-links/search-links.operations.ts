// The search-links operation, declared once (docs/architecture.md): GET /api/search-links, deep
// links into web and reverse image search. The rules live in search-links.service.ts.
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { searchLinksAnswer, SearchLinksRef } from './search-links.schema.js';
import { querySchema, searchLinks } from './search-links.service.js';

export const searchLinksOperations = defineOperations({
  searchLinks: defineOperation({
    kind: 'query',
    description: 'Deep links to web and reverse image search engines for a text or an image URL',
    key: SCOPE.search,
    input: querySchema,
    output: SearchLinksRef,
    run: ({ input }) => searchLinks(input),
    rest: {
      method: 'GET',
      path: '/api/search-links',
      summary: 'Deep links to web and reverse image search engines (query: text or image URL)',
      response: searchLinksAnswer,
    },
  }),
});
