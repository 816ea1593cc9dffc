// Signed file URLs of media items: loadable by a browser without an API key, for this item only.
import type { Context } from '../../graphql/context.js';
import type { MediaItem } from './media.service.js';

export const MEDIA_VARIANTS = ['original', 'thumbnail'] as const;
export type MediaVariant = (typeof MEDIA_VARIANTS)[number];

export function mediaFilePath(id: number, variant: MediaVariant): string {
  return `/media/${id}/${variant}`;
}

export function mediaFileUrl(ctx: Context, media: Pick<MediaItem, 'id' | 'sha256'>, variant: MediaVariant): string {
  // The content hash is signed too: a purged and re-created id never reuses an old link.
  return ctx.baseUrl + ctx.services.signer.sign(mediaFilePath(media.id, variant), { v: media.sha256.slice(0, 16) });
}
