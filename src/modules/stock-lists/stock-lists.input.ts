// What a stock-list input may be: the only statement of it (the service parses with these; the REST
// route table and the OpenAPI document take them from here).
import { z } from 'zod';

/** Page sizes of the stock-list connections (GraphQL) and their REST pages (limit). */
export const STOCK_LISTS_PAGE = { defaultSize: 100, maxSize: 200 } as const;
export const STOCK_ITEMS_PAGE = { defaultSize: 100, maxSize: 500 } as const;

export const listSchema = z.object({
  name: z.string({ error: 'name is required: the list name' }).trim().min(1, 'name is required: the list name').max(200, 'expected at most 200 characters'),
  description: z.string({ error: 'expected a string' }).trim().max(2000, 'expected at most 2000 characters').optional(),
});

const httpUrl = (what: string) =>
  z
    .string({ error: `expected an http(s) URL (${what})` })
    .trim()
    .max(2048, 'expected at most 2048 characters')
    .refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    }, `expected an http(s) URL (${what})`);

const optionalText = (max: number) => z.string({ error: 'expected a string' }).trim().max(max, `expected at most ${max} characters`).optional();

const ITEM_FIELDS = 'url, title, attribution, source, thumbnail_url';
export const itemSchema = z.object(
  {
    url: httpUrl('the image to download'),
    title: optionalText(255),
    attribution: optionalText(500),
    source: optionalText(100).describe('provider name (unsplash, pexels ...)'),
    thumbnail_url: httpUrl('a preview image').optional(),
  },
  { error: `expected an object with ${ITEM_FIELDS}` },
);

const itemsMessage = `items is required: an array of {${ITEM_FIELDS}}`;
export const addItemsSchema = z.object({
  items: z
    .array(itemSchema, { error: (issue) => (issue.input === undefined || issue.input === null ? itemsMessage : `expected an array of {${ITEM_FIELDS}}`) })
    .min(1, itemsMessage)
    .max(100, 'expected at most 100 items per request'),
});

export const shareSchema = z.object({
  rotate: z.boolean({ error: 'expected true or false (or 1 or 0)' }).default(false).describe('replace the token (members stay)'),
});

/** Joining a shared list: its share token (a malformed one is unknown, a 404: the service's rule). */
export const joinSchema = z.object({ token: z.string() });
