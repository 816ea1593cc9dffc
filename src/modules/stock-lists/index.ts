// Public surface of the stock-lists module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { StockListsService, MAX_ITEMS_PER_LIST } from './stock-lists.service.js';
export { setupStockLists } from './stock-lists.setup.js';
