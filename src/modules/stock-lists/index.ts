// Public surface of the stock-lists module: what other modules and the composition root use of it (a lint rule keeps modules to it).
export { StockListsService } from './stock-lists.service.js';
