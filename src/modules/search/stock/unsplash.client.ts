// Unsplash (api.unsplash.com, `Authorization: Client-ID <access key>`, `Accept-Version: v1`):
// GET /search/photos?query=&per_page=&orientation=&content_filter=high. Answers { total,
// total_pages, results: [{ id, width, height, description, alt_description, urls: { raw, full,
// regular, small, thumb }, links: { html }, user: { name } }] }, at most 30 a page. Unsplash asks
// apps to hotlink its `urls` and credit "Photo by <name> on Unsplash". Orientation: landscape,
// portrait, square → squarish.
import { getStockJson, listIn, objectOf, stockImage, stockUrl, text } from './stock-http.js';
import type { StockClient, StockImage, StockOrientation, StockQuery } from './stock.types.js';

const ORIENTATION: Record<StockOrientation, string | undefined> = { all: undefined, landscape: 'landscape', portrait: 'portrait', square: 'squarish' };
export const UNSPLASH_MAX_PAGE = 30;

export class UnsplashClient implements StockClient {
  readonly source = 'unsplash' as const;

  constructor(private readonly options: { accessKey: string; baseUrl: string }) {}

  async search({ query, limit, orientation, signal }: StockQuery): Promise<StockImage[]> {
    const url = stockUrl(this.options.baseUrl, '/search/photos', {
      query,
      per_page: Math.min(limit, UNSPLASH_MAX_PAGE),
      orientation: ORIENTATION[orientation],
      content_filter: 'high',
    });
    const answer = await getStockJson({ source: this.source, url, signal, headers: { authorization: `Client-ID ${this.options.accessKey}`, 'accept-version': 'v1' } });
    return listIn(this.source, answer, 'results').flatMap((entry) => {
      const photo = objectOf(entry);
      const urls = objectOf(photo.urls);
      const author = text(objectOf(photo.user).name);
      return stockImage(this.source, {
        url: text(urls.regular) ? urls.regular : urls.full,
        title: text(photo.description) ?? photo.alt_description,
        width: photo.width,
        height: photo.height,
        pageUrl: objectOf(photo.links).html,
        attribution: author ? `Photo by ${author} on Unsplash` : undefined,
      });
    });
  }
}
