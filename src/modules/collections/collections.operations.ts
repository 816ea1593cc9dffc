// The collection changes, each declared once (docs/architecture.md): create one, add items, delete
// one, share one (all `media` scope). GraphQL fields and REST rows are made from these; the rules
// live in collections.service.ts. Shapes are ours where the spec leaves them open (README "Media:
// collections"). The list and one collection with its items are relay connections:
// collections.schema.ts and rest-shim/routes/collections.routes.ts keep them.
import { z } from 'zod';
import { defineOperation, defineOperations } from '../../graphql/operation.js';
import { SCOPE } from '../access/index.js';
import { answerFrom, count, id, timestamp } from '../../platform/wire.js';
import { AddCollectionItemsRef, CollectionRef, CollectionShareRef, DeletedCollectionRef } from './collections.schema.js';
import { addItemsSchema, collectionSchema, shareSchema } from './collections.input.js';

/** A collection's fields on the wire, beside its id (listed, created and answered with its items). */
export const collectionFields = {
  name: z.string(),
  description: z.string().nullable(),
  item_count: count,
  shared: z.boolean(),
  password_protected: z.boolean(),
  share_url: z.string().nullable().describe('/gallery/<share_token> while shared'),
  share_link: z.string().nullable().describe('share_url as an absolute URL'),
  created_at: timestamp,
  updated_at: timestamp,
};

export const collectionOperations = defineOperations({
  createCollection: defineOperation({
    kind: 'mutation',
    key: SCOPE.media,
    input: collectionSchema,
    inputType: 'CreateCollectionInput',
    // Not a prisma field: the service's row was not loaded with the selection, so counts and
    // relations are loaded for it (batched) rather than assumed present.
    output: CollectionRef,
    run: ({ ctx, actor, input }) => ctx.services.collections.create(actor, input),
    rest: {
      method: 'POST',
      path: '/api/media/collections',
      summary: 'Create a collection: name (required), description',
      response: answerFrom(z.object({ collection_id: id, ...collectionFields }), { collection_id: 'databaseId' }),
      successStatus: 201,
    },
  }),
  addCollectionItems: defineOperation({
    kind: 'mutation',
    description: "Adds media items (all or nothing: another account's id fails the whole call with a 404)",
    key: SCOPE.media,
    ids: { id: 'collection' },
    input: addItemsSchema,
    optionalArgs: ['media_ids'],
    output: AddCollectionItemsRef,
    run: ({ ctx, actor, id, input }) => ctx.services.collections.addItems(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/media/collections/:id/items',
      summary: "Add media items (media_ids: array); ids already in are skipped; another account's id fails the whole call with 404",
      response: answerFrom(z.object({ collection_id: id, added: count, already_in: count, item_count: count }), {
        collection_id: 'collection.databaseId',
        item_count: 'collection.itemCount',
      }),
      errors: { 404: "the collection, or a media id that is missing or another account's (nothing is added)" },
    },
  }),
  deleteCollection: defineOperation({
    kind: 'mutation',
    description: 'Deletes a collection (its media items stay in the library)',
    key: SCOPE.media,
    ids: { id: 'collection' },
    output: DeletedCollectionRef,
    run: ({ ctx, actor, id }) => ctx.services.collections.delete(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/collections/:id',
      summary: 'Delete a collection (its media items stay in the library)',
      response: answerFrom(z.object({ deleted: z.literal(true), collection_id: id }), { deleted: null, collection_id: 'databaseId' }),
      shape: (answer) => ({ deleted: true, collection_id: answer.collection_id }),
    },
  }),
  shareCollection: defineOperation({
    kind: 'mutation',
    description:
      'Shares a collection at /gallery/<token>, always with a new token (the old link stops working). A password always protects the link; without one, public true (default) opens it and public false turns sharing off.',
    key: SCOPE.media,
    ids: { id: 'collection' },
    input: shareSchema,
    output: CollectionShareRef,
    run: ({ ctx, actor, id, input }) => ctx.services.collections.share(actor, id, input),
    rest: {
      method: 'POST',
      path: '/api/media/collections/:id/share',
      summary: 'Share a collection at /gallery/<share_token> (always a new token): password protects it; public false without a password turns sharing off',
      response: answerFrom(
        z.object({
          share_token: z.string().nullable(),
          share_url: z.string().nullable().describe('/gallery/<share_token>'),
          share_link: z.string().nullable(),
          shared: z.boolean(),
          password_protected: z.boolean(),
          collection_id: id,
        }),
        { collection_id: 'collection.databaseId' },
      ),
    },
  }),
});
