// The unified search's scores and de-duplication (src/modules/search/ranking.ts): every result of a
// tier outranks every result of the next whatever the limit, the best of each tier is its top, and
// an image appears once across tiers (same object, the same image by the image-objects rule, same
// URL) while near copies inside one tier stay; plain images only by their exact bytes.
import { describe, expect, it } from 'vitest';
import { distinct, ranked, score, type Candidate } from '../../src/modules/search/ranking.js';

const hash = (fill: string) => fill.repeat(64).slice(0, 64);
/** What the rule reads: distinct bytes unless `sha256` is given. */
let bytes = 0;
const print = (blockhash: string, extra: { sha256?: string; lowInformation?: boolean } = {}) => ({ sha256: extra.sha256 ?? `sha-${++bytes}`, blockhash, lowInformation: extra.lowInformation ?? false });
/** `hex` with `bits` bits flipped, from bit `from` (0: the most significant) on. */
function flip(hex: string, bits: number, from = 0): string {
  let value = BigInt(`0x${hex}`);
  for (let i = from; i < from + bits; i++) value ^= 1n << BigInt(255 - i);
  return value.toString(16).padStart(64, '0');
}
const candidate = (tier: Candidate['tier'], url: string, extra: Partial<Candidate> = {}): Candidate => ({
  tier,
  source: (['my_private_library', 'my_public_atlas', 'global_atlas', 'pexels'] as const)[tier - 1]!,
  url,
  title: url,
  width: 800,
  height: 600,
  ...extra,
});

describe('score', () => {
  it('starts each tier at its top and keeps every tier above the next, for every limit', () => {
    expect([1, 2, 3, 4].map((tier) => score(tier as Candidate['tier'], 0, 20))).toEqual([100, 75, 50, 25]);
    for (const limit of [1, 2, 7, 20, 100]) {
      for (const tier of [1, 2, 3] as const) {
        const lowest = score(tier, limit - 1, limit);
        expect(lowest).toBeGreaterThan(score((tier + 1) as Candidate['tier'], 0, limit));
        expect(lowest).toBeGreaterThan(0);
      }
    }
    expect(score(1, 1, 20)).toBe(98.8);
    expect(score(4, 99, 100)).toBe(1.24);
  });

  it('numbers positions per tier on the page and cuts it to the limit', () => {
    const page = ranked([candidate(1, 'a'), candidate(1, 'b'), candidate(3, 'c'), candidate(4, 'd'), candidate(4, 'e')], 4);
    expect(page.map((i) => [i.url, i.qualityScore])).toEqual([
      ['a', 100],
      ['b', 94],
      ['c', 50],
      ['d', 25],
    ]);
  });
});

describe('distinct', () => {
  it('keeps one result per image object, the earliest tier', () => {
    const kept = distinct([candidate(3, 'atlas', { objectId: 7 }), candidate(2, 'mine', { objectId: 7 }), candidate(3, 'wiki', { objectId: 7 }), candidate(3, 'other', { objectId: 8 })]);
    expect(kept.map((c) => c.url)).toEqual(['mine', 'other']);
  });

  it('leaves out a later tier within 31 blockhash bits of an earlier one, and keeps near copies inside one tier', () => {
    const base = hash('a5');
    const kept = distinct([
      candidate(1, 'library', { likeness: print(base) }),
      candidate(1, 'library copy', { likeness: print(flip(base, 3, 200)) }),
      candidate(2, 'community copy', { likeness: print(flip(base, 31)), objectId: 1 }),
      candidate(3, 'far enough', { likeness: print(flip(base, 32)), objectId: 2 }),
    ]);
    expect(kept.map((c) => c.url)).toEqual(['library', 'library copy', 'far enough']);
  });

  it('leaves out a repeated URL, and candidates without hashes are told apart by object and URL only', () => {
    const kept = distinct([candidate(4, 'https://x/1.jpg'), candidate(4, 'https://x/1.jpg'), candidate(1, 'lib', { likeness: null }), candidate(3, 'atlas')]);
    expect(kept.map((c) => c.url)).toEqual(['lib', 'atlas', 'https://x/1.jpg']);
  });

  it('tells plain images apart unless they are the same bytes, whichever side is plain', () => {
    const flat = hash('0');
    const gradient = hash('00ff');
    const kept = distinct([
      candidate(1, 'blue', { likeness: print(flat, { sha256: 'blue', lowInformation: true }) }),
      candidate(2, 'red', { likeness: print(flat, { sha256: 'red', lowInformation: true }), objectId: 1 }),
      candidate(3, 'blue again', { likeness: print(flat, { sha256: 'blue', lowInformation: true }), objectId: 2 }),
      candidate(1, 'gradient', { likeness: print(gradient, { lowInformation: true }) }),
      candidate(3, 'photo like the gradient', { likeness: print(gradient), objectId: 3 }),
      // No flag, but a degenerate blockhash (a row hashed before the flag existed) is plain too.
      candidate(3, 'unflagged flat', { likeness: print(flat), objectId: 4 }),
    ]);
    expect(kept.map((c) => c.url)).toEqual(['blue', 'gradient', 'red', 'photo like the gradient', 'unflagged flat']);
  });
});
