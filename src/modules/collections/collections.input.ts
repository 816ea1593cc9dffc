// What a collection input may be: the only statement of it (the service parses with these; the REST
// route table and the OpenAPI document take them from here). Field names are the REST ones.
import { z } from 'zod';

/** Page sizes of the collection connections (GraphQL) and their REST pages (limit). */
export const COLLECTIONS_PAGE = { defaultSize: 100, maxSize: 200 } as const;
export const COLLECTION_ITEMS_PAGE = { defaultSize: 100, maxSize: 500 } as const;

export { cursorPageSchema } from '../../graphql/connection-cursor.js';

export const collectionSchema = z.object({
  name: z.string({ error: 'name is required: the collection name' }).trim().min(1, 'name is required: the collection name').max(200, 'expected at most 200 characters'),
  description: z.string({ error: 'expected a string' }).trim().max(2000, 'expected at most 2000 characters').optional(),
});

const mediaIdsMessage = 'media_ids is required: an array of media ids';
const mediaIdMessage = 'expected media ids (positive integers)';
export const addItemsSchema = z.object({
  media_ids: z
    .array(z.number({ error: mediaIdMessage }).int(mediaIdMessage).positive(mediaIdMessage), {
      error: (issue) => (issue.input === undefined || issue.input === null ? mediaIdsMessage : 'expected an array of media ids'),
    })
    .min(1, mediaIdsMessage)
    .max(500, 'expected at most 500 ids')
    .describe('Required: 1 to 500 media ids'),
});

export const shareSchema = z.object({
  public: z.boolean({ error: 'expected true or false (or 1 or 0)' }).default(true).describe('false without a password turns sharing off'),
  password: z.string({ error: 'expected a string' }).min(4, 'expected at least 4 characters').max(200, 'expected at most 200 characters').optional().describe('protects the gallery page (4 to 200 characters)'),
});
