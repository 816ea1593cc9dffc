// What a library item is called at the destination: one mapping for WordPress and Shopify, so an
// item reads the same wherever it goes (docs/rest-api.md "Automation: exports" states it).
import type { MediaItem } from '../../../generated/prisma/client.js';
import { asciiFilename } from './wordpress.client.js';

export interface ExportedMetadata {
  /** The item's name with its extension (ASCII), the file's name at the destination. */
  filename: string;
  /** The item's name without its extension. */
  title: string;
  /** The caption, else the tags, else the title: what the image shows, for screen readers. */
  altText: string;
  /** The caption with the attribution after it (either may be missing). */
  caption: string;
}

export function exportedMetadata(item: Pick<MediaItem, 'name' | 'ext' | 'caption' | 'tags' | 'attribution'>): ExportedMetadata {
  const ext = item.ext.replace(/^\./, '').toLowerCase();
  const name = item.name.trim() || 'file';
  const title = ext && name.toLowerCase().endsWith(`.${ext}`) ? name.slice(0, -(ext.length + 1)) || name : name.replace(/\.[A-Za-z0-9]{1,5}$/, '') || name;
  const base = asciiFilename(title);
  const caption = item.caption?.trim() ?? '';
  const attribution = item.attribution?.trim() ?? '';
  return {
    filename: ext ? `${base}.${ext}` : base,
    title: title.slice(0, 200),
    altText: (caption || item.tags.join(', ') || title).slice(0, 500),
    caption: [caption, attribution && `(${attribution})`].filter(Boolean).join(' ').slice(0, 1000),
  };
}
