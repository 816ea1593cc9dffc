// srcset attributes: parsed as browsers do, and the largest usable file of an element's srcset.
import type { CandidateSet } from './candidate-set.js';

const SRCSET_ATTRIBUTES = ['data-srcset', 'data-lazy-srcset', 'srcset'];

export interface SrcsetEntry {
  url: string;
  width?: number;
  density: number;
}

/**
 * The largest usable file of an element's srcset (lazy variants first): by w descriptor, else by x.
 * Every file listed is this image in another size (or a placeholder), so all of them are kept out of
 * the regex sweep.
 */
export function largestSrcsetEntry(attribs: Record<string, string>, found: CandidateSet): SrcsetEntry | undefined {
  let largest: SrcsetEntry | undefined;
  for (const name of SRCSET_ATTRIBUTES) {
    const srcset = attribs[name];
    if (srcset === undefined) continue;
    const entries = parseSrcset(srcset);
    for (const entry of entries) found.keepOutOfSweep(entry.url);
    if (largest) continue;
    const byWidth = entries.some((entry) => entry.width !== undefined);
    const size = (entry: SrcsetEntry) => (byWidth ? (entry.width ?? 0) : entry.density);
    // Largest first (a stable sort keeps document order among equals); usable() parses a URL, so
    // only as many as it takes.
    largest = entries.sort((a, b) => size(b) - size(a)).find((entry) => found.usable(entry.url));
  }
  return largest;
}

/** HTML's ASCII whitespace: space, tab, LF, FF, CR. */
function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

/**
 * Parses a srcset the way browsers do: a URL runs up to whitespace (so CDN URLs with commas,
 * "w_800,h_600", survive), then descriptors up to the next comma.
 */
export function parseSrcset(srcset: string): SrcsetEntry[] {
  const entries: SrcsetEntry[] = [];
  let i = 0;
  while (i < srcset.length) {
    while (i < srcset.length && (isSpace(srcset.charCodeAt(i)) || srcset[i] === ',')) i++;
    const start = i;
    while (i < srcset.length && !isSpace(srcset.charCodeAt(i))) i++;
    let url = srcset.slice(start, i);
    let descriptors = '';
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      const end = srcset.indexOf(',', i);
      descriptors = srcset.slice(i, end === -1 ? srcset.length : end);
      i = end === -1 ? srcset.length : end + 1;
    }
    if (url === '') continue;
    const width = /(?:^|\s)(\d+)w(?:\s|$)/.exec(descriptors)?.[1];
    const density = /(?:^|\s)(\d*\.?\d+)x(?:\s|$)/.exec(descriptors)?.[1];
    entries.push({ url, width: width === undefined ? undefined : Number(width), density: density === undefined ? 1 : Number(density) });
  }
  return entries;
}
