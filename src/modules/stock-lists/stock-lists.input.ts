// What a stock-list input may be: the only statement of it (the service parses with these; the REST
// route table and the OpenAPI document take them from here).
import { z } from 'zod';

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

export const itemSchema = z.object({
  url: httpUrl('the image to download'),
  title: optionalText(255),
  attribution: optionalText(500),
  source: optionalText(100).describe('provider name (unsplash, pexels ...)'),
  thumbnail_url: httpUrl('a preview image').optional(),
});

const itemsMessage = 'items is required: an array of {url, title, attribution, source, thumbnail_url}';
export const addItemsSchema = z.object({
  items: z.array(itemSchema, { error: itemsMessage }).min(1, itemsMessage).max(100, 'expected at most 100 items per request'),
});
