// Media library operations declared once (docs/architecture.md): the library and the trash (one
// field, two rows), bulk actions, the credits (the ledger's service and type), folders (list, create,
// rename, delete), upload, search, one item (read, change, trash, restore, purge, retag) and mirrors
// (all `media` scope). GraphQL fields and REST rows are made from these; the rules live in
// media.service.ts, folders.service.ts and the ledger's credits.service.ts. Shapes are ours (README
// "Media"). The search is also a relay connection (mediaConnection), made from its declaration.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { defineMutation, defineOperations, defineQuery } from '../../graphql/operation.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { inputFields, snakeInput } from '../../graphql/operation-args.js';
import { prismaSelection } from '../../graphql/prisma-selection.js';
import { deletedAnswer, pageAnswer, withDeleted } from '../../graphql/common-answers.js';
import { answerFrom, id, pageCounts, timestamp } from '../../platform/wire.js';
import { BulkActionEnum, BulkResultRef, folder, folderSummary, FolderRef, FolderWithCountRef, MediaKindEnum, mediaItem, MediaPageRef, MediaRef, mirror, MirrorRef, TagActionEnum, UploadResultRef, withTrashed } from './media.schema.js';
import { CreditsRef } from '../ledger/ledger.schema.js';
import { bulkSchema, listSchema, mirrorSchema, pageSchema, searchSchema, tagChangeSchema, updateSchema, uploadFormSchema } from './media.input.js';
import { nameSchema as folderName } from './folders.service.js';

/** A page of the library or of the trash. */
const libraryPage = pageAnswer('items', mediaItem);
const withTrashedItems = (answer: Record<string, unknown>) => ({ ...answer, items: (answer.items as unknown[]).map(withTrashed) });
/** `{ media: <the item> }`, the answer of the rows on one item. */
const mediaAnswer = answerFrom(z.object({ media: mediaItem }), { media: '' });
const withTrashedMedia = (answer: Record<string, unknown>) => ({ media: withTrashed(answer.media) });

const mediaItemId = { id: 'media item' } as const;
const folderId = { id: 'folder' } as const;
const folderAnswer = answerFrom(z.object({ folder }), { folder: '' });

export const mediaOperations = defineOperations({
  mediaList: defineQuery({
    key: SCOPE.media,
    input: listSchema,
    output: MediaPageRef,
    run: ({ ctx, actor, input: { trashed, ...page } }) => ctx.services.media.list(actor, page, trashed ?? false),
    rest: [
      { route: 'GET /api/media/list', operationName: 'ListMedia', summary: 'The library, newest first (limit default 50, max 200; offset)', fixed: { trashed: false }, response: libraryPage, shape: withTrashedItems, cache: { domain: 'media' } },
      { route: 'GET /api/media/trash', summary: 'Trashed items, most recently trashed first', fixed: { trashed: true }, response: libraryPage, shape: withTrashedItems, cache: { domain: 'media' } },
    ],
  }),
  bulkMedia: defineMutation({
    key: SCOPE.media,
    input: bulkSchema,
    args: { action: BulkActionEnum },
    nullClears: ['folder_id'],
    output: BulkResultRef,
    run: ({ ctx, actor, input }) => ctx.services.media.bulk(actor, input),
    rest: {
      route: 'POST /api/media/bulk',
      summary: 'One action over many items (ids, action: trash, restore, purge, move with folder_id, tag with tags, list); all or nothing',
      errors: { 404: 'an id is not one of your media items (nothing changed)', 409: 'purge of items not in the trash' },
      shape: ({ action, items }) => ({ action, count: (items as unknown[]).length, items: (items as unknown[]).map(withTrashed) }),
    },
  }),
  credits: defineQuery({
    description: "The caller's API credits: balance, totals and entries (newest first)",
    key: SCOPE.media,
    input: pageSchema,
    output: CreditsRef,
    run: ({ ctx, actor, input }) => ctx.services.credits.summary(actor, input),
    rest: {
      route: 'GET /api/media/credits',
      summary: 'The credit ledger (newest first; limit, offset) and totals',
      response: z.object({
        balance: z.int().describe('credits spendable now (held credits not included)'),
        held: z.int().describe('credits held by analyses in progress, beside balance'),
        total_added: z.int(),
        total_spent: z.int(),
        entries: z.array(answerFrom(z.object({ id, amount: z.int(), action: z.string(), reference: z.string().nullable(), created_at: timestamp }), { id: 'databaseId' })),
        ...pageCounts,
      }),
    },
  }),
  folders: defineQuery({
    key: SCOPE.media,
    plain: true,
    output: [FolderWithCountRef],
    run: ({ ctx, actor }) => ctx.services.folders.list(actor),
    rest: {
      route: 'GET /api/media/folders',
      operationName: 'ListFolders',
      summary: 'Folders with their item counts',
      response: answerFrom(z.object({ folders: z.array(folderSummary) }), { folders: '' }),
    },
  }),
  // Folder changes answer the folder re-read with the caller's selection (counts included).
  createFolder: defineMutation({
    key: SCOPE.media,
    input: folderName,
    output: FolderRef,
    prisma: true,
    run: async ({ ctx, actor, input, query }) => {
      const created = await ctx.services.folders.create(actor, input);
      return ctx.services.folders.get(actor, created.id, prismaSelection(query));
    },
    rest: {
      route: 'POST /api/media/folders',
      summary: 'Create a folder (name)',
      response: folderAnswer,
      errors: { 409: 'a folder of that name exists' },
      successStatus: 201,
    },
  }),
  renameFolder: defineMutation({
    key: SCOPE.media,
    ids: folderId,
    input: folderName,
    output: FolderRef,
    prisma: true,
    run: async ({ ctx, actor, id, input, query }) => {
      const renamed = await ctx.services.folders.rename(actor, id, input);
      return ctx.services.folders.get(actor, renamed.id, prismaSelection(query));
    },
    rest: {
      route: 'PATCH /api/media/folders/:id',
      summary: 'Rename a folder (name)',
      response: folderAnswer,
      errors: { 409: 'a folder of that name exists' },
    },
  }),
  deleteFolder: defineMutation({
    key: SCOPE.media,
    ids: folderId,
    output: FolderWithCountRef,
    run: ({ ctx, actor, id }) => ctx.services.folders.delete(actor, id),
    rest: {
      route: 'DELETE /api/media/folders/:id',
      summary: 'Delete a folder; its items stay in the library, outside any folder',
      response: deletedAnswer('folder_id'),
      shape: withDeleted,
    },
  }),
  trashMedia: defineMutation({
    key: SCOPE.media,
    ids: mediaItemId,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.trash(actor, id),
    rest: {
      route: 'DELETE /api/media/:id',
      summary: 'Move an item to the trash (restore or purge it later)',
      response: answerFrom(z.object({ media_id: id, trashed: z.literal(true), trashed_at: timestamp.nullable() }), { media_id: 'databaseId', trashed: null }),
      shape: (answer) => ({ media_id: answer.media_id, trashed: true, trashed_at: answer.trashed_at }),
    },
  }),
  changeMediaTags: defineMutation({
    key: SCOPE.media,
    ids: mediaItemId,
    input: tagChangeSchema,
    args: { action: TagActionEnum },
    output: MediaRef,
    run: ({ ctx, actor, id, input }) => ctx.services.media.changeTags(actor, id, input),
    rest: {
      route: 'PATCH /api/media/:id/tags',
      summary: 'Add, remove or replace tags (action, tags)',
      response: answerFrom(z.object({ media_id: id, tags: z.array(z.string()) }), { media_id: 'databaseId' }),
    },
  }),
  purgeMedia: defineMutation({
    key: SCOPE.media,
    ids: mediaItemId,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.purge(actor, id),
    rest: {
      route: 'DELETE /api/media/:id/purge',
      summary: 'Delete a trashed item and its files for good',
      response: answerFrom(z.object({ media_id: id, purged: z.literal(true) }), { media_id: 'databaseId', purged: null }),
      errors: { 409: 'the item is not in the trash' },
      shape: (answer) => ({ media_id: answer.media_id, purged: true }),
    },
  }),
  addMediaMirror: defineMutation({
    description:
      'Registers another URL of the same image once it is checked (fetched, hashed and found to be the same photo: a 400 naming url otherwise); answers every mirror of the item',
    key: SCOPE.media,
    input: mirrorSchema,
    output: [MirrorRef],
    run: ({ ctx, actor, input }) => ctx.services.media.addMirror(actor, input),
    rest: {
      route: 'POST /api/media/mirror',
      summary: "Register another URL where an item's image lives (media_id, url)",
      response: answerFrom(z.object({ mirrors: z.array(mirror) }), { mirrors: '' }),
      errors: { 404: 'media_id is not one of your media items' },
    },
  }),
  uploadMedia: defineMutation({
    key: SCOPE.media,
    input: uploadFormSchema,
    output: UploadResultRef,
    run: async ({ ctx, actor, input: { file, ...fields } }) => ctx.services.media.ingest(actor, { body: Buffer.from(await file.arrayBuffer()), filename: file.name }, fields),
    rest: {
      route: 'POST /api/media/upload',
      summary: 'Upload a file (multipart: file, name, group, tags as a JSON array, auto_tag); the same bytes twice answer the first item',
      form: { files: ['file'] },
      errors: { 409: 'auto_tag was asked for and image analysis is not available on this server', 413: 'the file is larger than UPLOAD_MAX_BYTES' },
      successStatus: 201,
      shape: (answer) => ({ ...answer, media: withTrashed(answer.media) }),
    },
  }),
  mediaSearch: defineQuery({
    key: SCOPE.media,
    input: searchSchema,
    args: { type: MediaKindEnum },
    output: MediaPageRef,
    run: ({ ctx, actor, input }) => ctx.services.media.search(actor, input),
    rest: {
      route: 'GET /api/media/search',
      operationName: 'SearchMedia',
      fragment: 'MediaPage',
      summary: 'Full-text search (q) ranked, with filters tag, group, folder_id, type, color (nearest dominant colours), limit, offset',
      shape: withTrashedItems,
    },
  }),
  restoreMedia: defineMutation({
    key: SCOPE.media,
    ids: mediaItemId,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.restore(actor, id),
    rest: {
      route: 'POST /api/media/:id/restore',
      summary: 'Bring an item back from the trash',
      response: mediaAnswer,
      shape: withTrashedMedia,
    },
  }),
  media: defineQuery({
    key: SCOPE.media,
    ids: mediaItemId,
    plain: true,
    prisma: true,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.get(actor, id),
    // fragment: the typed client's MediaFields, the item's fields (MediaItemFields) under its older name.
    rest: { route: 'GET /api/media/:id', operationName: 'GetMedia', summary: 'One item', response: mediaAnswer, shape: withTrashedMedia, fragment: 'Media' },
  }),
  updateMedia: defineMutation({
    key: SCOPE.media,
    ids: mediaItemId,
    input: updateSchema,
    inputType: 'MediaUpdateInput',
    nullClears: ['group', 'folder_id', 'caption'],
    argDescriptions: { group: 'null removes the group', folder_id: 'null moves the item out of any folder' },
    output: MediaRef,
    run: ({ ctx, actor, id, input }) => ctx.services.media.update(actor, id, input),
    rest: {
      route: 'PATCH /api/media/:id',
      summary: 'Change name, group, folder_id, caption or tags (null clears group, folder_id and caption)',
      response: mediaAnswer,
      shape: withTrashedMedia,
    },
  }),
});

/** The search as a relay connection: mediaSearch's filters as its arguments, relay's page instead of limit and offset. */
const searchFilters = inputFields(mediaOperations.mediaSearch).filter((arg) => arg.field !== 'limit' && arg.field !== 'offset');
builder.queryField('mediaConnection', (t) =>
  t.connection({
    type: MediaRef,
    description: 'The same search as mediaSearch, as a relay connection',
    authScopes: authScopesOf(SCOPE.media),
    args: Object.fromEntries(searchFilters.map((arg) => [arg.name, t.arg({ type: arg.type as never })])),
    resolve: (_root, args, ctx) =>
      resolveOffsetConnection({ args, defaultSize: 50, maxSize: 200 }, async ({ limit, offset }) => {
        const page = await ctx.services.media.search(ctx.actor!, { ...snakeInput(mediaOperations.mediaSearch, args), limit: Math.min(limit, 200), offset });
        return page.items;
      }),
  }),
);
