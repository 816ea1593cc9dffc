// Openverse (api.openverse.org, no key needed): GET /v1/images/?q=&page_size=&aspect_ratio=. Answers
// { result_count, page_count, page_size, page, results: [{ id, title, url, foreign_landing_url,
// creator, license, license_version, width, height, attribution, ... }] }. Anonymous callers get at
// most 20 a page. Orientation: landscape → aspect_ratio=wide, portrait → tall, square → square.
import { getStockJson, listIn, objectOf, stockImage, stockUrl, text } from './stock-http.js';
import type { StockClient, StockImage, StockOrientation, StockQuery } from './stock.types.js';

const ASPECT: Record<StockOrientation, string | undefined> = { all: undefined, landscape: 'wide', portrait: 'tall', square: 'square' };
export const OPENVERSE_MAX_PAGE = 20;

export class OpenverseClient implements StockClient {
  readonly source = 'openverse' as const;

  constructor(private readonly options: { baseUrl: string }) {}

  async search({ query, limit, orientation, signal }: StockQuery): Promise<StockImage[]> {
    const url = stockUrl(this.options.baseUrl, '/images/', { q: query, page_size: Math.min(limit, OPENVERSE_MAX_PAGE), aspect_ratio: ASPECT[orientation], mature: 'false' });
    const answer = await getStockJson({ source: this.source, url, signal });
    return listIn(this.source, answer, 'results').flatMap((entry) => {
      const r = objectOf(entry);
      const licence = text(r.license) ? `CC ${String(r.license).toUpperCase()}${text(r.license_version) ? ` ${String(r.license_version)}` : ''}` : undefined;
      const creator = text(r.creator);
      // Openverse composes the credit line itself; without it, creator and licence.
      const attribution = text(r.attribution) ?? ([creator && `by ${creator}`, licence].filter(Boolean).join(', ') || undefined);
      return stockImage(this.source, { url: r.url, title: r.title, width: r.width, height: r.height, pageUrl: r.foreign_landing_url, attribution });
    });
  }
}
