// The rule that turns what vision saw into a confirmed tag set (README "Community": vision confirmation).
import { describe, expect, it } from 'vitest';
import { confirmTags, normaliseWord, ocrWords } from '../../src/modules/community/tag-confirmation.js';

describe('tag confirmation', () => {
  it('maps synonyms and plurals onto one word', () => {
    expect(normaliseWord('Puppies')).toBe('dog');
    expect(normaliseWord('people')).toBe('person');
    expect(normaliseWord('Boats')).toBe('boat');
    expect(normaliseWord('glass')).toBe('glass');
    expect(normaliseWord('Cell Phone')).toBe('cell phone');
    expect(normaliseWord('smartphone')).toBe('cell phone');
  });

  it('confirms a set when at least half of its tags (rounded up) match labels, OCR words or caption words', () => {
    const seen = { labels: ['person', 'dog'], words: ['harbor', 'open'], caption: 'An image with 2 people and a dog, with the text HARBOR' };
    expect(confirmTags(['puppy'], seen)).toEqual({ matched: ['puppy'], confirmed: true });
    expect(confirmTags(['women', 'sunset'], seen)).toEqual({ matched: ['women'], confirmed: true });
    expect(confirmTags(['harbor', 'sunset', 'beach'], seen)).toEqual({ matched: ['harbor'], confirmed: false });
    expect(confirmTags(['cat'], seen)).toEqual({ matched: [], confirmed: false });
    expect(confirmTags([], seen).confirmed).toBe(false);
  });

  it('does not count the words every caption template uses', () => {
    const seen = { labels: [], words: [], caption: "An image with the text 'OPEN'" };
    expect(confirmTags(['image'], seen).confirmed).toBe(false);
    expect(confirmTags(['text'], seen).confirmed).toBe(false);
    expect(confirmTags(['open'], seen).confirmed).toBe(true);
  });

  it('reads OCR text as unique lower-case words of two letters or more', () => {
    expect(ocrWords('OPEN daily\nOpen 24/7 - a B')).toEqual(['open', 'daily', '24']);
  });
});
