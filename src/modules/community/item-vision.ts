// What vision saw of a community item: its labels, caption and OCR words (asked once, on first
// need, and paid by the caller's account), and the tags of a set that this evidence confirms.
import type { CommunityItem } from '../../generated/prisma/client.js';
import { AppError } from '../../platform/errors.js';
import type { CommunityDeps } from './community.deps.js';
import { confirmTags, ocrWords, type TagConfirmation } from './tag-confirmation.js';

/** What vision saw of an item: its labels, OCR words and its own caption (never the one people may edit). */
export const seenOf = (item: CommunityItem) => ({ labels: item.labels, words: item.words, caption: item.visionCaption });

export class CommunityVision {
  constructor(private readonly deps: CommunityDeps) {}

  /**
   * The tags of a set that vision confirms, each with its evidence: a model provider's judgement
   * (when one is configured and the tagger can pay for it) and the item's labels, OCR words and
   * caption, through the synonym table (tag-confirmation.ts).
   */
  async confirm(item: CommunityItem, tags: string[], payer: number): Promise<TagConfirmation[]> {
    let judged: string[] | null = null;
    if (this.deps.judge) {
      const image = await this.publicBytes(item);
      judged = image ? await this.deps.judge(image, tags, payer) : null;
    }
    return confirmTags(tags, seenOf(item), judged);
  }

  private async publicBytes(item: CommunityItem): Promise<Buffer | null> {
    const blob = await this.deps.blobs.get(item.storageKey);
    if (!blob) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of blob.body) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  /** The item with vision's labels, caption and OCR words (analysed once, on first need). */
  async analyzed(item: CommunityItem, payer: number): Promise<CommunityItem> {
    if (item.analyzedAt || !this.deps.analyze) return item;
    const image = await this.publicBytes(item);
    if (!image) return item;
    const seen = await this.see(image, payer);
    if (!seen) return item;
    return this.deps.db.prisma.communityItem.update({ where: { id: item.id }, data: seen });
  }

  /** Vision's view of an image, or null when no provider could answer (the item stays unverified). */
  async see(image: Buffer, payer: number): Promise<{ labels: string[]; caption: string | null; visionCaption: string | null; words: string[]; analyzedAt: Date } | null> {
    if (!this.deps.analyze) return null;
    try {
      const result = await this.deps.analyze(image, payer);
      return { labels: [...new Set(result.labels.map((l) => l.toLowerCase()))].slice(0, 50), caption: result.caption || null, visionCaption: result.caption || null, words: ocrWords(result.text), analyzedAt: new Date() };
    } catch (error) {
      // No provider could answer, or none could read this image: the item stays unverified, the call goes on.
      if (!(error instanceof AppError)) throw error;
      this.deps.logger.warn({ err: error }, 'community: image analysis unavailable; item left unverified');
      return null;
    }
  }
}
