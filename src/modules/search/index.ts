// Public surface of the search module: the unified search, and the stock libraries on their own
// (ReplaceFlow looks for clean copies there). Other modules import only this.
export { SearchService, type SearchAnswer, type SearchDeps } from './search.service.js';
export { StockSearchService, stockClientsFromConfig, STOCK_MAX_LIMIT, type StockSearchOptions, type StockSearchResult } from './stock/stock-search.service.js';
export { STOCK_SOURCES, type StockClient, type StockImage, type StockOrientation, type StockSource } from './stock/stock.types.js';
export { searchRequestSchema, SEARCH_MAX_LIMIT, SEARCH_DEFAULT_LIMIT, SEARCH_ORIENTATIONS } from './search.input.js';
export type { RankedImage, SearchSource } from './ranking.js';
export { setupSearch } from './search.setup.js';
