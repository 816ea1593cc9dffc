// Builds the stock-lists service and adds it to the service registry's type.
import type { Services } from '../../platform/service-registry.js';
import { StockListsService } from './stock-lists.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    stockLists: StockListsService;
  }
}

export function setupStockLists({ db, fetcher, logger, maxBytes }: Pick<Services, 'db' | 'fetcher' | 'logger'> & { maxBytes: number }): Pick<Services, 'stockLists'> {
  return { stockLists: new StockListsService(db, fetcher, logger, maxBytes) };
}
