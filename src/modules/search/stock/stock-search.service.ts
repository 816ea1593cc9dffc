// The external stock libraries, asked together: every configured library gets the query at once,
// all under one deadline; a library that fails or is late is left out and named in `failed`, the
// others' images are kept. Images are taken from the libraries in turn (the first of each, then the
// second of each ...), so one library cannot fill the page alone, and an image URL comes once.
import type { SearchConfig } from '../search.settings.js';
import type { Logger } from '../../../platform/logger.js';
import { InvalidInput } from '../../../platform/errors.js';
import { OpenverseClient } from './openverse.client.js';
import { PexelsClient } from './pexels.client.js';
import { PixabayClient } from './pixabay.client.js';
import { UnsplashClient } from './unsplash.client.js';
import { StockError } from './stock-http.js';
import { fitsOrientation, STOCK_SOURCES, type StockClient, type StockImage, type StockOrientation, type StockSource } from './stock.types.js';

export interface StockSearchOptions {
  limit: number;
  orientation?: StockOrientation;
  signal?: AbortSignal;
}

export interface StockSearchResult {
  images: StockImage[];
  /** Libraries that answered in time (possibly with nothing). */
  answered: StockSource[];
  /** Libraries that failed or were late. */
  failed: StockSource[];
}

/** Most images one call asks for (Pixabay's page; the others cap lower). */
export const STOCK_MAX_LIMIT = 200;

export function stockClientsFromConfig(search: SearchConfig): StockClient[] {
  const clients: StockClient[] = [];
  if (search.openverse) clients.push(new OpenverseClient(search.openverse));
  if (search.unsplash) clients.push(new UnsplashClient(search.unsplash));
  if (search.pexels) clients.push(new PexelsClient(search.pexels));
  if (search.pixabay) clients.push(new PixabayClient(search.pixabay));
  return clients;
}

export class StockSearchService {
  private readonly clients: StockClient[];

  constructor(
    clients: StockClient[],
    private readonly options: { timeoutMs: number; logger?: Logger },
  ) {
    this.clients = [...clients].sort((a, b) => STOCK_SOURCES.indexOf(a.source) - STOCK_SOURCES.indexOf(b.source));
  }

  /** The configured libraries, in the order their images are taken. */
  get sources(): StockSource[] {
    return this.clients.map((c) => c.source);
  }

  async search(query: string, options: StockSearchOptions): Promise<StockSearchResult> {
    const { limit, orientation = 'all' } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > STOCK_MAX_LIMIT) throw new InvalidInput(`limit: expected an integer from 1 to ${STOCK_MAX_LIMIT}`, 'limit');
    const text = query.trim();
    if (text === '' || this.clients.length === 0) return { images: [], answered: [], failed: [] };
    const deadline = AbortSignal.timeout(this.options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
    const settled = await Promise.all(this.clients.map((client) => this.ask(client, { query: text, limit, orientation, signal })));
    const answered = settled.filter((s) => s.images !== null);
    return {
      images: interleave(answered.map((s) => s.images!.filter((image) => fitsOrientation(orientation, image.width, image.height))), limit),
      answered: answered.map((s) => s.source),
      failed: settled.filter((s) => s.images === null).map((s) => s.source),
    };
  }

  /** One library's images, or null when it failed or the signal fired first (it is not waited for). */
  private async ask(client: StockClient, query: Parameters<StockClient['search']>[0]): Promise<{ source: StockSource; images: StockImage[] | null }> {
    const { signal } = query;
    let stop: () => void = () => {};
    const stopped = new Promise<null>((resolve) => {
      stop = () => resolve(null);
      if (signal.aborted) resolve(null);
      else signal.addEventListener('abort', stop, { once: true });
    });
    try {
      const images = await Promise.race([client.search(query), stopped]);
      if (images === null) this.options.logger?.warn({ source: client.source }, 'stock search: no answer before the deadline');
      return { source: client.source, images };
    } catch (error) {
      if (!(error instanceof StockError)) throw error;
      this.options.logger?.warn({ source: error.source, failure: error.failure, upstreamStatus: error.upstreamStatus }, `stock search: ${error.message}`);
      return { source: client.source, images: null };
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }
}

/** The first of each list, then the second of each ..., each URL once, up to `limit`. */
function interleave(lists: StockImage[][], limit: number): StockImage[] {
  const seen = new Set<string>();
  const out: StockImage[] = [];
  for (let i = 0; out.length < limit && lists.some((l) => i < l.length); i++) {
    for (const list of lists) {
      const image = list[i];
      if (!image || seen.has(image.url)) continue;
      seen.add(image.url);
      out.push(image);
      if (out.length === limit) break;
    }
  }
  return out;
}
