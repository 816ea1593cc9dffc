// Spec "Media library": stock lists and their items, saving into the library; spec "Community":
// sharing a list, joining it, its members. Shapes are ours (README "Media: stock lists").
import { defineRoute } from '../route.js';
import { optionalBool, requiredString, optionalString, type Source } from '../input.js';
import { unwrap } from '../result.js';
import {
  AddStockItemsDocument,
  CreateStockListDocument,
  DeleteStockListDocument,
  GetStockListDocument,
  JoinStockListDocument,
  ListStockListsDocument,
  RemoveStockItemDocument,
  SaveStockListDocument,
  ShareStockListDocument,
  StockListMembersDocument,
  type StockItemFieldsFragment,
  type StockItemInput,
  type StockListFieldsFragment,
} from '../generated/operations.js';
import { InvalidInput } from '../../src/platform/errors.js';
import { idParam, page } from './collections.routes.js';

const ITEM_FIELDS = ['url', 'title', 'attribution', 'source', 'thumbnail_url'] as const;

/**
 * `items`: an array of objects whose fields are strings; what they must contain is the service's
 * business (it names the field: `items.0.url: ...`). Absent: undefined (the service says it is required).
 */
function stockItems(body: Source): StockItemInput[] | undefined {
  const value = body.items;
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new InvalidInput('items: expected an array of {url, title, attribution, source, thumbnail_url}', 'items');
  return value.map((item: unknown, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw new InvalidInput(`items.${i}: expected an object with url, title, attribution, source, thumbnail_url`, `items.${i}`);
    const fields = item as Source;
    for (const name of ITEM_FIELDS) {
      const v = fields[name];
      if (v !== undefined && v !== null && typeof v !== 'string') throw new InvalidInput(`items.${i}.${name}: expected a string`, `items.${i}.${name}`);
    }
    const text = (name: (typeof ITEM_FIELDS)[number]) => (fields[name] as string | null | undefined) ?? undefined;
    return { url: text('url'), title: text('title'), attribution: text('attribution'), source: text('source'), thumbnailUrl: text('thumbnail_url') };
  });
}

/** A stock list as listed and answered. share_token and join_path are shown to the owner only. */
export function stockListJson(l: StockListFieldsFragment) {
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
export function stockItemJson(i: StockItemFieldsFragment) {
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

export const stockListsRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/media/stock/lists',
    auth: 'key',
    scope: 'media',
    summary: 'Stock lists the caller owns or joined, newest first (limit default 100, max 200; cursor)',
    operation: ListStockListsDocument,
    variables: ({ query }) => page(query, 100, 200),
    shape: (data) => {
      const connection = data.viewer.stockLists;
      return {
        lists: connection.edges.map((edge) => stockListJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/stock/lists',
    auth: 'key',
    scope: 'media',
    summary: 'Create a stock list: name (required), description',
    operation: CreateStockListDocument,
    successStatus: 201,
    variables: ({ body }) => ({ input: { name: optionalString(body, 'name') ?? '', description: optionalString(body, 'description') } }),
    shape: (data) => {
      const { id, ...rest } = stockListJson(unwrap(data.createStockList));
      return { list_id: id, ...rest };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/stock/lists/:id',
    auth: 'key',
    scope: 'media',
    summary: 'A stock list (owner or member) with its items, oldest first (limit default 100, max 500; cursor)',
    operation: GetStockListDocument,
    variables: ({ params, query }) => ({ id: idParam(params, 'stock list'), ...page(query, 100, 500) }),
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
  defineRoute({
    method: 'DELETE',
    path: '/api/media/stock/lists/:id',
    auth: 'key',
    scope: 'media',
    summary: 'Delete a stock list with its items and memberships (owner only; saved media stay)',
    operation: DeleteStockListDocument,
    variables: ({ params }) => ({ id: idParam(params, 'stock list') }),
    shape: (data) => ({ deleted: true, list_id: unwrap(data.deleteStockList).databaseId }),
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/stock/lists/:id/items',
    auth: 'key',
    scope: 'media',
    summary: 'Add items (owner or member): items, an array of {url (http/https, required), title, attribution, source, thumbnail_url}; URLs already in the list are skipped',
    operation: AddStockItemsDocument,
    variables: ({ params, body }) => ({ listId: idParam(params, 'stock list'), items: stockItems(body) }),
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
  defineRoute({
    method: 'POST',
    path: '/api/media/stock/lists/:id/save',
    auth: 'key',
    scope: 'media',
    summary: "Download the list's not-yet-saved items into the caller's library (at most 50 per call; each item saved, duplicate or failed on its own)",
    operation: SaveStockListDocument,
    variables: ({ params }) => ({ id: idParam(params, 'stock list') }),
    shape: (data) => {
      const result = unwrap(data.saveStockList);
      return {
        list_id: result.list.databaseId,
        saved: result.saved,
        duplicates: result.duplicates,
        failed: result.failed,
        already_saved: result.alreadySaved,
        remaining: result.remaining,
        results: result.results.map((r) => ({ item_id: r.item.databaseId, url: r.item.url, status: r.status, media_id: r.mediaId, error: r.error })),
      };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/api/media/stock/items/:id',
    auth: 'key',
    scope: 'media',
    summary: 'Remove an item from its stock list (the owner any item, a member the items it added)',
    operation: RemoveStockItemDocument,
    variables: ({ params }) => ({ id: idParam(params, 'stock item') }),
    shape: (data) => {
      const item = unwrap(data.removeStockItem);
      return { deleted: true, item_id: item.databaseId, list_id: item.listId };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/lists/:id/share',
    auth: 'key',
    scope: 'media',
    summary: 'Share a stock list (owner only): its join token, made on first use; rotate: true replaces it (members stay)',
    operation: ShareStockListDocument,
    variables: ({ params, body }) => ({ id: idParam(params, 'stock list'), rotate: optionalBool(body, 'rotate') }),
    shape: (data) => {
      const share = unwrap(data.shareStockList);
      return { share_token: share.shareToken, join_path: share.joinPath, list_id: share.list.databaseId, name: share.list.name };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/community/lists/join/:token',
    auth: 'key',
    scope: 'media',
    summary: 'Join a shared stock list as a member (read, add items, save into your library); joining again is fine; the owner cannot join',
    operation: JoinStockListDocument,
    variables: ({ params }) => ({ token: requiredString(params, 'token') }),
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
    scope: 'media',
    summary: "A stock list's owner and members (owner and members may look)",
    operation: StockListMembersDocument,
    variables: ({ params }) => ({ id: idParam(params, 'stock list') }),
    shape: (data) => ({
      list_id: data.stockList.databaseId,
      owner: data.stockList.owner,
      members: data.stockList.members.map((m) => ({ handle: m.handle, joined_at: m.joinedAt })),
      total: data.stockList.members.length,
    }),
  }),
];
