// Spec "Media library": stock lists and their items, saving into the library; spec "Community":
// sharing a list, joining it, its members. Shapes are ours (README "Media: stock lists"). Creating,
// deleting, saving, removing an item and sharing are declared in
// src/modules/stock-lists/stock-lists.operations.ts; the rows here do not fit a declaration: the
// connections (relay's first/after), adding items (a list of input objects in GraphQL's names),
// joining (a secret token in the path, kept out of logs by secretParams, which derived rows lack)
// and the members (the stockList query, which has no error union).
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { restRoutesOf } from '../derive.js';
import { pathId } from '../input.js';
import { unwrap } from '../result.js';
import {
  AddStockItemsDocument,
  GetStockListDocument,
  JoinStockListDocument,
  ListStockListsDocument,
  StockListMembersDocument,
  type StockItemFieldsFragment,
  type StockListFieldsFragment,
} from '../generated/operations.js';
import { pageVariables } from './collections.routes.js';
import { count, id, idParams, nextCursor, timestamp } from '../schemas.js';
import { stockListFields as listFields, stockListOperations } from '../../src/modules/stock-lists/stock-lists.operations.js';
import { addItemsSchema, STOCK_ITEMS_PAGE, STOCK_LISTS_PAGE } from '../../src/modules/stock-lists/stock-lists.input.js';
import { cursorPageSchema } from '../../src/modules/collections/collections.input.js';

const stockList = z.object({ id, ...listFields }).meta({ id: 'StockList', description: 'A stock list the caller owns or joined' });
const stockItem = z
  .object({
    id,
    url: z.string(),
    title: z.string().nullable(),
    attribution: z.string().nullable(),
    source: z.string().nullable(),
    thumbnail_url: z.string().nullable(),
    added_by: z.string().nullable().describe('handle of the account that added it'),
    saved_media_id: id.nullable().describe("the caller's saved copy in its library; null until saved"),
    created_at: timestamp,
  })
  .meta({ id: 'StockItem', description: 'An item of a stock list' });
const listParams = idParams('stock list');
const listsPage = cursorPageSchema(STOCK_LISTS_PAGE);
const itemsPage = cursorPageSchema(STOCK_ITEMS_PAGE);

/** A stock list as listed and answered. share_token and join_path are shown to the owner only. */
export function stockListJson(l: StockListFieldsFragment): z.input<typeof stockList> {
  return {
    id: l.databaseId,
    name: l.name,
    description: l.description,
    owner: l.owner,
    role: l.role,
    item_count: l.itemCount,
    member_count: l.memberCount,
    shared: l.shared,
    share_token: l.shareToken,
    join_path: l.joinPath,
    created_at: l.createdAt,
    updated_at: l.updatedAt,
  };
}

/** saved_media_id is the caller's own saved copy (null until the caller saved it). */
export function stockItemJson(i: StockItemFieldsFragment): z.input<typeof stockItem> {
  return {
    id: i.databaseId,
    url: i.url,
    title: i.title,
    attribution: i.attribution,
    source: i.source,
    thumbnail_url: i.thumbnailUrl,
    added_by: i.addedBy,
    saved_media_id: i.savedMediaId,
    created_at: i.createdAt,
  };
}

const { createStockList, deleteStockList, saveStockList, removeStockItem, shareStockList } = stockListOperations;

// In the order the README lists them: declared rows between the hand-written ones.
export const stockListsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/media/stock/lists',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Stock lists the caller owns or joined, newest first (limit default 100, max 200; cursor)',
    operation: ListStockListsDocument,
    request: { query: listsPage },
    response: z.object({ lists: z.array(stockList), total: count, next_cursor: nextCursor }),
    variables: ({ query }) => pageVariables(query),
    shape: (data) => {
      const connection = data.viewer.stockLists;
      return {
        lists: connection.edges.map((edge) => stockListJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  ...restRoutesOf({ createStockList }),
  defineRoute({
    method: 'GET',
    path: '/api/media/stock/lists/:id',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A stock list (owner or member) with its items, oldest first (limit default 100, max 500; cursor)',
    operation: GetStockListDocument,
    request: { params: listParams, query: itemsPage },
    response: z.object({ list_id: id, ...listFields, items: z.array(stockItem), next_cursor: nextCursor }),
    variables: ({ params, query }) => ({ id: pathId(params, 'stock list'), ...pageVariables(query) }),
    shape: (data) => {
      const { items, ...list } = data.stockList;
      const { id, ...rest } = stockListJson(list);
      return {
        list_id: id,
        ...rest,
        items: items.edges.map(({ node }) => stockItemJson(node)),
        next_cursor: items.pageInfo.hasNextPage ? items.pageInfo.endCursor : null,
      };
    },
  }),
  ...restRoutesOf({ deleteStockList }),
  defineRoute({
    method: 'POST',
    path: '/api/media/stock/lists/:id/items',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Add items (owner or member): items, an array of {url (http/https, required), title, attribution, source, thumbnail_url}; URLs already in the list are skipped',
    operation: AddStockItemsDocument,
    request: { params: listParams, body: addItemsSchema },
    response: z.object({ list_id: id, added: count, already_in: count, item_count: count, items: z.array(stockItem).describe('the items added') }),
    errors: { 409: 'the list would hold more than 1000 items' },
    variables: ({ params, body }) => ({
      listId: pathId(params, 'stock list'),
      items: body.items.map((item) => ({ url: item.url, title: item.title, attribution: item.attribution, source: item.source, thumbnailUrl: item.thumbnail_url })),
    }),
    shape: (data) => {
      const result = unwrap(data.addStockItems);
      return {
        list_id: result.list.databaseId,
        added: result.added.length,
        already_in: result.alreadyIn,
        item_count: result.list.itemCount,
        items: result.added.map(stockItemJson),
      };
    },
  }),
  ...restRoutesOf({ saveStockList, removeStockItem, shareStockList }),
  defineRoute({
    method: 'POST',
    path: '/api/community/lists/join/:token',
    secretParams: ['token'],
    auth: 'key',
    key: SCOPE.media,
    summary: 'Join a shared stock list as a member (read, add items, save into your library); joining again is fine; the owner cannot join',
    operation: JoinStockListDocument,
    request: { params: z.object({ token: z.string().describe("the list's share_token") }) },
    response: z.object({ list_id: id, name: z.string(), owner: z.string(), role: listFields.role, joined_at: timestamp, already_member: z.boolean() }),
    errors: { 409: 'the owner cannot join its own list' },
    // The path always holds :token; a malformed one is a 404 like an unknown one (the service's rule).
    variables: ({ params }) => ({ token: params.token! }),
    shape: (data) => {
      const join = unwrap(data.joinStockList);
      return {
        list_id: join.list.databaseId,
        name: join.list.name,
        owner: join.list.owner,
        role: join.list.role,
        joined_at: join.joinedAt,
        already_member: join.alreadyMember,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/community/lists/:id/members',
    auth: 'key',
    key: SCOPE.media,
    summary: "A stock list's owner and members (owner and members may look)",
    operation: StockListMembersDocument,
    request: { params: listParams },
    response: z.object({ list_id: id, owner: z.string(), members: z.array(z.object({ handle: z.string(), joined_at: timestamp })), total: count }),
    variables: ({ params }) => ({ id: pathId(params, 'stock list') }),
    shape: (data) => ({
      list_id: data.stockList.databaseId,
      owner: data.stockList.owner,
      members: data.stockList.members.map((m) => ({ handle: m.handle, joined_at: m.joinedAt })),
      total: data.stockList.members.length,
    }),
  }),
];
