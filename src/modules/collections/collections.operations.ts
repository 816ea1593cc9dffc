// The collection operations, each declared once (docs/architecture.md): create one, add items, delete
// one, share one, the lists over relay connections (the caller's collections, one collection with
// its items; their fields are in collections.schema.ts) and one by id (GraphQL); all `media` scope.
// GraphQL fields and REST rows are made from these; the rules live in collections.service.ts. Shapes
// are ours where the spec leaves them open (README "Media: collections").
import { defineMutation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { defineConnectionList } from '../../graphql/connection-list.js';
import { deletedObject, withDeleted } from '../../graphql/common-answers.js';
import { ownedRowQuery } from '../../graphql/owned-rows.js';
import { collectionPolicy } from './collections.access.js';
import { withTrashed } from '../media/media.schema.js';
import { AddCollectionItemsRef, collection, collectionAnswer, collectionItem, CollectionRef, CollectionShareRef } from './collections.schema.js';
import { addItemsSchema, COLLECTION_ITEMS_PAGE, COLLECTIONS_PAGE, collectionSchema, shareSchema } from './collections.input.js';

export const collectionOperations = defineOperations({
  createCollection: defineMutation({
    key: SCOPE.media,
    input: collectionSchema,
    inputType: 'CreateCollectionInput',
    // Not a prisma field: the service's row was not loaded with the selection, so counts and
    // relations are loaded for it (batched) rather than assumed present.
    output: CollectionRef,
    run: ({ ctx, actor, input }) => ctx.services.collections.create(actor, input),
    rest: {
      route: 'POST /api/media/collections',
      summary: 'Create a collection: name (required), description',
      response: collectionAnswer,
      successStatus: 201,
    },
  }),
  addCollectionItems: defineMutation({
    description: "Adds media items (all or nothing: another account's id fails the whole call with a 404)",
    key: SCOPE.media,
    ids: { id: 'collection' },
    input: addItemsSchema,
    optionalArgs: ['media_ids'],
    output: AddCollectionItemsRef,
    run: ({ ctx, actor, id, input }) => ctx.services.collections.addItems(actor, id, input),
    rest: {
      route: 'POST /api/media/collections/:id/items',
      summary: "Add media items (media_ids: array); ids already in are skipped; another account's id fails the whole call with 404",

      errors: { 404: "the collection, or a media id that is missing or another account's (nothing is added)" },
    },
  }),
  deleteCollection: defineMutation({
    description: 'Deletes a collection (its media items stay in the library)',
    key: SCOPE.media,
    ids: { id: 'collection' },
    output: deletedObject('DeletedCollection', 'collection_id'),
    run: ({ ctx, actor, id }) => ctx.services.collections.delete(actor, id),
    rest: {
      route: 'DELETE /api/media/collections/:id',
      summary: 'Delete a collection (its media items stay in the library)',
      shape: withDeleted,
    },
  }),
  shareCollection: defineMutation({
    description:
      'Shares a collection at /gallery/<token>, always with a new token (the old link stops working). A password always protects the link; without one, public true (default) opens it and public false turns sharing off.',
    key: SCOPE.media,
    ids: { id: 'collection' },
    input: shareSchema,
    output: CollectionShareRef,
    run: ({ ctx, actor, id, input }) => ctx.services.collections.share(actor, id, input),
    rest: {
      route: 'POST /api/media/collections/:id/share',
      summary: 'Share a collection at /gallery/<share_token> (always a new token): password protects it; public false without a password turns sharing off',

    },
  }),
  listCollections: defineConnectionList({
    name: 'ListCollections',
    key: SCOPE.media,
    connection: 'viewer.collections',
    page: COLLECTIONS_PAGE,
    items: 'collections',
    node: collection,
    rest: { route: 'GET /api/media/collections', summary: "List the caller's collections, newest first (limit default 100, max 200; cursor)" },
  }),
  getCollection: defineConnectionList({
    name: 'GetCollection',
    key: SCOPE.media,
    connection: 'collection.items',
    ids: { id: 'collection' },
    page: COLLECTION_ITEMS_PAGE,
    parent: collectionAnswer,
    items: 'items',
    node: collectionItem,
    total: false,
    rest: {
      route: 'GET /api/media/collections/:id',
      summary: 'A collection with its items (media items not in the trash, in collection order; limit default 100, max 500; cursor)',
      shape: (answer) => ({ ...answer, items: (answer.items as unknown[]).map(withTrashed) }),
    },
  }),
  collection: ownedRowQuery(collectionPolicy, CollectionRef, (ctx, actor, id, query) => ctx.services.collections.get(actor, id, query)),
});
