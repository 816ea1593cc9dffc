// GraphQL types of the media library, and the one field not declared in media.operations.ts: the
// search as a relay connection. Thin: the rules live in the services.
import { resolveOffsetConnection } from '@pothos/plugin-relay';
import { builder, nodeId } from '../../graphql/builder.js';
import { authScopesOf, SCOPE } from '../access/index.js';
import { folderPolicy, mediaItemPolicy } from './media.access.js';
import type { Context } from '../../graphql/context.js';
import { mediaFileUrl } from './media-urls.js';
import type { MediaItem, Page } from './media.service.js';
import { BULK_ACTIONS, MEDIA_KINDS, TAG_ACTIONS } from './media.input.js';
import type { FolderWithCount } from './folders.service.js';

export const MediaKindEnum = builder.enumType('MediaKind', { values: MEDIA_KINDS });
export const TagActionEnum = builder.enumType('TagAction', { values: TAG_ACTIONS });
export const BulkActionEnum = builder.enumType('BulkAction', { values: BULK_ACTIONS });

export const FolderRef = builder.prismaNode('MediaFolder', {
  variant: 'Folder',
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: folderPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: folderPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    itemCount: t.relationCount('items', { where: { trashedAt: null } }),
  }),
});

export const MediaRef = builder.prismaNode('MediaItem', {
  variant: 'Media',
  id: { field: 'id' },
  // A missing or foreign id is a null node, as relay has it (not Prisma's not-found error, a 500).
  nullable: true,
  authScopes: mediaItemPolicy.authScopes,
  findUnique: (id, ctx) => ({ id: nodeId(id), AND: mediaItemPolicy.nodeWhere(ctx) }),
  fields: (t) => ({
    databaseId: t.exposeInt('id', { description: 'The integer media_id of the REST API' }),
    name: t.exposeString('name'),
    group: t.exposeString('group', { nullable: true }),
    folderId: t.exposeInt('folderId', { nullable: true }),
    folder: t.relation('folder', { nullable: true, type: FolderRef }),
    kind: t.field({ type: MediaKindEnum, resolve: (m) => m.kind as (typeof MEDIA_KINDS)[number] }),
    mime: t.exposeString('mime'),
    ext: t.exposeString('ext'),
    bytes: t.exposeInt('bytes'),
    width: t.exposeInt('width', { nullable: true }),
    height: t.exposeInt('height', { nullable: true }),
    format: t.exposeString('format', { nullable: true }),
    sha256: t.exposeString('sha256'),
    phash: t.exposeString('phash', { nullable: true, description: '64-bit DCT perceptual hash (hex)' }),
    blockhash: t.exposeString('blockhash', { nullable: true, description: '256-bit blockhash (hex)' }),
    dominantColor: t.exposeString('dominantHex', { nullable: true }),
    caption: t.exposeString('caption', { nullable: true }),
    extractedText: t.exposeString('extractedText', { nullable: true }),
    tags: t.exposeStringList('tags'),
    sourceUrl: t.exposeString('sourceUrl', { nullable: true }),
    attribution: t.exposeString('attribution', { nullable: true }),
    trashedAt: t.expose('trashedAt', { type: 'DateTime', nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    url: t.string({ description: 'Signed URL of the file (no key needed)', resolve: (m, _a, ctx) => mediaFileUrl(ctx, m, 'original') }),
    thumbnailUrl: t.string({ nullable: true, description: 'Signed URL of a WebP thumbnail (images)', resolve: (m, _a, ctx) => (m.thumbnailKey ? mediaFileUrl(ctx, m, 'thumbnail') : null) }),
  }),
});

export const MediaPageRef = builder.objectRef<Page & { query?: string | null }>('MediaPage').implement({
  description: 'A page of media items with the total that match',
  fields: (t) => ({
    items: t.field({ type: [MediaRef], resolve: (p) => p.items }),
    total: t.exposeInt('total'),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    query: t.exposeString('query', { nullable: true }),
  }),
});

export const UploadResultRef = builder.objectRef<{ media: MediaItem; duplicate: boolean }>('MediaUpload').implement({
  fields: (t) => ({
    media: t.field({ type: MediaRef, resolve: (r) => r.media }),
    duplicate: t.exposeBoolean('duplicate', { description: 'The same bytes were already in the library; that item is answered' }),
  }),
});

export const BulkResultRef = builder.objectRef<{ action: string; items: MediaItem[] }>('MediaBulkResult').implement({
  fields: (t) => ({
    action: t.field({ type: BulkActionEnum, resolve: (r) => r.action as (typeof BULK_ACTIONS)[number] }),
    items: t.field({ type: [MediaRef], resolve: (r) => r.items }),
  }),
});

export const FolderWithCountRef = builder.objectRef<FolderWithCount>('FolderSummary').implement({
  fields: (t) => ({
    databaseId: t.exposeInt('id'),
    name: t.exposeString('name'),
    itemCount: t.exposeInt('itemCount'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const actor = (ctx: Context) => ctx.actor!;

interface SearchFilterArgs {
  q?: string | null;
  tag?: string | null;
  group?: string | null;
  folderId?: number | null;
  type?: (typeof MEDIA_KINDS)[number] | null;
  color?: string | null;
}

/** The GraphQL search arguments as the service's search input (shared by the page and the connection). */
function searchFilters(args: SearchFilterArgs) {
  return {
    q: args.q ?? undefined,
    tag: args.tag ?? undefined,
    group: args.group ?? undefined,
    folder_id: args.folderId ?? undefined,
    type: args.type ?? undefined,
    color: args.color ?? undefined,
  };
}
const media = authScopesOf(SCOPE.media);


builder.queryFields((t) => ({
  mediaConnection: t.connection({
    type: MediaRef,
    description: 'The same search as mediaSearch, as a relay connection',
    authScopes: media,
    args: { q: t.arg.string(), tag: t.arg.string(), group: t.arg.string(), folderId: t.arg.int(), type: t.arg({ type: MediaKindEnum }), color: t.arg.string() },
    resolve: (_root, args, ctx) =>
      resolveOffsetConnection({ args, defaultSize: 50, maxSize: 200 }, async ({ limit, offset }) => {
        const page = await ctx.services.media.search(actor(ctx), { ...searchFilters(args), limit: Math.min(limit, 200), offset });
        return page.items;
      }),
  }),
}));

export const MirrorRef = builder.objectRef<{ id: number; url: string; createdAt: Date }>('MediaMirror').implement({
  fields: (t) => ({ databaseId: t.exposeInt('id'), url: t.exposeString('url'), createdAt: t.expose('createdAt', { type: 'DateTime' }) }),
});
