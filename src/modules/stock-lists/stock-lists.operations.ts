// The stock-list changes, each declared once (docs/architecture.md): create and delete a list,
// remove an item, save a list into the library, share a list (all media scope). GraphQL fields and
// REST rows are made from these; the rules live in stock-lists.service.ts. The list, one list, adding
// items, joining and the members stay hand-written (rest-shim/routes/stock-lists.routes.ts).
// Shapes are ours (README "Media: stock lists").
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { DeletedStockListRef, RemovedStockItemRef, StockListRef, StockListShareRef, StockSaveRef } from './stock-lists.schema.js';
import { SAVE_STATUSES, STOCK_LIST_ROLES } from './stock-lists.service.js';
import { listSchema, shareSchema } from './stock-lists.input.js';


/** A stock list's fields as answered, after its id (share_token and join_path: the owner only). */
export const stockListFields = {
  name: z.string(),
  description: z.string().nullable(),
  owner: z.string().describe("the owner's handle"),
  role: z.enum(STOCK_LIST_ROLES),
  item_count: count,
  member_count: count,
  shared: z.boolean(),
  share_token: z.string().nullable().describe('owner only'),
  join_path: z.string().nullable().describe('owner only: POST it to join'),
  created_at: timestamp,
  updated_at: timestamp,
};

/** `deleted: true` is the answer's own, not the result's. */
const deleted = <T extends Record<string, unknown>>(answer: T) => ({ deleted: true as const, ...answer });

export const stockListOperations = {
  createStockList: defineOperation({
    kind: 'mutation',
    name: 'createStockList',
    key: SCOPE.media,
    input: listSchema,
    inputType: 'CreateStockListInput',
    output: StockListRef,
    run: ({ ctx, actor, input }) => ctx.services.stockLists.create(actor, input),
    rest: {
      method: 'POST',
      path: '/api/media/stock/lists',
      summary: 'Create a stock list: name (required), description',
      response: answerFrom(z.object({ list_id: id, ...stockListFields }), { list_id: 'databaseId' }),
      successStatus: 201,
    },
  }),
  deleteStockList: defineOperation({
    kind: 'mutation',
    name: 'deleteStockList',
    description: 'Deletes a stock list with its items and memberships (owner only)',
    key: SCOPE.media,
    ids: { id: 'stock list' },
    output: DeletedStockListRef,
    run: ({ ctx, actor, id }) => ctx.services.stockLists.delete(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/stock/lists/:id',
      summary: 'Delete a stock list with its items and memberships (owner only; saved media stay)',
      response: answerFrom(z.object({ deleted: z.literal(true), list_id: id }), { deleted: null, list_id: 'databaseId' }),
      shape: deleted,
      errors: { 403: 'a member, not the owner' },
    },
  }),
  saveStockList: defineOperation({
    kind: 'mutation',
    name: 'saveStockList',
    description: "Downloads the list's not-yet-saved items into the caller's library (at most 50 per call); each item succeeds or fails on its own",
    key: SCOPE.media,
    ids: { id: 'stock list' },
    output: StockSaveRef,
    run: ({ ctx, actor, id }) => ctx.services.stockLists.save(actor, id, ctx.services.media),
    rest: {
      method: 'POST',
      path: '/api/media/stock/lists/:id/save',
      summary: "Download the list's not-yet-saved items into the caller's library (at most 50 per call; each item saved, duplicate or failed on its own)",
      response: answerFrom(
        z.object({
          list_id: id,
          saved: count,
          duplicates: count,
          failed: count,
          already_saved: count,
          remaining: count.describe('items still to save: call again'),
          results: z.array(
            answerFrom(z.object({ item_id: id, url: z.string(), status: z.enum(SAVE_STATUSES), media_id: id.nullable(), error: z.string().nullable() }), {
              item_id: 'item.databaseId',
              url: 'item.url',
            }),
          ),
        }),
        { list_id: 'list.databaseId' },
      ),
    },
  }),
  removeStockItem: defineOperation({
    kind: 'mutation',
    name: 'removeStockItem',
    description: 'Removes an item: the owner any item, a member the items it added',
    key: SCOPE.media,
    ids: { id: 'stock item' },
    output: RemovedStockItemRef,
    run: ({ ctx, actor, id }) => ctx.services.stockLists.removeItem(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/stock/items/:id',
      summary: 'Remove an item from its stock list (the owner any item, a member the items it added)',
      response: answerFrom(z.object({ deleted: z.literal(true), item_id: id, list_id: id }), { deleted: null, item_id: 'databaseId', list_id: 'listId' }),
      shape: deleted,
      errors: { 403: 'a member removing an item another account added' },
    },
  }),
  shareStockList: defineOperation({
    kind: 'mutation',
    name: 'shareStockList',
    description: "The list's join token (owner only), made on first use; rotate replaces it (members stay)",
    key: SCOPE.media,
    ids: { id: 'stock list' },
    input: shareSchema,
    output: StockListShareRef,
    run: ({ ctx, actor, id, input }) => ctx.services.stockLists.share(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/community/lists/:id/share',
      summary: 'Share a stock list (owner only): its join token, made on first use; rotate: true replaces it (members stay)',
      response: answerFrom(z.object({ share_token: z.string(), join_path: z.string(), list_id: id, name: z.string() }), { list_id: 'list.databaseId', name: 'list.name' }),
      errors: { 403: 'a member, not the owner' },
    },
  }),
};
