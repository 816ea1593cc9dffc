// GraphQL surface of stock lists (scope `media`): their types and the lists the viewer owns or joined
// (a connection on Account). The root fields are declared in stock-lists.operations.ts. Thin: the
// rules live in stock-lists.service.ts.
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { stockItemPolicy, stockListPolicy } from './stock-lists.access.js';
import type { Context } from '../../graphql/context.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { SAVE_STATUSES, STOCK_LIST_ROLES, joinPath, type SaveItemResult, type SaveResult, type StockItem, type StockList, type StockListMember } from './stock-lists.service.js';
import { STOCK_ITEMS_PAGE, STOCK_LISTS_PAGE } from './stock-lists.input.js';

const media = authScopesOf(SCOPE.media);
const isOwner = (list: StockList, ctx: Context) => list.accountId === ctx.actor?.accountId;

const StockListRoleEnum = builder.enumType('StockListRole', { values: STOCK_LIST_ROLES });
const StockSaveStatusEnum = builder.enumType('StockSaveStatus', { values: SAVE_STATUSES });

export const StockItemRef = builder.prismaObject('StockItem', {
  authScopes: stockItemPolicy.authScopes,
  description: 'A saved stock photo: a URL with attribution',
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer item id of the REST API' }),
    url: t.exposeString('url'),
    title: t.exposeString('title', { nullable: true }),
    attribution: t.exposeString('attribution', { nullable: true }),
    source: t.exposeString('source', { nullable: true }),
    thumbnailUrl: t.exposeString('thumbnailUrl', { nullable: true, description: 'As given when added; never fetched by the service' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    addedBy: t.loadable({
      type: 'String',
      nullable: true,
      description: 'Handle of the account that added the item',
      load: (ids: number[], ctx) => ctx.services.accounts.handlesOf(ids),
      resolve: (item) => item.addedBy,
    }),
    savedMediaId: t.loadable({
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
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer list id of the REST API' }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    owner: t.string({ description: "The owner's handle", select: { account: { select: { handle: true } } }, resolve: (l) => l.account.handle }),
    role: t.field({ type: StockListRoleEnum, description: "The caller's role", resolve: (l, _a, ctx) => (isOwner(l, ctx) ? 'owner' : 'member') }),
    itemCount: t.relationCount('items'),
    memberCount: t.relationCount('members'),
    shared: t.boolean({ description: 'A join token exists', resolve: (l) => l.shareToken !== null }),
    shareToken: t.string({ nullable: true, description: 'The join token (owner only)', resolve: (l, _a, ctx) => (isOwner(l, ctx) ? l.shareToken : null) }),
    joinPath: t.string({ nullable: true, description: 'POST here to join (owner only)', resolve: (l, _a, ctx) => (isOwner(l, ctx) && l.shareToken ? joinPath(l.shareToken) : null) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
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
