// Public surface of the search-links module.
export { SEARCH_LINK_KINDS, querySchema, searchLinks, type SearchLink } from './search-links.service.js';
