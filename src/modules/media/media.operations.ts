// Media library changes declared once (docs/architecture.md): trash, purge and retag an item,
// folders (create, rename, delete) and mirrors (all `media` scope). GraphQL fields and REST rows are
// made from these; the rules live in media.service.ts and folders.service.ts. Shapes are ours (README
// "Media"). media.schema.ts keeps the rest: the item itself and pages of items (their REST answer is
// the MediaItem component, with `trashed` computed), upload, update and bulk (null clears a field there).
import { z } from 'zod';
import { defineOperation } from '../../graphql/operation.js';
import { prismaSelection } from '../../graphql/prisma-selection.js';
import { answerFrom, id, timestamp } from '../../platform/wire.js';
import { FolderRef, FolderWithCountRef, MediaRef, MirrorRef, TagActionEnum } from './media.schema.js';
import { mirrorSchema, tagChangeSchema } from './media.input.js';
import { nameSchema as folderName } from './folders.service.js';

const media = { scope: 'media' } as const;
const mediaItem = { id: 'media item' } as const;
const folderId = { id: 'folder' } as const;
const folder = answerFrom(z.object({ id, name: z.string(), created_at: timestamp }), { id: 'databaseId' });
const folderAnswer = answerFrom(z.object({ folder }), { folder: '' });

export const mediaOperations = {
  // Folder changes answer the folder re-read with the caller's selection (counts included).
  createFolder: defineOperation({
    kind: 'mutation',
    name: 'createFolder',
    key: media,
    input: folderName,
    output: FolderRef,
    prisma: true,
    run: async ({ ctx, actor, input, query }) => {
      const created = await ctx.services.folders.create(actor, input);
      return ctx.services.folders.get(actor, created.id, prismaSelection(query));
    },
    rest: {
      method: 'POST',
      path: '/api/media/folders',
      summary: 'Create a folder (name)',
      response: folderAnswer,
      errors: { 409: 'a folder of that name exists' },
      successStatus: 201,
    },
  }),
  renameFolder: defineOperation({
    kind: 'mutation',
    name: 'renameFolder',
    key: media,
    ids: folderId,
    input: folderName,
    output: FolderRef,
    prisma: true,
    run: async ({ ctx, actor, id, input, query }) => {
      const renamed = await ctx.services.folders.rename(actor, id, input);
      return ctx.services.folders.get(actor, renamed.id, prismaSelection(query));
    },
    rest: {
      method: 'PATCH',
      path: '/api/media/folders/:id',
      summary: 'Rename a folder (name)',
      response: folderAnswer,
      errors: { 409: 'a folder of that name exists' },
    },
  }),
  deleteFolder: defineOperation({
    kind: 'mutation',
    name: 'deleteFolder',
    key: media,
    ids: folderId,
    output: FolderWithCountRef,
    run: ({ ctx, actor, id }) => ctx.services.folders.delete(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/folders/:id',
      summary: 'Delete a folder; its items stay in the library, outside any folder',
      response: answerFrom(z.object({ deleted: z.literal(true), folder_id: id }), { deleted: null, folder_id: 'databaseId' }),
      shape: (answer) => ({ deleted: true, folder_id: answer.folder_id }),
    },
  }),
  trashMedia: defineOperation({
    kind: 'mutation',
    name: 'trashMedia',
    key: media,
    ids: mediaItem,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.trash(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/:id',
      summary: 'Move an item to the trash (restore or purge it later)',
      response: answerFrom(z.object({ media_id: id, trashed: z.literal(true), trashed_at: timestamp.nullable() }), { media_id: 'databaseId', trashed: null }),
      shape: (answer) => ({ media_id: answer.media_id, trashed: true, trashed_at: answer.trashed_at }),
    },
  }),
  changeMediaTags: defineOperation({
    kind: 'mutation',
    name: 'changeMediaTags',
    key: media,
    ids: mediaItem,
    input: tagChangeSchema,
    args: { action: TagActionEnum },
    output: MediaRef,
    run: ({ ctx, actor, id, input }) => ctx.services.media.changeTags(actor, id, input),
    rest: {
      method: 'PATCH',
      path: '/api/media/:id/tags',
      summary: 'Add, remove or replace tags (action, tags)',
      response: answerFrom(z.object({ media_id: id, tags: z.array(z.string()) }), { media_id: 'databaseId' }),
    },
  }),
  purgeMedia: defineOperation({
    kind: 'mutation',
    name: 'purgeMedia',
    key: media,
    ids: mediaItem,
    output: MediaRef,
    run: ({ ctx, actor, id }) => ctx.services.media.purge(actor, id),
    rest: {
      method: 'DELETE',
      path: '/api/media/:id/purge',
      summary: 'Delete a trashed item and its files for good',
      response: answerFrom(z.object({ media_id: id, purged: z.literal(true) }), { media_id: 'databaseId', purged: null }),
      errors: { 409: 'the item is not in the trash' },
      shape: (answer) => ({ media_id: answer.media_id, purged: true }),
    },
  }),
  addMediaMirror: defineOperation({
    kind: 'mutation',
    name: 'addMediaMirror',
    description:
      'Registers another URL of the same image once it is checked (fetched, hashed and found to be the same photo: a 400 naming url otherwise); answers every mirror of the item',
    key: media,
    input: mirrorSchema,
    output: [MirrorRef],
    run: ({ ctx, actor, input }) => ctx.services.media.addMirror(actor, input),
    rest: {
      method: 'POST',
      path: '/api/media/mirror',
      summary: "Register another URL where an item's image lives (media_id, url)",
      response: answerFrom(z.object({ mirrors: z.array(answerFrom(z.object({ id, url: z.string(), created_at: timestamp }), { id: 'databaseId' })) }), { mirrors: '' }),
      errors: { 404: 'media_id is not one of your media items' },
    },
  }),
};
