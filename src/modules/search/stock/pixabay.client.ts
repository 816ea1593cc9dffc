// Pixabay (pixabay.com/api, the key as the `key` query parameter): GET /?key=&q=&image_type=photo
// &orientation=&per_page=&safesearch=true. Answers { total, totalHits, hits: [{ id, pageURL, tags,
// webformatURL, webformatWidth, webformatHeight, largeImageURL, imageWidth, imageHeight, user }] };
// per_page is 3 to 200 and q at most 100 characters. Orientation: landscape → horizontal,
// portrait → vertical; Pixabay has no square, so square asks for all and keeps the square ones.
import { getStockJson, listIn, objectOf, stockImage, stockUrl, text } from './stock-http.js';
import type { StockClient, StockImage, StockOrientation, StockQuery } from './stock.types.js';

const ORIENTATION: Record<StockOrientation, string> = { all: 'all', landscape: 'horizontal', portrait: 'vertical', square: 'all' };
export const PIXABAY_MAX_PAGE = 200;
const PIXABAY_MIN_PAGE = 3;
const PIXABAY_MAX_QUERY = 100;

export class PixabayClient implements StockClient {
  readonly source = 'pixabay' as const;

  constructor(private readonly options: { apiKey: string; baseUrl: string }) {}

  async search({ query, limit, orientation, signal }: StockQuery): Promise<StockImage[]> {
    // Square is filtered here from a page of all orientations: ask for more than needed.
    const wanted = orientation === 'square' ? limit * 4 : limit;
    const url = stockUrl(this.options.baseUrl, '/', {
      key: this.options.apiKey,
      q: [...query].slice(0, PIXABAY_MAX_QUERY).join(''),
      image_type: 'photo',
      orientation: ORIENTATION[orientation],
      per_page: Math.min(PIXABAY_MAX_PAGE, Math.max(PIXABAY_MIN_PAGE, wanted)),
      safesearch: 'true',
    });
    const answer = await getStockJson({ source: this.source, url, signal });
    return listIn(this.source, answer, 'hits').flatMap((entry) => {
      const hit = objectOf(entry);
      const user = text(hit.user);
      return stockImage(this.source, {
        url: text(hit.largeImageURL) ? hit.largeImageURL : hit.webformatURL,
        // Pixabay has no titles: its tags ("bread, ham, egg") describe the photo.
        title: hit.tags,
        width: hit.imageWidth,
        height: hit.imageHeight,
        pageUrl: hit.pageURL,
        attribution: user ? `Image by ${user} on Pixabay` : undefined,
      });
    });
  }
}
