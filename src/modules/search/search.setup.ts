// Builds the unified search and the stock libraries (its fourth tier) and adds them to the service
// registry's type.
import type { Services, UploadLimits } from '../../platform/service-registry.js';
import { SearchService } from './search.service.js';
import type { SearchConfig } from './search.settings.js';
import { StockSearchService, stockClientsFromConfig } from './stock/stock-search.service.js';

declare module '../../platform/service-registry.js' {
  interface Services {
    /** The unified ranked image search (POST /api/images/search). */
    search: SearchService;
    /** The external stock libraries on their own (the search's fourth tier; ReplaceFlow's clean copies). */
    stockSearch: StockSearchService;
  }
}

export type SearchSetup = Pick<Services, 'db' | 'atlas' | 'imageObjects' | 'fetcher' | 'signer' | 'logger' | 'vision' | 'community' | 'wiki'> & {
  settings: SearchConfig;
  limits: UploadLimits;
};

export function setupSearch({ vision, community, wiki, settings, ...deps }: SearchSetup): Pick<Services, 'search' | 'stockSearch'> {
  const stockSearch = new StockSearchService(stockClientsFromConfig(settings), { timeoutMs: settings.stockTimeoutMs, logger: deps.logger });
  const search = new SearchService({
    ...deps,
    stock: stockSearch,
    links: { community: (item) => community.fileUrl(item, 'public'), wikiPhoto: (id, storageKey) => wiki.fileUrl('photos', id, storageKey) },
    // Paid like any analysis: the caller's account for external providers; without a key, local only.
    analyze: (image, payer) => vision.analyze({ image, task: 'all', payer }),
  });
  return { search, stockSearch };
}
