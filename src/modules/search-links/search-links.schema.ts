// Search links as callers see them, stated once: the answer (REST names) and the GraphQL types made
// from it (src/graphql/answer-object.ts); the searchLinks query is declared in search-links.operations.ts.
import { z } from 'zod';
import { answerEnum, answerObject } from '../../graphql/answer-object.js';
import type { searchLinks, SearchLink } from './search-links.service.js';
import { SEARCH_LINK_KINDS } from './search-links.service.js';

answerEnum('SearchLinkKind', { values: SEARCH_LINK_KINDS });

const link = z.object({ name: z.string(), kind: z.enum(SEARCH_LINK_KINDS), url: z.string() });
answerObject<SearchLink>('SearchLink', link);

export const searchLinksAnswer = z.object({ query: z.string(), links: z.array(link) });
export const SearchLinksRef = answerObject<ReturnType<typeof searchLinks>>('SearchLinks', searchLinksAnswer);
