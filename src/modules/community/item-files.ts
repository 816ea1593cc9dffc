// An item's files behind signed links: the public derivative (no expiry) and the original (a short
// expiry); a link names the file's version, so a replaced file's old links stop working.
import type { CommunityItem } from '../../generated/prisma/client.js';
import { Forbidden, NotFound } from '../../platform/errors.js';
import { storageKeyVersion } from '../../platform/url-signer.js';
import type { CommunityDeps } from './community.deps.js';

/** How long a signed link to an unlocked original works. */
export const ORIGINAL_LINK_SECONDS = 15 * 60;

export const COMMUNITY_VARIANTS = ['public', 'original'] as const;
export type CommunityVariant = (typeof COMMUNITY_VARIANTS)[number];

export function communityFilePath(id: number, variant: CommunityVariant): string {
  return `/community/${id}/${variant}`;
}

export class CommunityFiles {
  constructor(private readonly deps: CommunityDeps) {}

  /** A signed link to a file of the item: the public derivative (no expiry) or the original (15 minutes). */
  fileUrl(item: Pick<CommunityItem, 'id' | 'storageKey'>, variant: CommunityVariant): string {
    const version = storageKeyVersion(item.storageKey);
    if (variant === 'public') return this.deps.signer.sign(communityFilePath(item.id, variant), { v: version });
    return this.deps.signer.sign(communityFilePath(item.id, variant), { v: version, exp: Math.floor(Date.now() / 1000) + ORIGINAL_LINK_SECONDS });
  }

  /** Opens a file behind a signed link (no key: the signature is the capability). */
  async openSigned(idText: string, variantText: string, query: Record<string, unknown>) {
    const { id, kind: variant } = this.deps.signer.verifyFileLink({ id: idText, kind: variantText, query }, COMMUNITY_VARIANTS, (v, itemId) => communityFilePath(itemId, v));
    if (variant === 'original' && !(Number(query.exp) * 1000 > Date.now())) throw new Forbidden('this link has expired: ask for the item again');
    const item = await this.deps.db.prisma.communityItem.findUnique({ where: { id } });
    if (!item || item.removedAt) throw new NotFound(`no community item ${id}`);
    if (query.v !== storageKeyVersion(item.storageKey)) throw new Forbidden('this link is for an earlier file');
    const key = variant === 'original' ? item.originalKey : item.storageKey;
    const blob = key ? await this.deps.blobs.get(key) : null;
    if (!blob) throw new NotFound(`no ${variant} file for community item ${id}`);
    return { item, mime: variant === 'original' ? (item.originalMime ?? 'application/octet-stream') : item.mime, ...blob };
  }
}
