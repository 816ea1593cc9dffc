// Pexels (api.pexels.com/v1, `Authorization: <API key>`): GET /search?query=&per_page=&orientation=.
// Answers { total_results, page, per_page, photos: [{ id, width, height, url (its page),
// photographer, alt, src: { original, large2x, large, medium, small, portrait, landscape, tiny } }],
// next_page }, at most 80 a page. Credit: "Photo by <photographer> on Pexels". Orientation:
// landscape, portrait, square.
import { getStockJson, listIn, objectOf, stockImage, stockUrl, text } from './stock-http.js';
import type { StockClient, StockImage, StockQuery } from './stock.types.js';

export const PEXELS_MAX_PAGE = 80;

export class PexelsClient implements StockClient {
  readonly source = 'pexels' as const;

  constructor(private readonly options: { apiKey: string; baseUrl: string }) {}

  async search({ query, limit, orientation, signal }: StockQuery): Promise<StockImage[]> {
    const url = stockUrl(this.options.baseUrl, '/search', { query, per_page: Math.min(limit, PEXELS_MAX_PAGE), orientation: orientation === 'all' ? undefined : orientation });
    const answer = await getStockJson({ source: this.source, url, signal, headers: { authorization: this.options.apiKey } });
    return listIn(this.source, answer, 'photos').flatMap((entry) => {
      const photo = objectOf(entry);
      const src = objectOf(photo.src);
      const photographer = text(photo.photographer);
      return stockImage(this.source, {
        url: text(src.large) ? src.large : src.original,
        title: photo.alt,
        width: photo.width,
        height: photo.height,
        pageUrl: photo.url,
        attribution: photographer ? `Photo by ${photographer} on Pexels` : undefined,
      });
    });
  }
}
