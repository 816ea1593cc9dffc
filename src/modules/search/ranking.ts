// Order, scores and de-duplication of the unified search (spec "Search", rule 1).
//
// Tiers in this order: the caller's private library, the caller's public community contributions,
// the global verified atlas, the external stock libraries. Each tier has a score band 24 points
// wide under its top (100, 75, 50, 25), and the i-th result of a tier on the page (0-based) scores
//   quality_score = top - 24 * i / limit        (two decimals)
// so the best private item is 100, scores fall within a tier, and every result of a tier outranks
// every result of the next (the lowest of tier 1 is above 76, the highest of tier 2 is 75).
//
// A result is left out when an earlier one is the same image: the same image object, a result of
// an earlier tier that is the same image by the image-objects rule (sameImage: a library item and
// the community item made from the same photo; plain images only by their exact bytes), or the
// same URL (stock).
import { sameImage, type Likeness } from '../image-objects/index.js';
import type { StockSource } from './stock/stock.types.js';

export const TIER_SOURCES = ['my_private_library', 'my_public_atlas', 'global_atlas'] as const;
export type TierSource = (typeof TIER_SOURCES)[number];
export type SearchSource = TierSource | StockSource;

const TOP: Record<1 | 2 | 3 | 4, number> = { 1: 100, 2: 75, 3: 50, 4: 25 };
const SPAN = 24;

export interface Candidate {
  tier: 1 | 2 | 3 | 4;
  source: SearchSource;
  url: string;
  title: string;
  width: number | null;
  height: number | null;
  isPrivate?: true;
  isVerified?: true;
  /** Community items and wiki photos. */
  objectId?: number;
  /** What the same-image rule reads, when known: library items and image objects. */
  likeness?: Likeness | null;
  pageUrl?: string;
  attribution?: string;
}

export interface RankedImage extends Candidate {
  qualityScore: number;
}

export function score(tier: Candidate['tier'], position: number, limit: number): number {
  return Math.round((TOP[tier] - (SPAN * position) / limit) * 100) / 100;
}

/** Candidates in tier order, each image once (see the top of this file). */
export function distinct(candidates: Candidate[]): Candidate[] {
  const objects = new Set<number>();
  const urls = new Set<string>();
  const prints: Array<{ tier: number; likeness: Likeness }> = [];
  const kept: Candidate[] = [];
  for (const candidate of [...candidates].sort((a, b) => a.tier - b.tier)) {
    if (candidate.objectId !== undefined && objects.has(candidate.objectId)) continue;
    if (urls.has(candidate.url)) continue;
    const likeness = candidate.likeness ?? null;
    // Near copies inside one tier stay (two similar photos in a library are two items).
    if (likeness && prints.some((other) => other.tier < candidate.tier && sameImage(likeness, other.likeness))) continue;
    if (candidate.objectId !== undefined) objects.add(candidate.objectId);
    urls.add(candidate.url);
    if (likeness) prints.push({ tier: candidate.tier, likeness });
    kept.push(candidate);
  }
  return kept;
}

/** The first `limit` candidates with their scores. */
export function ranked(candidates: Candidate[], limit: number): RankedImage[] {
  const positions = new Map<number, number>();
  return candidates.slice(0, limit).map((candidate) => {
    const position = positions.get(candidate.tier) ?? 0;
    positions.set(candidate.tier, position + 1);
    return { ...candidate, qualityScore: score(candidate.tier, position, limit) };
  });
}
