// GraphQL types of collections (scope `media`), the viewer's collections and one collection with its
// items (relay connections); create, add items, delete and share are declared in
// collections.operations.ts. Thin: the rules live in collections.service.ts.
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { collectionPolicy } from './collections.access.js';
import type { Context } from '../../graphql/context.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { galleryPath, type Collection } from './collections.service.js';
import { MediaRef } from '../media/media.schema.js';
import { COLLECTION_ITEMS_PAGE, COLLECTIONS_PAGE } from './collections.input.js';

const media = authScopesOf(SCOPE.media);
const shareUrl = (c: Collection) => (c.shareToken ? galleryPath(c.shareToken) : null);
const shareLink = (c: Collection, ctx: Context) => (c.shareToken ? ctx.baseUrl + galleryPath(c.shareToken) : null);

const CollectionItemRef = builder.prismaObject('CollectionItem', {
  authScopes: collectionPolicy.authScopes,
  description: 'A media item in a collection',
  fields: (t) => ({
    position: t.exposeInt('position', { description: 'Order in the collection (ascending)' }),
    addedAt: t.expose('addedAt', { type: 'DateTime' }),
    media: t.relation('media', { type: MediaRef }),
  }),
});

export const CollectionRef = builder.prismaNode('Collection', {
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: collectionPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: collectionPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer collection id of the REST API' }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    itemCount: t.relationCount('items', { description: 'Items not in the trash', where: { media: { trashedAt: null } } }),
    shared: t.boolean({ description: 'A share link exists (open or password-protected)', resolve: (c) => c.shareToken !== null }),
    passwordProtected: t.boolean({ description: 'The share link asks for a password', resolve: (c) => c.shareToken !== null && c.sharePasswordHash !== null }),
    shareToken: t.exposeString('shareToken', { nullable: true }),
    shareUrl: t.string({ nullable: true, description: 'Path of the gallery page: /gallery/<share_token>', resolve: shareUrl }),
    shareLink: t.string({ nullable: true, description: 'Absolute URL of the gallery page', resolve: (c, _a, ctx) => shareLink(c, ctx) }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    items: t.relatedConnection('items', {
      type: CollectionItemRef,
      description: 'Items not in the trash, in collection order',
      cursor: 'collectionId_mediaId',
      ...COLLECTION_ITEMS_PAGE,
      totalCount: true,
      query: () => ({ where: { media: { trashedAt: null } }, orderBy: [{ position: 'asc' }, { mediaId: 'asc' }] }),
    }),
  }),
});

builder.prismaObjectField(AccountRef, 'collections', (t) =>
  t.relatedConnection('collections', {
    type: CollectionRef,
    description: "The account's collections, newest first",
    authScopes: media,
    cursor: 'id',
    ...COLLECTIONS_PAGE,
    totalCount: true,
    query: (_args, ctx) => ({ where: collectionPolicy.where(ctx.actor), orderBy: { id: 'desc' } }),
  }),
);

builder.queryField('collection', (t) =>
  t.prismaField({
    type: CollectionRef,
    description: "One of the caller's collections by its integer id",
    authScopes: media,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, ctx) => ctx.services.collections.get(ctx.actor, args.id, query),
  }),
);

export const AddCollectionItemsRef = builder.objectRef<{ collection: Collection; added: number; alreadyIn: number }>('AddCollectionItemsResult').implement({
  fields: (t) => ({
    collection: t.field({ type: CollectionRef, resolve: (r) => r.collection }),
    added: t.exposeInt('added', { description: 'Items newly added' }),
    alreadyIn: t.exposeInt('alreadyIn', { description: 'Items that were in the collection already' }),
  }),
});

export const CollectionShareRef = builder.objectRef<{ collection: Collection; token: string | null }>('CollectionShare').implement({
  description: 'The outcome of shareCollection: a fresh link, or sharing turned off (nulls)',
  fields: (t) => ({
    collection: t.field({ type: CollectionRef, resolve: (r) => r.collection }),
    shareToken: t.string({ nullable: true, resolve: (r) => r.token }),
    shareUrl: t.string({ nullable: true, resolve: (r) => shareUrl(r.collection) }),
    shareLink: t.string({ nullable: true, resolve: (r, _a, ctx) => shareLink(r.collection, ctx) }),
    shared: t.boolean({ resolve: (r) => r.token !== null }),
    passwordProtected: t.boolean({ resolve: (r) => r.token !== null && r.collection.sharePasswordHash !== null }),
  }),
});

export const DeletedCollectionRef = builder.objectRef<{ id: number }>('DeletedCollection').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id') }),
});
