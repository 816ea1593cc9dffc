import { builder } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { searchLinks, type SearchLink } from './search-links.service.js';
import { SEARCH_LINK_KINDS } from './search-links.service.js';

const SearchLinkKind = builder.enumType('SearchLinkKind', { values: SEARCH_LINK_KINDS });

const SearchLinkRef = builder.objectRef<SearchLink>('SearchLink').implement({
  fields: (t) => ({
    name: t.exposeString('name'),
    kind: t.field({ type: SearchLinkKind, resolve: (l) => l.kind }),
    url: t.exposeString('url'),
  }),
});

const SearchLinksRef = builder.objectRef<ReturnType<typeof searchLinks>>('SearchLinks').implement({
  fields: (t) => ({
    query: t.exposeString('query'),
    links: t.field({ type: [SearchLinkRef], resolve: (r) => r.links }),
  }),
});

builder.queryField('searchLinks', (t) =>
  t.field({
    type: SearchLinksRef,
    description: 'Deep links to web and reverse image search engines for a text or an image URL',
    authScopes: authScopesOf(SCOPE.search),
    errors: {},
    args: { query: t.arg.string({ required: true }) },
    resolve: (_root, args) => searchLinks(args),
  }),
);
