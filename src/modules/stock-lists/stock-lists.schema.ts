// Stock lists (scope `media`) as callers see them, stated once: the answer objects of a list and an
// item (REST names, src/platform/wire.ts) and the GraphQL types made from them
// (src/graphql/answer-object.ts), and the lists the viewer owns or joined (a connection on Account).
// The operations are declared in stock-lists.operations.ts. Thin: the rules live in stock-lists.service.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { policyNode } from '../../graphql/owned-rows.js';
import { answerDescription, answerEnum, answerFields, answerObject, handleOf } from '../../graphql/answer-object.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { stockItemPolicy, stockListPolicy } from './stock-lists.access.js';
import type { Context } from '../../graphql/context.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { SAVE_STATUSES, STOCK_LIST_ROLES, joinPath, type SaveItemResult, type SaveResult, type StockItem, type StockList, type StockListMember } from './stock-lists.service.js';
import { STOCK_ITEMS_PAGE, STOCK_LISTS_PAGE } from './stock-lists.input.js';

const media = authScopesOf(SCOPE.media);
const isOwner = (list: StockList, ctx: Context) => list.accountId === ctx.actor?.accountId;

answerEnum('StockListRole', { values: STOCK_LIST_ROLES });
answerEnum('StockSaveStatus', { values: SAVE_STATUSES });

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
export const stockList = answerFrom(z.object({ id, ...stockListFields }).meta({ id: 'StockList', description: 'A stock list the caller owns or joined' }), { id: 'databaseId' });
/** A list as created and as answered with its items: `list_id` for its id. */
export const stockListAnswer = answerFrom(z.object({ list_id: id, ...stockListFields }), { list_id: 'databaseId' });

/** An item of a stock list, as answered. */
export const stockItem = answerFrom(
  z
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
    .meta({ id: 'StockItem', description: 'An item of a stock list' }),
  { id: 'databaseId' },
);

export const StockItemRef = builder.prismaObject('StockItem', {
  authScopes: stockItemPolicy.authScopes,
  description: 'A saved stock photo: a URL with attribution',
  fields: (t) =>
    answerFields(t, stockItem, {
      thumbnail_url: { description: 'As given when added; never fetched by the service' },
      added_by: handleOf((item: StockItem) => item.addedBy),
      saved_media_id: {
        load: async (ids: number[], ctx) => {
          const saved = await ctx.services.stockLists.savedMediaIds(ctx.actor!, ids);
          return ids.map((id) => saved.get(id) ?? null);
        },
        resolve: (item: StockItem) => item.id,
      },
    }),
});

const StockListMemberRef = builder.prismaObject('StockListMember', {
  authScopes: stockListPolicy.authScopes,
  fields: (t) => ({
    handle: t.string({ select: { account: { select: { handle: true } } }, resolve: (m) => m.account.handle }),
    joinedAt: t.expose('joinedAt', { type: 'DateTime' }),
  }),
});

export const StockListRef = builder.prismaNode('StockList', {
  ...policyNode(stockListPolicy),
  description: answerDescription(stockList),
  fields: (t) => ({
    ...answerFields(t, stockList, {
      owner: t.string({ description: "The owner's handle", select: { account: { select: { handle: true } } }, resolve: (l) => l.account.handle }),
      role: { description: "The caller's role", resolve: (l: StockList, _a, ctx) => (isOwner(l, ctx) ? 'owner' : 'member') },
      item_count: t.relationCount('items'),
      member_count: t.relationCount('members'),
      shared: { description: 'A join token exists', resolve: (l: StockList) => l.shareToken !== null },
      share_token: { description: 'The join token (owner only)', resolve: (l: StockList, _a, ctx) => (isOwner(l, ctx) ? l.shareToken : null) },
      join_path: { description: 'POST here to join (owner only)', resolve: (l: StockList, _a, ctx) => (isOwner(l, ctx) && l.shareToken ? joinPath(l.shareToken) : null) },
    }),
    items: t.relatedConnection('items', {
      type: StockItemRef,
      description: 'Items, oldest first',
      cursor: 'id',
      ...STOCK_ITEMS_PAGE,
      totalCount: true,
      query: (_args, ctx) => ({ where: stockItemPolicy.where(ctx.actor), orderBy: { id: 'asc' } }),
    }),
    members: t.relation('members', { type: StockListMemberRef, description: 'Accounts that joined, in joining order (not the owner)', query: { orderBy: [{ joinedAt: 'asc' }, { accountId: 'asc' }] } }),
  }),
});

builder.prismaObjectField(AccountRef, 'stockLists', (t) =>
  t.prismaConnection({
    type: StockListRef,
    description: 'Stock lists the account owns or joined, newest first',
    authScopes: media,
    cursor: 'id',
    ...STOCK_LISTS_PAGE,
    totalCount: (_account, _args, ctx) => ctx.services.stockLists.countReadable(ctx.actor),
    resolve: (query, _account, _args, ctx) => ctx.services.stockLists.listReadable(ctx.actor, query),
  }),
);

export const StockItemInput = builder.inputType('StockItemInput', {
  description: 'A stock photo to add: url (http or https) is required',
  fields: (t) => ({
    url: t.string({ description: 'Required: the image, http or https' }),
    title: t.string({ description: 'Becomes the media name when saved' }),
    attribution: t.string(),
    source: t.string({ description: 'Provider name (unsplash, pexels ...)' }),
    thumbnailUrl: t.string({ description: 'http or https; stored and shown, never fetched' }),
  }),
});

export const addedItems = answerFrom(
  z.object({ list_id: id, added: count, already_in: count, item_count: count, items: z.array(stockItem).describe('the items added') }),
  { list_id: 'list.databaseId', added: null, item_count: 'list.itemCount', items: 'added' },
);
export const AddStockItemsRef = answerObject<{ list: StockList; added: StockItem[]; alreadyIn: number }>('AddStockItemsResult', addedItems, {
  fields: () => ({ already_in: { description: 'Items not added because their URL is in the list already' } }),
  more: (t) => ({ list: t.field({ type: StockListRef, resolve: (r) => r.list }) }),
});

export const removedItem = answerFrom(z.object({ deleted: z.literal(true), item_id: id, list_id: id }), { deleted: null, item_id: 'databaseId', list_id: 'listId' });
export const RemovedStockItemRef = answerObject<StockItem>('RemovedStockItem', removedItem);

const savedItem = answerFrom(z.object({ item_id: id, url: z.string(), status: z.enum(SAVE_STATUSES), media_id: id.nullable(), error: z.string().nullable() }), {
  item_id: 'item.databaseId',
  url: 'item.url',
});
answerObject<SaveItemResult>('StockSaveItemResult', savedItem, {
  fields: () => ({ media_id: { description: 'The media item in the caller’s library (saved or duplicate)' }, error: { description: 'Why this item failed' } }),
  more: (t) => ({ item: t.field({ type: StockItemRef, resolve: (r) => r.item }) }),
});
export const savedList = answerFrom(
  z.object({ list_id: id, saved: count, duplicates: count, failed: count, already_saved: count, remaining: count.describe('items still to save: call again'), results: z.array(savedItem) }),
  { list_id: 'list.databaseId' },
);
export const StockSaveRef = answerObject<SaveResult>('StockSaveResult', savedList, {
  fields: () => ({
    duplicates: { description: 'Downloaded, but the same bytes were in the library already' },
    already_saved: { description: 'Items already in the caller’s library: not downloaded' },
    remaining: { description: 'Not-yet-saved items left for another call' },
  }),
  more: (t) => ({ list: t.field({ type: StockListRef, resolve: (r) => r.list }) }),
});

export const listShare = answerFrom(z.object({ share_token: z.string(), join_path: z.string(), list_id: id, name: z.string() }), { list_id: 'list.databaseId', name: 'list.name' });
type Share = { list: StockList; token: string };
export const StockListShareRef = answerObject<Share>('StockListShare', listShare, {
  fields: () => ({ share_token: { resolve: (r: Share) => r.token }, join_path: { resolve: (r: Share) => joinPath(r.token) } }),
  more: (t) => ({ list: t.field({ type: StockListRef, resolve: (r) => r.list }) }),
});

export const listJoin = answerFrom(
  z.object({ list_id: id, name: z.string(), owner: z.string(), role: stockListFields.role, joined_at: timestamp, already_member: z.boolean() }),
  { list_id: 'list.databaseId', name: 'list.name', owner: 'list.owner', role: 'list.role' },
);
type Join = { list: StockList; member: StockListMember; alreadyMember: boolean };
export const StockListJoinRef = answerObject<Join>('StockListJoin', listJoin, { fields: () => ({ joined_at: { resolve: (r: Join) => r.member.joinedAt } }), more: (t) => ({ list: t.field({ type: StockListRef, resolve: (r) => r.list }) }) });
