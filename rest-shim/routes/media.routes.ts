// Spec "Media library": items, their lifecycle, tags, bulk actions, folders, credits.
// Our shapes (the spec leaves them open): one item is `media`, pages are `items` with `total`,
// `limit`, `offset`; a folder is `folder`. See the README's media section. Trash, purge, tags,
// mirrors and folder changes are declared in src/modules/media/media.operations.ts; written here:
// rows answering MediaItem (its GraphQL type is Media, and `trashed` is computed), list and trash
// (one GraphQL field, two rows), update and bulk (null clears a field), credits (the ledger's
// query), the item and folders queries (no error union) and the file stream (mounted).
import { z } from 'zod';
import { defineMountedRoute, defineRoute } from '../route.js';
import { SCOPE } from '../../src/modules/access/index.js';
import { pathId } from '../input.js';
import { restRoutesOf } from '../derive.js';
import { unwrap } from '../result.js';
import {
  BulkMediaDocument,
  CreditsDocument,
  GetMediaDocument,
  ListFoldersDocument,
  ListMediaDocument,
  UpdateMediaDocument,
  type MediaFieldsFragment,
  type MediaPageFieldsFragment,
} from '../generated/operations.js';
import { BULK_ACTIONS, bulkSchema, pageSchema, updateSchema } from '../../src/modules/media/media.input.js';
import { count, id, idParams, timestamp } from '../schemas.js';
import { mediaItem, mediaOperations } from '../../src/modules/media/media.operations.js';

export { mediaItem };
import { MEDIA_VARIANTS } from '../../src/modules/media/media-urls.js';


const mediaPage = z.object({ items: z.array(mediaItem), total: count, limit: count, offset: count });
const mediaParams = idParams('media item');

export function mediaJson(m: MediaFieldsFragment): z.input<typeof mediaItem> {
  return {
    id: m.databaseId,
    name: m.name,
    url: m.url,
    thumbnail_url: m.thumbnailUrl,
    type: m.kind,
    mime: m.mime,
    ext: m.ext,
    bytes: m.bytes,
    width: m.width,
    height: m.height,
    format: m.format,
    tags: m.tags,
    group: m.group,
    folder_id: m.folderId,
    caption: m.caption,
    extracted_text: m.extractedText,
    dominant_color: m.dominantColor,
    phash: m.phash,
    blockhash: m.blockhash,
    sha256: m.sha256,
    source_url: m.sourceUrl,
    attribution: m.attribution,
    trashed: m.trashedAt !== null,
    trashed_at: m.trashedAt,
    created_at: m.createdAt,
    updated_at: m.updatedAt,
  };
}

const pageJson = (p: MediaPageFieldsFragment) => ({ items: p.items.map(mediaJson), total: p.total, limit: p.limit, offset: p.offset });

export const mediaRoutes = [
  defineRoute({
    method: 'GET',
    path: '/api/media/list',
    auth: 'key',
    key: SCOPE.media,
    summary: 'The library, newest first (limit default 50, max 200; offset)',
    operation: ListMediaDocument,
    request: { query: pageSchema },
    response: mediaPage,
    variables: ({ query }) => ({ limit: query.limit, offset: query.offset }),
    shape: (data) => pageJson(unwrap(data.mediaList)),
    cache: { domain: 'media' },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/trash',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Trashed items, most recently trashed first',
    operation: ListMediaDocument,
    request: { query: pageSchema },
    response: mediaPage,
    variables: ({ query }) => ({ limit: query.limit, offset: query.offset, trashed: true }),
    shape: (data) => pageJson(unwrap(data.mediaList)),
    cache: { domain: 'media' },
  }),
  defineRoute({
    method: 'POST',
    path: '/api/media/bulk',
    auth: 'key',
    key: SCOPE.media,
    summary: 'One action over many items (ids, action: trash, restore, purge, move with folder_id, tag with tags, list); all or nothing',
    operation: BulkMediaDocument,
    request: { body: bulkSchema },
    response: z.object({ action: z.enum(BULK_ACTIONS), count, items: z.array(mediaItem) }),
    errors: { 404: 'an id is not one of your media items (nothing changed)', 409: 'purge of items not in the trash' },
    variables: ({ body }) => ({ ids: body.ids, action: body.action, folderId: body.folder_id, tags: body.tags }),
    shape: (data) => {
      const result = unwrap(data.bulkMedia);
      return { action: result.action, count: result.items.length, items: result.items.map(mediaJson) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/credits',
    auth: 'key',
    key: SCOPE.media,
    summary: 'The credit ledger (newest first; limit, offset) and totals',
    operation: CreditsDocument,
    request: { query: pageSchema },
    response: z.object({
      balance: z.int().describe('credits spendable now (held credits not included)'),
      held: z.int().describe('credits held by analyses in progress, beside balance'),
      total_added: z.int(),
      total_spent: z.int(),
      entries: z.array(z.object({ id, amount: z.int(), action: z.string(), reference: z.string().nullable(), created_at: timestamp })),
      total: count,
      limit: count,
      offset: count,
    }),
    variables: ({ query }) => ({ limit: query.limit, offset: query.offset }),
    shape: (data) => {
      const c = unwrap(data.credits);
      return {
        balance: c.balance,
        held: c.held,
        total_added: c.totalAdded,
        total_spent: c.totalSpent,
        entries: c.entries.map((e) => ({ id: e.databaseId, amount: e.amount, action: e.action, reference: e.reference, created_at: e.createdAt })),
        total: c.total,
        limit: c.limit,
        offset: c.offset,
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/api/media/folders',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Folders with their item counts',
    operation: ListFoldersDocument,
    response: z.object({ folders: z.array(z.object({ id, name: z.string(), item_count: count, created_at: timestamp })) }),
    shape: (data) => ({ folders: data.folders.map((f) => ({ id: f.databaseId, name: f.name, item_count: f.itemCount, created_at: f.createdAt })) }),
  }),
  ...restRoutesOf(mediaOperations),
  defineRoute({
    method: 'GET',
    path: '/api/media/:id',
    auth: 'key',
    key: SCOPE.media,
    summary: 'One item',
    operation: GetMediaDocument,
    request: { params: mediaParams },
    response: z.object({ media: mediaItem }),
    variables: ({ params }) => ({ id: pathId(params, 'media item') }),
    shape: (data) => ({ media: mediaJson(data.media) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/api/media/:id',
    auth: 'key',
    key: SCOPE.media,
    summary: 'Change name, group, folder_id, caption or tags (null clears group, folder_id and caption)',
    operation: UpdateMediaDocument,
    request: { params: mediaParams, body: updateSchema },
    response: z.object({ media: mediaItem }),
    variables: ({ params, body }) => ({
      id: pathId(params, 'media item'),
      input: { name: body.name, group: body.group, folderId: body.folder_id, caption: body.caption, tags: body.tags },
    }),
    shape: (data) => ({ media: mediaJson(unwrap(data.updateMedia)) }),
  }),
  defineMountedRoute({
    method: 'GET',
    path: '/media/:id/:variant',
    auth: 'none',
    summary: "A library file by its signed URL (a media item's url or thumbnail_url): no key, the signature is the permission",
    request: {
      params: mediaParams.extend({ variant: z.enum(MEDIA_VARIANTS) }),
      query: z.object({ v: z.string().describe('version: changes with the bytes'), sig: z.string().describe('signature') }),
    },
    produces: [
      { status: 200, description: 'The file with its own content type (documents as attachments)', contentTypes: ['*/*'], headers: { ETag: 'strong entity tag' } },
      { status: 304, description: 'Unchanged (If-None-Match matched the ETag)' },
    ],
    errors: { 403: 'a missing or wrong signature, or a link to an earlier file', 404: 'no such file' },
  }),
];
