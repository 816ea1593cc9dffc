// The media library as callers see it, stated once: each answer object (REST names,
// src/platform/wire.ts) and the GraphQL type made from it (src/graphql/answer-object.ts). The
// operations are declared in media.operations.ts. Thin: the rules live in the services.
import { z } from 'zod';
import { builder } from '../../graphql/builder.js';
import { policyNode } from '../../graphql/owned-rows.js';
import { answerEnum, answerFields, answerObject } from '../../graphql/answer-object.js';
import { answerFrom, count, id, pageCounts, timestamp } from '../../platform/wire.js';
import { folderPolicy, mediaItemPolicy } from './media.access.js';
import { mediaFileUrl } from './media-urls.js';
import type { MediaItem, Page } from './media.service.js';
import { BULK_ACTIONS, MEDIA_KINDS, TAG_ACTIONS } from './media.input.js';
import type { FolderWithCount } from './folders.service.js';

export const MediaKindEnum = answerEnum('MediaKind', { values: MEDIA_KINDS });
export const TagActionEnum = builder.enumType('TagAction', { values: TAG_ACTIONS });
export const BulkActionEnum = answerEnum('BulkAction', { values: BULK_ACTIONS });

/** One item of the media library, as every media route answers it. */
export const mediaItem = answerFrom(
  z
    .object({
      id,
      name: z.string(),
      url: z.string().describe('signed URL of the original file (no key needed)'),
      thumbnail_url: z.string().nullable().describe('signed URL of the thumbnail (images)'),
      type: z.enum(MEDIA_KINDS),
      mime: z.string(),
      ext: z.string(),
      bytes: count,
      width: z.int().nullable(),
      height: z.int().nullable(),
      format: z.string().nullable(),
      tags: z.array(z.string()),
      group: z.string().nullable(),
      folder_id: id.nullable(),
      caption: z.string().nullable(),
      extracted_text: z.string().nullable(),
      dominant_color: z.string().nullable().describe('#rrggbb'),
      phash: z.string().nullable(),
      blockhash: z.string().nullable(),
      sha256: z.string(),
      source_url: z.string().nullable(),
      attribution: z.string().nullable(),
      trashed: z.boolean(),
      trashed_at: timestamp.nullable(),
      created_at: timestamp,
      updated_at: timestamp,
    })
    .meta({ id: 'MediaItem', description: 'A media library item' }),
  { id: 'databaseId', type: 'kind', trashed: null },
  'Media',
);

const mediaItemKeys = Object.keys(mediaItem.shape);

/** A media item's answer with `trashed` (not a GraphQL field) told by trashed_at, in the documented order (more keys after). */
export const withTrashed = (item: unknown) => {
  const fields = item as Record<string, unknown>;
  // Built key by key (a page of 50 is 50 calls: a Set and entries per item cost 4% of an uncached page).
  const answer: Record<string, unknown> = {};
  for (const key of mediaItemKeys) answer[key] = key === 'trashed' ? fields.trashed_at !== null : fields[key];
  for (const key of Object.keys(fields)) if (!Object.hasOwn(answer, key)) answer[key] = fields[key];
  return answer;
};

export const folder = answerFrom(z.object({ id, name: z.string(), created_at: timestamp }), { id: 'databaseId' });
export const folderSummary = answerFrom(z.object({ id, name: z.string(), item_count: count, created_at: timestamp }), { id: 'databaseId' });
export const mirror = answerFrom(z.object({ id, url: z.string(), created_at: timestamp }), { id: 'databaseId' });

export const FolderRef = builder.prismaNode('MediaFolder', {
  variant: 'Folder',
  ...policyNode(folderPolicy),
  fields: (t) => ({
    ...answerFields(t, folder),
    itemCount: t.relationCount('items', { where: { trashedAt: null } }),
  }),
});

export const MediaRef = builder.prismaNode('MediaItem', {
  variant: 'Media',
  ...policyNode(mediaItemPolicy),
  fields: (t) => ({
    ...answerFields(t, mediaItem, {
      url: { resolve: (m: MediaItem, _a, ctx) => mediaFileUrl(ctx, m, 'original') },
      thumbnail_url: { resolve: (m: MediaItem, _a, ctx) => (m.thumbnailKey ? mediaFileUrl(ctx, m, 'thumbnail') : null) },
      dominant_color: { resolve: (m: MediaItem) => m.dominantHex },
      phash: { description: '64-bit DCT perceptual hash (hex)' },
      blockhash: { description: '256-bit blockhash (hex)' },
    }),
    folder: t.relation('folder', { nullable: true, type: FolderRef }),
  }),
});

/** A page of a search (the library's is the same without `query`). */
export const mediaSearchPage = z.object({ query: z.string().nullable(), items: z.array(mediaItem), ...pageCounts });
export const MediaPageRef = answerObject<Page & { query?: string | null }>('MediaPage', mediaSearchPage, { description: 'A page of media items with the total that match' });

export const mediaUpload = answerFrom(
  z.object({ media_id: id, url: z.string(), tags: z.array(z.string()), duplicate: z.boolean().describe('the same bytes were already in the library: that item is answered'), media: mediaItem }),
  { media_id: 'media.databaseId', url: 'media.url', tags: 'media.tags' },
);
export const UploadResultRef = answerObject<{ media: MediaItem; duplicate: boolean }>('MediaUpload', mediaUpload);

export const bulkResult = answerFrom(z.object({ action: z.enum(BULK_ACTIONS), count, items: z.array(mediaItem) }), { count: null });
export const BulkResultRef = answerObject<{ action: string; items: MediaItem[] }>('MediaBulkResult', bulkResult);

export const FolderWithCountRef = answerObject<FolderWithCount>('FolderSummary', folderSummary);
export const MirrorRef = answerObject<{ id: number; url: string; createdAt: Date }>('MediaMirror', mirror);
