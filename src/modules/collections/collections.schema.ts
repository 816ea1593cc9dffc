// Collections (scope `media`) as callers see them, stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts), the
// viewer's collections and one collection with its items (relay connections). The operations on them
// are declared in collections.operations.ts. Thin: the rules live in collections.service.ts.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { newestFirst, policyNode } from '../../graphql/owned-rows.js';
import { answerDescription, answerFields, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count, graphqlSources, id, timestamp } from '../../platform/wire.js';
import { collectionPolicy } from './collections.access.js';
import type { Context } from '../../graphql/context.js';
import { AccountRef } from '../accounts/accounts.schema.js';
import { galleryPath, type Collection } from './collections.service.js';
import { mediaItem, MediaRef } from '../media/media.schema.js';
import { camelCase } from '../../graphql/operation-args.js';
import { COLLECTION_ITEMS_PAGE, COLLECTIONS_PAGE } from './collections.input.js';

const shareUrl = (c: Collection) => (c.shareToken ? galleryPath(c.shareToken) : null);
const shareLink = (c: Collection, ctx: Context) => (c.shareToken ? ctx.baseUrl + galleryPath(c.shareToken) : null);
const passwordProtected = (c: Collection) => c.shareToken !== null && c.sharePasswordHash !== null;

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
export const collection = answerFrom(z.object({ id, ...collectionFields }).meta({ id: 'Collection', description: 'A collection of media items' }), { id: 'databaseId' });
/** A collection as created and as answered with its items: `collection_id` for its id. */
export const collectionAnswer = answerFrom(z.object({ collection_id: id, ...collectionFields }), { collection_id: 'databaseId' });
/** A listed item of a collection: the media item as the library answers it, and when it was added. */
const mediaSources = graphqlSources.get(mediaItem)!.from;
export const collectionItem = answerFrom(mediaItem.extend({ added_at: timestamp }), {
  ...Object.fromEntries(Object.keys(mediaItem.shape).map((key) => [key, mediaSources[key] === null ? null : `media.${mediaSources[key] ?? camelCase(key)}`])),
  added_at: 'addedAt',
});

const CollectionItemRef = builder.prismaObject('CollectionItem', {
  authScopes: collectionPolicy.authScopes,
  description: 'A media item in a collection',
  fields: (t) => ({
    position: t.exposeInt('position', { description: 'Order in the collection (ascending)' }),
    ...answerFields(t, collectionItem),
    media: t.relation('media', { type: MediaRef }),
  }),
});

export const CollectionRef = builder.prismaNode('Collection', {
  ...policyNode(collectionPolicy),
  description: answerDescription(collection),
  fields: (t) => ({
    ...answerFields(t, collection, {
      item_count: t.relationCount('items', { description: 'Items not in the trash', where: { media: { trashedAt: null } } }),
      shared: { description: 'A share link exists (open or password-protected)', resolve: (c: Collection) => c.shareToken !== null },
      password_protected: { description: 'The share link asks for a password', resolve: passwordProtected },
      share_url: { resolve: shareUrl },
      share_link: { resolve: (c: Collection, _a, ctx) => shareLink(c, ctx) },
    }),
    shareToken: t.exposeString('shareToken', { nullable: true }),
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
  t.relatedConnection('collections', { type: CollectionRef, description: "The account's collections, newest first", ...newestFirst(collectionPolicy, COLLECTIONS_PAGE) }),
);

export const addedItems = answerFrom(z.object({ collection_id: id, added: count, already_in: count, item_count: count }), {
  collection_id: 'collection.databaseId',
  item_count: 'collection.itemCount',
});
export const AddCollectionItemsRef = answerObject<{ collection: Collection; added: number; alreadyIn: number }>('AddCollectionItemsResult', addedItems, {
  fields: () => ({ added: { description: 'Items newly added' }, already_in: { description: 'Items that were in the collection already' } }),
  more: (t) => ({ collection: t.field({ type: CollectionRef, resolve: (r) => r.collection }) }),
});

export const collectionShare = answerFrom(
  z.object({
    share_token: z.string().nullable(),
    share_url: z.string().nullable().describe('/gallery/<share_token>'),
    share_link: z.string().nullable(),
    shared: z.boolean(),
    password_protected: z.boolean(),
    collection_id: id,
  }),
  { collection_id: 'collection.databaseId' },
);
type Share = { collection: Collection; token: string | null };
export const CollectionShareRef = answerObject<Share>('CollectionShare', collectionShare, {
  description: 'The outcome of shareCollection: a fresh link, or sharing turned off (nulls)',
  fields: () => ({
    share_token: { resolve: (r: Share) => r.token },
    share_url: { resolve: (r: Share) => shareUrl(r.collection) },
    share_link: { resolve: (r: Share, _a, ctx) => shareLink(r.collection, ctx) },
    shared: { resolve: (r: Share) => r.token !== null },
    password_protected: { resolve: (r: Share) => r.token !== null && passwordProtected(r.collection) },
  }),
  more: (t) => ({ collection: t.field({ type: CollectionRef, resolve: (r) => r.collection }) }),
});
