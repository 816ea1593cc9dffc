// What a stock library client is and what it answers: one image in the shape every library maps to.
export const STOCK_SOURCES = ['openverse', 'unsplash', 'pexels', 'pixabay'] as const;
export type StockSource = (typeof STOCK_SOURCES)[number];

export const STOCK_ORIENTATIONS = ['all', 'landscape', 'portrait', 'square'] as const;
export type StockOrientation = (typeof STOCK_ORIENTATIONS)[number];

export interface StockImage {
  /** The image file itself (a size fit to show, not a page). */
  url: string;
  title: string;
  source: StockSource;
  width?: number;
  height?: number;
  /** The image's page on the library (where its licence and author are shown). */
  pageUrl?: string;
  /** Who made it (and the licence, where the library names one), as the library asks to credit it. */
  attribution?: string;
}

export interface StockQuery {
  query: string;
  /** At most this many images (each client caps it at what its API allows in one page). */
  limit: number;
  orientation: StockOrientation;
  /** Aborted at the deadline, or when the caller no longer wants the answer. */
  signal: AbortSignal;
}

export interface StockClient {
  readonly source: StockSource;
  search(query: StockQuery): Promise<StockImage[]>;
}

/**
 * Within 5% counts as square (the atlas's rule too): the check applied after a library's own
 * orientation filter, which some libraries lack (Pixabay has no square) or apply loosely.
 */
export function fitsOrientation(orientation: StockOrientation, width?: number, height?: number): boolean {
  if (orientation === 'all') return true;
  if (!width || !height) return false;
  if (orientation === 'landscape') return width > height * 1.05;
  if (orientation === 'portrait') return height > width * 1.05;
  return width >= height * 0.95 && width <= height * 1.05;
}
