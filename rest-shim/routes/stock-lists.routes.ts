// Spec "Media library": stock lists and their items, saving into the library; spec "Community":
// sharing a list, joining it, its members. Shapes are ours (README "Media: stock lists"). Every row
// but two is declared in src/modules/stock-lists/stock-lists.operations.ts; the two here are relay
// connections (first/after, edges), which declarations do not page yet: the lists, and one list with
// its items.
import { z } from 'zod';
import { defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { restRoutesOf } from '../derive.js';
import { pathId } from '../input.js';
import { GetStockListDocument, ListStockListsDocument, type StockItemFieldsFragment, type StockListFieldsFragment } from '../generated/operations.js';
import { pageVariables } from './collections.routes.js';
import { count, id, idParams, nextCursor } from '../schemas.js';
import { stockItem, stockListFields as listFields, stockListOperations } from '../../src/modules/stock-lists/stock-lists.operations.js';
import { STOCK_ITEMS_PAGE, STOCK_LISTS_PAGE } from '../../src/modules/stock-lists/stock-lists.input.js';
import { cursorPageSchema } from '../../src/modules/collections/collections.input.js';

const stockList = z.object({ id, ...listFields }).meta({ id: 'StockList', description: 'A stock list the caller owns or joined' });
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

const { createStockList, ...afterOneList } = stockListOperations;

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
  ...restRoutesOf(afterOneList),
];
