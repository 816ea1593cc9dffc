// Stock lists (scope `media`) as callers see them, stated once: the answer objects of a list and an
// item (REST names, src/platform/wire.ts) and the GraphQL types made from them
// (src/graphql/answer-object.ts), and the lists the viewer owns or joined (a connection on Account).
// The operations are declared in stock-lists.operations.ts. Thin: the rules live in stock-lists.service.ts.
import { z } from 'zod';
import { builder, nodeId } from '../../graphql/builder.js';
import { answerDescription, answerEnum, answerFields } from '../../graphql/answer-object.js';
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
const StockSaveStatusEnum = builder.enumType('StockSaveStatus', { values: SAVE_STATUSES });

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
      id: { description: 'The integer item id of the REST API' },
      thumbnail_url: { description: 'As given when added; never fetched by the service' },
      added_by: t.loadable({
        type: 'String',
        nullable: true,
        description: 'Handle of the account that added the item',
        load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids),
        resolve: (item) => item.addedBy,
      }),
      saved_media_id: t.loadable({
        type: 'Int',
        nullable: true,
        description: "The caller's saved copy of this item (a media id), or null when not saved (or trashed) yet",
        load: async (ids: number[], ctx) => {
          const saved = await ctx.services.stockLists.savedMediaIds(ctx.actor!, ids);
          return ids.map((id) => saved.get(id) ?? null);
        },
        resolve: (item) => item.id,
      }),
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
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: stockListPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: stockListPolicy.nodeWhere(ctx) }),
  description: answerDescription(stockList),
  fields: (t) => ({
    ...answerFields(t, stockList, {
      id: { description: 'The integer list id of the REST API' },
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

export const AddStockItemsRef = builder.objectRef<{ list: StockList; added: StockItem[]; alreadyIn: number }>('AddStockItemsResult').implement({
  fields: (t) => ({
    list: t.field({ type: StockListRef, resolve: (r) => r.list }),
    added: t.field({ type: [StockItemRef], description: 'The new items', resolve: (r) => r.added }),
    alreadyIn: t.exposeInt('alreadyIn', { description: 'Items not added because their URL is in the list already' }),
  }),
});

export const RemovedStockItemRef = builder.objectRef<StockItem>('RemovedStockItem').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id'), listId: t.exposeInt('listId') }),
});

export const DeletedStockListRef = builder.objectRef<{ id: number }>('DeletedStockList').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id') }),
});

const StockSaveItemRef = builder.objectRef<SaveItemResult>('StockSaveItemResult').implement({
  fields: (t) => ({
    item: t.field({ type: StockItemRef, resolve: (r) => r.item }),
    status: t.field({ type: StockSaveStatusEnum, resolve: (r) => r.status }),
    mediaId: t.exposeInt('mediaId', { nullable: true, description: 'The media item in the caller’s library (saved or duplicate)' }),
    error: t.exposeString('error', { nullable: true, description: 'Why this item failed' }),
  }),
});

export const StockSaveRef = builder.objectRef<SaveResult>('StockSaveResult').implement({
  fields: (t) => ({
    list: t.field({ type: StockListRef, resolve: (r) => r.list }),
    results: t.field({ type: [StockSaveItemRef], resolve: (r) => r.results }),
    saved: t.exposeInt('saved'),
    duplicates: t.exposeInt('duplicates', { description: 'Downloaded, but the same bytes were in the library already' }),
    failed: t.exposeInt('failed'),
    alreadySaved: t.exposeInt('alreadySaved', { description: 'Items already in the caller’s library: not downloaded' }),
    remaining: t.exposeInt('remaining', { description: 'Not-yet-saved items left for another call' }),
  }),
});

export const StockListShareRef = builder.objectRef<{ list: StockList; token: string }>('StockListShare').implement({
  fields: (t) => ({
    list: t.field({ type: StockListRef, resolve: (r) => r.list }),
    shareToken: t.exposeString('token'),
    joinPath: t.string({ resolve: (r) => joinPath(r.token) }),
  }),
});

export const StockListJoinRef = builder.objectRef<{ list: StockList; member: StockListMember; alreadyMember: boolean }>('StockListJoin').implement({
  fields: (t) => ({
    list: t.field({ type: StockListRef, resolve: (r) => r.list }),
    joinedAt: t.field({ type: 'DateTime', resolve: (r) => r.member.joinedAt }),
    alreadyMember: t.exposeBoolean('alreadyMember'),
  }),
});
