// Pages of connections over Prisma models (Pothos's prismaConnection): what GraphQL's `first` and
// `after` and the REST shim's `limit` and `cursor` accept, stated once. A cursor is judged with
// Pothos's own parser, so a made-up one is a 400 naming the field before any query runs.
import { parsePrismaCursor } from '@pothos/plugin-prisma';
import { z } from 'zod';

export const CURSOR_EXPECTED = 'expected a cursor this list gave out (next_cursor, or the endCursor of a page)';

export function isConnectionCursor(value: string): boolean {
  try {
    parsePrismaCursor(value);
    return true;
  } catch {
    return false;
  }
}

export const connectionCursor = z.string({ error: CURSOR_EXPECTED }).refine(isConnectionCursor, CURSOR_EXPECTED);

/** The page sizes of one connection: its default and its largest page. */
export interface PageSizes {
  defaultSize: number;
  maxSize: number;
}

/**
 * A page of a connection as REST asks for it: `limit` (GraphQL's first, 1 to maxSize) and `cursor`
 * (after: a next_cursor as answered; left out or empty for the first page).
 */
export function cursorPageSchema({ defaultSize, maxSize }: PageSizes) {
  const range = `expected an integer from 1 to ${maxSize}`;
  return z.object({
    limit: z.number({ error: 'expected an integer' }).int('expected an integer').min(1, range).max(maxSize, range).default(defaultSize).describe(`page size (default ${defaultSize}, at most ${maxSize})`),
    cursor: connectionCursor.optional().describe('next_cursor of the previous page'),
  });
}
