// GraphQL types of search links; the searchLinks query is declared in search-links.operations.ts.
import { builder } from '../../graphql/builder.js';
import type { searchLinks, SearchLink } from './search-links.service.js';
import { SEARCH_LINK_KINDS } from './search-links.service.js';

const SearchLinkKind = builder.enumType('SearchLinkKind', { values: SEARCH_LINK_KINDS });

const SearchLinkRef = builder.objectRef<SearchLink>('SearchLink').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    kind: t.field({ type: SearchLinkKind, resolve: (l) => l.kind }),
    url: t.exposeString('url'),
  }),
});

export const SearchLinksRef = builder.objectRef<ReturnType<typeof searchLinks>>('SearchLinks').implement({
  fields: (t) => ({
    query: t.exposeString('query'),
    links: t.field({ type: [SearchLinkRef], resolve: (r) => r.links }),
  }),
});
