// Spec "Media library": collections, and "Share link (collection)". Shapes are ours where the spec
// leaves them open (README "Media: collections"); items are media items exactly as the library
// routes show them (mediaJson), with signed url and thumbnail_url. Create, add items, delete and
// share are declared in src/modules/collections/collections.operations.ts; written here: the list
// and one collection with its items (relay connections, paged by cursor) and the gallery pages
// (mounted HTML, no key).
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { restRoutesOf } from '../derive.js';
import { pathId } from '../input.js';
import { GetCollectionDocument, ListCollectionsDocument, type CollectionFieldsFragment } from '../generated/operations.js';
import { mediaItem, mediaJson } from './media.routes.js';
import { count, id, idParams, nextCursor, timestamp } from '../schemas.js';
import { COLLECTION_ITEMS_PAGE, COLLECTIONS_PAGE, cursorPageSchema } from '../../src/modules/collections/collections.input.js';
import { collectionFields, collectionOperations } from '../../src/modules/collections/collections.operations.js';

const collection = z.object({ id, ...collectionFields }).meta({ id: 'Collection', description: 'A collection of media items' });
const collectionParams = idParams('collection');
const galleryParams = z.object({ token: z.string().describe('share_token of a shared collection') });
const htmlPage = (status: number, description: string) => ({ status, description, contentTypes: ['text/html'] });
const collectionsPage = cursorPageSchema(COLLECTIONS_PAGE);
const itemsPage = cursorPageSchema(COLLECTION_ITEMS_PAGE);

/** A checked cursor page (limit, cursor) as the connection's first and after; absent: the connection's default (empty cursor: the first page). */
export const pageVariables = (query: { limit?: number; cursor?: string }) => ({ first: query.limit, after: query.cursor || undefined });

/** A collection as listed and answered (our shape). */
export function collectionJson(c: CollectionFieldsFragment): z.input<typeof collection> {
  return {
    id: c.databaseId,
    name: c.name,
    description: c.description,
    item_count: c.itemCount,
    shared: c.shared,
    password_protected: c.passwordProtected,
    share_url: c.shareUrl,
    share_link: c.shareLink,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

export const collectionsRoutes = [
  ...restRoutesOf(collectionOperations),
  defineRoute({
    method: 'GET',
    path: '/api/media/collections',
    auth: 'key',
    key: SCOPE.media,
    summary: "List the caller's collections, newest first (limit default 100, max 200; cursor)",
    operation: ListCollectionsDocument,
    request: { query: collectionsPage },
    response: z.object({ collections: z.array(collection), total: count, next_cursor: nextCursor }),
    variables: ({ query }) => pageVariables(query),
    shape: (data) => {
      const connection = data.viewer.collections;
      return {
        collections: connection.edges.map((edge) => collectionJson(edge.node)),
        total: connection.totalCount,
        next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/collections/:id',
    auth: 'key',
    key: SCOPE.media,
    summary: 'A collection with its items (media items not in the trash, in collection order; limit default 100, max 500; cursor)',
    operation: GetCollectionDocument,
    request: { params: collectionParams, query: itemsPage },
    response: z.object({ collection_id: id, ...collectionFields, items: z.array(mediaItem.extend({ added_at: timestamp })), next_cursor: nextCursor }),
    variables: ({ params, query }) => ({ id: pathId(params, 'collection'), ...pageVariables(query) }),
    shape: (data) => {
      const { items, ...collection } = data.collection;
      const { id, ...rest } = collectionJson(collection);
      return {
        collection_id: id,
        ...rest,
        items: items.edges.map(({ node }) => ({ ...mediaJson(node.media), added_at: node.addedAt })),
        next_cursor: items.pageInfo.hasNextPage ? items.pageInfo.endCursor : null,
      };
    },
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/gallery/:token',
    secretParams: ['token'],
    auth: 'none',
    summary: 'The public HTML page of a shared collection (no key): thumbnails linking to the files, 100 per page',
    request: { params: galleryParams, query: z.object({ page: z.int().min(1).default(1) }) },
    produces: [
      htmlPage(200, 'The gallery page, or its password form when the collection is password-protected and the access cookie is missing'),
      htmlPage(404, 'Unknown, revoked or malformed token'),
    ],
  }),
  defineMountedRoute({
    method: 'POST',
    path: '/gallery/:token',
    secretParams: ['token'],
    auth: 'none',
    summary: "The gallery's password form: the right password sets an access cookie for this gallery (12 hours) and redirects to the page",
    request: { params: galleryParams, form: z.object({ password: z.string() }) },
    produces: [
      { status: 303, description: 'Right password (or none needed): back to the page', headers: { Location: '/gallery/<token>', 'Set-Cookie': 'gallery_access (HttpOnly, SameSite=Lax, Path=/gallery/<token>)' } },
      htmlPage(400, 'The form could not be read'),
      htmlPage(401, 'Wrong password: the form again'),
      htmlPage(404, 'Unknown, revoked or malformed token'),
      { ...htmlPage(429, 'Too many wrong passwords from one address'), headers: { 'Retry-After': 'seconds to wait' } },
    ],
  }),
];
