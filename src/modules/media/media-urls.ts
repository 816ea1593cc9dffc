// Signed file URLs of media items: loadable by a browser without an API key, for this item only.
import type { Context } from '../../graphql/context.js';
import type { UrlSigner } from '../../platform/url-signer.js';
import type { MediaItem } from './media.service.js';

export const MEDIA_VARIANTS = ['original', 'thumbnail'] as const;
export type MediaVariant = (typeof MEDIA_VARIANTS)[number];

export function mediaFilePath(id: number, variant: MediaVariant): string {
  return `/media/${id}/${variant}`;
}

export function mediaFileUrl(ctx: Context, media: Pick<MediaItem, 'id' | 'sha256'>, variant: MediaVariant): string {
  return ctx.baseUrl + signedMediaPath(ctx.services.signer, media, variant);
}

/**
 * The signed path of an item's file. The content hash is signed too: a purged and re-created id
 * never reuses an old link. With `expiresAt` the link also stops working then (`exp`, Unix seconds,
 * signed with the rest): links handed to a third party (a shop fetching the file) are short-lived.
 */
export function signedMediaPath(signer: UrlSigner, media: Pick<MediaItem, 'id' | 'sha256'>, variant: MediaVariant, expiresAt?: Date): string {
  const params: Record<string, string | number> = { v: media.sha256.slice(0, 16) };
  if (expiresAt) params.exp = Math.floor(expiresAt.getTime() / 1000);
  return signer.sign(mediaFilePath(media.id, variant), params);
}

/** False once a link's `exp` (when it has one) has passed. */
export function linkStillValid(query: Record<string, unknown>, now = Date.now()): boolean {
  if (query.exp === undefined) return true;
  return typeof query.exp === 'string' && /^\d{1,12}$/.test(query.exp) && Number(query.exp) * 1000 > now;
}
