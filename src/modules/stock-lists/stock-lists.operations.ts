// The stock-list operations, each declared once (docs/architecture.md): create and delete a list,
// add and remove items, save a list into the library, share, join, one list with its members (all
// media scope). GraphQL fields and REST rows are made from these; the rules live in
// stock-lists.service.ts. The lists and one list with its items are connection lists over relay
// connections (their fields are in stock-lists.schema.ts). Shapes are ours (README "Media: stock lists").
import { z } from 'zod';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { defineConnectionList } from '../../graphql/connection-list.js';
import { deletedObject, withDeleted } from '../../graphql/common-answers.js';
import { AddStockItemsRef, RemovedStockItemRef, stockItem, StockItemInput, stockList, stockListAnswer, StockListJoinRef, StockListRef, StockListShareRef, StockSaveRef } from './stock-lists.schema.js';
import { addItemsSchema, joinSchema, listSchema, shareSchema, STOCK_ITEMS_PAGE, STOCK_LISTS_PAGE } from './stock-lists.input.js';

// In the order the README lists the rows.
export const stockListOperations = defineOperations({
  listStockLists: defineConnectionList({
    name: 'ListStockLists',
    key: SCOPE.media,
    connection: 'viewer.stockLists',
    page: STOCK_LISTS_PAGE,
    items: 'lists',
    node: stockList,
    rest: { route: 'GET /api/media/stock/lists', summary: 'Stock lists the caller owns or joined, newest first (limit default 100, max 200; cursor)' },
  }),
  createStockList: defineMutation({
    key: SCOPE.media,
    input: listSchema,
    inputType: 'CreateStockListInput',
    output: StockListRef,
    run: ({ ctx, actor, input }) => ctx.services.stockLists.create(actor, input),
    rest: {
      route: 'POST /api/media/stock/lists',
      summary: 'Create a stock list: name (required), description',
      response: stockListAnswer,
      successStatus: 201,
    },
  }),
  getStockList: defineConnectionList({
    name: 'GetStockList',
    key: SCOPE.media,
    connection: 'stockList.items',
    ids: { id: 'stock list' },
    page: STOCK_ITEMS_PAGE,
    parent: stockListAnswer,
    items: 'items',
    node: stockItem,
    total: false,
    rest: { route: 'GET /api/media/stock/lists/:id', summary: 'A stock list (owner or member) with its items, oldest first (limit default 100, max 500; cursor)' },
  }),
  deleteStockList: defineMutation({
    description: 'Deletes a stock list with its items and memberships (owner only)',
    key: SCOPE.media,
    ids: { id: 'stock list' },
    output: deletedObject('DeletedStockList', 'list_id'),
    run: ({ ctx, actor, id }) => ctx.services.stockLists.delete(actor, id),
    rest: {
      route: 'DELETE /api/media/stock/lists/:id',
      summary: 'Delete a stock list with its items and memberships (owner only; saved media stay)',
      shape: withDeleted,
      errors: { 403: 'a member, not the owner' },
    },
  }),
  addStockItems: defineMutation({
    description: 'Adds 1 to 100 items (owner or member); URLs already in the list are skipped',
    key: SCOPE.media,
    ids: { listId: 'stock list' },
    input: addItemsSchema,
    args: { items: [StockItemInput] },
    optionalArgs: ['items'],
    output: AddStockItemsRef,
    run: ({ ctx, actor, listId, input }) => ctx.services.stockLists.addItems(actor, listId, input),
    rest: {
      route: 'POST /api/media/stock/lists/:id/items',
      params: { id: 'listId' },
      summary: 'Add items (owner or member): items, an array of {url (http/https, required), title, attribution, source, thumbnail_url}; URLs already in the list are skipped',
      errors: { 409: 'the list would hold more than 1000 items' },
      shape: ({ items, ...answer }) => ({ list_id: answer.list_id, added: (items as unknown[]).length, already_in: answer.already_in, item_count: answer.item_count, items }),
    },
  }),
  saveStockList: defineMutation({
    description: "Downloads the list's not-yet-saved items into the caller's library (at most 50 per call); each item succeeds or fails on its own",
    key: SCOPE.media,
    ids: { id: 'stock list' },
    output: StockSaveRef,
    run: ({ ctx, actor, id }) => ctx.services.stockLists.save(actor, id, ctx.services.media),
    rest: {
      route: 'POST /api/media/stock/lists/:id/save',
      summary: "Download the list's not-yet-saved items into the caller's library (at most 50 per call; each item saved, duplicate or failed on its own)",
    },
  }),
  removeStockItem: defineMutation({
    description: 'Removes an item: the owner any item, a member the items it added',
    key: SCOPE.media,
    ids: { id: 'stock item' },
    output: RemovedStockItemRef,
    run: ({ ctx, actor, id }) => ctx.services.stockLists.removeItem(actor, id),
    rest: {
      route: 'DELETE /api/media/stock/items/:id',
      summary: 'Remove an item from its stock list (the owner any item, a member the items it added)',
      shape: withDeleted,
      errors: { 403: 'a member removing an item another account added' },
    },
  }),
  shareStockList: defineMutation({
    description: "The list's join token (owner only), made on first use; rotate replaces it (members stay)",
    key: SCOPE.media,
    ids: { id: 'stock list' },
    input: shareSchema,
    output: StockListShareRef,
    run: ({ ctx, actor, id, input }) => ctx.services.stockLists.share(actor, id, input),
    rest: {
      route: 'POST /api/community/lists/:id/share',
      summary: 'Share a stock list (owner only): its join token, made on first use; rotate: true replaces it (members stay)',
      errors: { 403: 'a member, not the owner' },
    },
  }),
  joinStockList: defineMutation({
    description: 'Joins a shared stock list as a member (joining again is fine; the owner cannot join)',
    key: SCOPE.media,
    input: joinSchema,
    output: StockListJoinRef,
    run: ({ ctx, actor, input }) => ctx.services.stockLists.join(actor, input.token),
    rest: {
      route: 'POST /api/community/lists/join/:token',
      pathFields: ['token'],
      secretParams: ['token'],
      paramDescriptions: { token: "the list's share_token" },
      summary: 'Join a shared stock list as a member (read, add items, save into your library); joining again is fine; the owner cannot join',
      errors: { 409: 'the owner cannot join its own list' },
    },
  }),
  // One list; its REST row answers the members (the list with its items is getStockList).
  stockList: defineQuery({
    description: 'A stock list the caller owns or joined, by its integer id',
    key: SCOPE.media,
    ids: { id: 'stock list' },
    plain: true,
    prisma: true,
    output: StockListRef,
    run: ({ ctx, actor, id, query }) => ctx.services.stockLists.find(actor, id, query),
    rest: {
      route: 'GET /api/community/lists/:id/members',
      operationName: 'StockListMembers',
      summary: "A stock list's owner and members (owner and members may look)",
      response: answerFrom(z.object({ list_id: id, owner: z.string(), members: z.array(z.object({ handle: z.string(), joined_at: timestamp })), total: count }), { list_id: 'databaseId', total: null }),
      shape: (answer) => ({ ...answer, total: (answer.members as unknown[]).length }),
    },
  }),
});
